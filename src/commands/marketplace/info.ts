import {Args} from '@oclif/core'
import {marketplaceInfo, type MarketplaceInfo} from '../../core/kernel/marketplace/browse.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {renderMarketplaceInfo} from '../../ui/render/marketplace.js'

export default class MarketplaceInfoCommand extends LoadoutCommand {
  static override summary = "Show a marketplace's metadata and its plugins, with the problems of each entry"
  static override examples = ['<%= config.bin %> marketplace info loadout', '<%= config.bin %> marketplace info acme --json']
  static override args = {name: Args.string({required: true, description: 'marketplace name'})}

  async run(): Promise<MarketplaceInfo> {
    const {args} = await this.parse(MarketplaceInfoCommand)
    const env = this.environment()
    const info = marketplaceInfo(args.name, env, resolveScope(undefined, env))
    this.log(renderMarketplaceInfo(info))
    return info
  }
}
