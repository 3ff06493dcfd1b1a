import {listMarketplaces, type MarketplaceRow} from '../../core/kernel/marketplace/browse.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {renderMarketplaceList} from '../../ui/render/marketplace.js'

export interface MarketplaceListResult {
  marketplaces: MarketplaceRow[]
}

export default class MarketplaceList extends LoadoutCommand {
  static override summary = 'List the known marketplaces: name, source, kind, last update, commit, plugin count'
  static override examples = ['<%= config.bin %> marketplace list', '<%= config.bin %> marketplace list --json']

  async run(): Promise<MarketplaceListResult> {
    await this.parse(MarketplaceList)
    const env = this.environment()
    await this.settlePending(env)
    const marketplaces = listMarketplaces(env, resolveScope(undefined, env))
    this.log(renderMarketplaceList(marketplaces))
    return {marketplaces}
  }
}
