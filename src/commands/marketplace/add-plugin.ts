import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceAddPlugin} from '../../ui/shared-commands/marketplace-add-plugin.js'

export default oclifCommand(marketplaceAddPlugin, {
  summary: "List a plugin folder of a marketplace in its catalog, by its ./ path, with its manifest's name, description and version",
  examples: [
    '<%= config.bin %> marketplace add-plugin ./plugins/code-review',
    '<%= config.bin %> marketplace add-plugin ../team-tools/plugins/lint --marketplace-dir ../team-tools',
  ],
})
