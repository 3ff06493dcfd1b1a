import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplaceAdd} from '../../ui/shared-commands/marketplace-add.js'

export default oclifCommand(marketplaceAdd, {
  summary: 'Add a marketplace (a catalog of plugins) from GitHub, a git URL, a catalog URL or a folder',
  examples: [
    '<%= config.bin %> marketplace add acme/agent-plugins',
    '<%= config.bin %> marketplace add https://git.example.com/team/plugins.git --ref v2',
    '<%= config.bin %> marketplace add https://example.com/marketplace.json --name example',
    '<%= config.bin %> marketplace add ./my-marketplace --scope project',
  ],
})
