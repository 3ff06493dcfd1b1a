import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceList} from '../../ui/shared-commands/marketplace-list.js'

export type {MarketplaceListResult} from '../../ui/shared-commands/marketplace-list.js'

export default oclifCommand(marketplaceList, {
  summary: 'List the known marketplaces: name, source, kind, last update, commit, plugin count',
  examples: ['<%= config.bin %> marketplace list', '<%= config.bin %> marketplace list --json'],
})
