import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceRemove} from '../../ui/shared-commands/marketplace-remove.js'

export default oclifCommand(marketplaceRemove, {
  summary: 'Remove a marketplace and its cache (never a local source folder)',
  examples: [
    '<%= config.bin %> marketplace remove acme --yes',
    '<%= config.bin %> marketplace remove acme --scope user --yes',
    '<%= config.bin %> marketplace remove acme --force --dry-run',
  ],
})
