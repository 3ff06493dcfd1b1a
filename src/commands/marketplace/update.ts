import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceUpdate} from '../../ui/shared-commands/marketplace-update.js'

export default oclifCommand(marketplaceUpdate, {
  summary: 'Refresh marketplaces (all when none named) and report what changed',
  examples: ['<%= config.bin %> marketplace update', '<%= config.bin %> marketplace update acme --json'],
})
