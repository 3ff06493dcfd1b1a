import {listMarketplaces, type MarketplaceRow} from '../../core/kernel/marketplace/browse.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {renderMarketplaceList} from '../render/marketplace.js'
import {settlePending} from '../settle.js'
import {sharedCommand} from './types.js'

export interface MarketplaceListResult {
  marketplaces: MarketplaceRow[]
}

/** `loadout marketplace list`: the known marketplaces of both scopes. */
export const marketplaceList = sharedCommand({flags: {}}, async (_input, io): Promise<MarketplaceListResult> => {
  await settlePending(io)
  const marketplaces = listMarketplaces(io.env, resolveScope(undefined, io.env))
  io.log(renderMarketplaceList(marketplaces))
  return {marketplaces}
})
