import {Args, Flags} from '@oclif/core'
import {setAutoUpdate, type AutoUpdateSet} from '../../core/ops/marketplace/auto-update.js'
import {EXIT, LoadoutError, worstStatus, type ExitStatus} from '../../core/model/errors.js'
import {updateMarketplaces, type MarketplacesUpdated} from '../../core/ops/marketplace/update.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag, isOffline, offlineFlag} from '../../ui/flags.js'
import {withProgress} from '../../ui/progress.js'
import {renderUpdated} from '../../ui/render/marketplace.js'
import {writeStderr} from '../../ui/safe-text.js'

export default class MarketplaceUpdate extends LoadoutCommand {
  static override summary = 'Refresh marketplaces (all when none named) and report what changed'
  static override examples = ['<%= config.bin %> marketplace update', '<%= config.bin %> marketplace update acme --json']
  static override strict = false
  static override args = {name: Args.string({description: 'marketplace names (default: all)'})}
  static override flags = {
    offline: offlineFlag,
    'dry-run': dryRunFlag,
    'auto-update': Flags.string({
      description: 'set what `loadout update --auto` does with the named marketplaces: off, notify or apply (refreshes nothing)',
      options: ['off', 'notify', 'apply'],
    }),
  }

  async run(): Promise<MarketplacesUpdated | AutoUpdateSet> {
    const {argv, flags} = await this.parse(MarketplaceUpdate)
    const env = this.environment()
    const context = resolveScope(undefined, env)
    if (flags['auto-update'] !== undefined) {
      const set = await setAutoUpdate(argv as string[], flags['auto-update'], env, context)
      this.log(set.marketplaces.map((m) => `${m.name} (${m.scope}): auto-update ${m.autoUpdate}`).join('\n'))
      return set
    }
    const updated = await withProgress(!this.jsonEnabled(), (onProgress) =>
      updateMarketplaces(argv as string[], env, context, {offline: isOffline(flags.offline), dryRun: flags['dry-run'], onProgress}),
    )
    const failed = updated.results.filter((r) => r.status === 'failed')
    if (failed.length > 0) {
      if (!this.jsonEnabled()) writeStderr(renderUpdated(updated))
      const status = worstStatus(failed.map((f) => (f.exitStatus ?? EXIT.network) as ExitStatus))
      throw new LoadoutError(
        'update-failed',
        status,
        `${failed.length} of ${updated.results.length} marketplace(s) could not be refreshed; their last good copies were kept`,
        {
          details: updated,
          suggestions: failed.map((f) => `${f.name}: ${f.message}`),
        },
      )
    }
    this.log(renderUpdated(updated))
    return updated
  }
}
