import {marketplaceInfo as describeMarketplace, type MarketplaceInfo} from '../../core/kernel/marketplace/browse.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {renderMarketplaceInfo} from '../render/marketplace.js'
import {sharedCommand} from './types.js'

const spec = {flags: {}, args: {name: 'name', description: 'marketplace name', required: true}} as const

/** `loadout marketplace info <name>`: a marketplace's metadata and its plugins, with the problems of each entry. */
export const marketplaceInfo = sharedCommand(spec, async ({argv}, io): Promise<MarketplaceInfo> => {
  const info = describeMarketplace(argv[0]!, io.env, resolveScope(undefined, io.env))
  io.log(renderMarketplaceInfo(info))
  return info
})
