import type {MarketplaceAdded} from '../../core/ops/marketplace/add.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {oclifArgs, oclifFlags} from '../../ui/oclif-flags.js'
import {marketplaceAdd} from '../../ui/shared-commands/marketplace-add.js'

export default class MarketplaceAdd extends LoadoutCommand {
  static override summary = 'Add a marketplace (a catalog of plugins) from GitHub, a git URL, a catalog URL or a folder'
  static override examples = [
    '<%= config.bin %> marketplace add acme/agent-plugins',
    '<%= config.bin %> marketplace add https://git.example.com/team/plugins.git --ref v2',
    '<%= config.bin %> marketplace add https://example.com/marketplace.json --name example',
    '<%= config.bin %> marketplace add ./my-marketplace --scope project',
  ]
  static override args = oclifArgs(marketplaceAdd.spec.args)
  static override flags = oclifFlags(marketplaceAdd.spec.flags)

  async run(): Promise<MarketplaceAdded> {
    const {args, flags} = await this.parse(MarketplaceAdd)
    return marketplaceAdd.run({flags, argv: [args.source as string]}, this.io())
  }
}
