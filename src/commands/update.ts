import {Args, Flags} from '@oclif/core'
import {LoadoutError, usageError, worstStatus} from '../core/model/errors.js'
import {autoUpdate, type AutoUpdateReport} from '../core/ops/update/auto.js'
import {renderAutoUpdate} from '../ui/render/auto-update.js'
import {updatePlugins, type PluginsUpdated} from '../core/ops/update/update.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {allowHiddenTextFlag, dryRunFlag, isOffline, offlineFlag, scopeFlag, yesFlag} from '../ui/flags.js'
import {askConsent} from '../ui/install-options.js'
import {withProgress} from '../ui/progress.js'
import {renderUpdates} from '../ui/render/update.js'
import {writeStderr} from '../ui/safe-text.js'

export default class Update extends LoadoutCommand {
  static override summary = 'Install newer versions of installed plugins, asking again when what they run changed'
  static override examples = ['<%= config.bin %> update', '<%= config.bin %> update review@acme --yes', '<%= config.bin %> update --dry-run --json']
  static override strict = false
  static override args = {plugin: Args.string({description: 'plugins to update (default: all installed in the scope)'})}
  static override flags = {
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    offline: offlineFlag,
    'allow-hidden-text': allowHiddenTextFlag,
    auto: Flags.boolean({
      description:
        'for a scheduler or a SessionStart hook: refresh the marketplaces with auto-update on that are due (last refreshed a day ago), then update (apply) or report (notify); never asks, and exits 0',
      exclusive: ['yes', 'dry-run', 'offline'],
    }),
  }

  async run(): Promise<PluginsUpdated | AutoUpdateReport> {
    const {argv, flags} = await this.parse(Update)
    const env = this.environment()
    if (flags.auto) {
      if (argv.length > 0) throw usageError('auto-with-plugins', '--auto takes no plugin names: it updates what the due marketplaces hold')
      const report = await autoUpdate(env, {allowHiddenText: flags['allow-hidden-text']})
      this.log(renderAutoUpdate(report))
      return report
    }
    const interactive = env.interactive && !this.jsonEnabled()
    const result = await withProgress(!this.jsonEnabled(), (onProgress) =>
      updatePlugins(argv as string[], {
        env,
        context: resolveScope(flags.scope, env),
        dryRun: flags['dry-run'],
        prefix: true,
        offline: isOffline(flags.offline),
        yes: flags.yes,
        allowHiddenText: flags['allow-hidden-text'],
        onProgress,
        ...(interactive ? {confirm: askConsent((id) => `${id} changed what it runs. Update and allow it?`)} : {}),
      }),
    )
    const failed = result.updates.filter((u) => u.status === 'failed')
    if (failed.length > 0) {
      if (!this.jsonEnabled()) writeStderr(renderUpdates(result))
      const first = failed[0]!
      const message =
        failed.length === 1
          ? `${first.plugin}: ${first.message}`
          : `${failed.length} of ${result.updates.length} plugins failed to update: ${failed.map((u) => `${u.plugin}: ${u.message}`).join('; ')}`
      // one failure is reported as itself (its details and suggestions); several as the whole result
      const one = failed.length === 1
      throw new LoadoutError(one && first.code ? first.code : 'update-failed', worstStatus(failed.map((u) => u.exitStatus ?? 1)), message, {
        details: one && first.details !== undefined ? first.details : result,
        suggestions: one && first.suggestions ? first.suggestions : ['the other plugins were updated; see each failure above'],
      })
    }
    this.log(renderUpdates(result))
    return result
  }
}
