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
import {renderReview} from '../ui/render/review.js'
import type {PluginDiff} from '../core/ops/update/review.js'
import {whilePrompting} from '../ui/progress.js'
import {confirmOrFail} from '../ui/prompt.js'

const askReview = (plugin: string): Promise<boolean> =>
  whilePrompting(() => confirmOrFail(`Apply the update of ${plugin} reviewed above?`, {yes: false, interactive: true}))

export default class Update extends LoadoutCommand {
  static override summary = 'Install newer versions of installed plugins, asking again when what they run changed'
  static override examples = [
    '<%= config.bin %> update',
    '<%= config.bin %> update review@acme --yes',
    '<%= config.bin %> update --review',
    '<%= config.bin %> update --dry-run --json',
  ]
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
    review: Flags.boolean({
      description:
        'show what each update changes (descriptions, text, hooks, MCP servers, permissions, sources) and ask before applying it; off a terminal without --yes: status 8',
    }),
    'allow-downgrade': Flags.boolean({
      description: 'move to an older version or a commit that does not descend from the installed one, despite policy noDowngrade',
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
        review: flags.review,
        allowDowngrade: flags['allow-downgrade'],
        onProgress,
        // the review goes to stdout before the question, so that it is read before anyone approves
        ...(flags.review && !this.jsonEnabled() ? {onReview: (diff: PluginDiff) => this.log(renderReview(diff))} : {}),
        ...(flags.review && interactive ? {confirmReview: (diff: PluginDiff) => askReview(diff.plugin)} : {}),
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
