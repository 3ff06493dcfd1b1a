import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceInfo} from '../../ui/shared-commands/marketplace-info.js'

export default oclifCommand(marketplaceInfo, {
  summary: "Show a marketplace's metadata and its plugins, with the problems of each entry",
  examples: ['<%= config.bin %> marketplace info loadout', '<%= config.bin %> marketplace info acme --json'],
})
