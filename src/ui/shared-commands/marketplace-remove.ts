import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {planMarketplaceRemoval, removeMarketplace, type MarketplaceRemoval} from '../../core/ops/marketplace/remove.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {DRY_RUN_FLAG, SCOPE_FLAG, YES_FLAG} from '../command-spec.js'
import {confirmOrFail} from '../prompt.js'
import {renderRemoved} from '../render/marketplace.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    force: {type: 'boolean', char: 'f', description: 'remove it even though installed plugins come from it (they stay installed)'},
    scope: SCOPE_FLAG,
    yes: YES_FLAG,
    'dry-run': DRY_RUN_FLAG,
  },
  args: {name: 'name', description: 'marketplace name', required: true},
} as const

/** `loadout marketplace remove <name>`: asks first (unless --yes), never removes a local source folder. */
export const marketplaceRemove = sharedCommand(spec, async ({flags, argv}, io): Promise<MarketplaceRemoval> => {
  const {env} = io
  const context = resolveScope(flags.scope, env)
  const plan = planMarketplaceRemoval(argv[0]!, env, context, flags.force === true, flags.scope === undefined ? undefined : context.scope)
  if (flags['dry-run']) {
    const result = {...plan, dryRun: true}
    io.log(renderRemoved(result))
    return result
  }
  if (!(await confirmOrFail(`Remove marketplace "${plan.name}" (${plan.source})?`, {yes: flags.yes === true, interactive: env.interactive}))) {
    throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
  }
  const removed = await removeMarketplace(plan, env, context)
  io.log(renderRemoved(removed))
  return removed
})
