import {setAutoUpdate, type AutoUpdateSet} from '../../core/ops/marketplace/auto-update.js'
import {EXIT, LoadoutError, worstStatus, type ExitStatus} from '../../core/model/errors.js'
import {updateMarketplaces, type MarketplacesUpdated} from '../../core/ops/marketplace/update.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {DRY_RUN_FLAG, isOffline, OFFLINE_FLAG} from '../command-spec.js'
import {withProgress} from '../progress.js'
import {renderUpdated} from '../render/marketplace.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    offline: OFFLINE_FLAG,
    'dry-run': DRY_RUN_FLAG,
    'auto-update': {
      type: 'string',
      description: 'set what `loadout update --auto` does with the named marketplaces: off, notify or apply (refreshes nothing)',
      options: ['off', 'notify', 'apply'],
    },
  },
  args: {name: 'name', description: 'marketplace names (default: all)', variadic: true},
} as const

/** `loadout marketplace update [names...]`: refreshes them (all when none named), or sets their auto-update. */
export const marketplaceUpdate = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<MarketplacesUpdated | AutoUpdateSet> => {
    const {env} = io
    const context = resolveScope(undefined, env)
    if (flags['auto-update'] !== undefined) {
      const set = await setAutoUpdate(argv, flags['auto-update'], env, context)
      io.log(set.marketplaces.map((m) => `${m.name} (${m.scope}): auto-update ${m.autoUpdate}`).join('\n'))
      return set
    }
    const updated = await withProgress(!io.json, (onProgress) =>
      updateMarketplaces(argv, env, context, {offline: isOffline(flags.offline), dryRun: flags['dry-run'] === true, onProgress}),
    )
    const failed = updated.results.filter((r) => r.status === 'failed')
    if (failed.length > 0) {
      if (!io.json) writeStderr(renderUpdated(updated))
      const status = worstStatus(failed.map((f) => (f.exitStatus ?? EXIT.network) as ExitStatus))
      throw new LoadoutError(
        'update-failed',
        status,
        `${failed.length} of ${updated.results.length} marketplace(s) could not be refreshed; their last good copies were kept`,
        {details: updated, suggestions: failed.map((f) => `${f.name}: ${f.message}`)},
      )
    }
    io.log(renderUpdated(updated))
    return updated
  },
  {requests: true},
)
