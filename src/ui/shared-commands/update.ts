import {LoadoutError, usageError, worstStatus} from '../../core/model/errors.js'
import type {AutoUpdateReport} from '../../core/ops/update/auto.js'
import type {PluginDiff} from '../../core/ops/update/review.js'
import {updatePlugins, type PluginsUpdated} from '../../core/ops/update/update.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {ALLOW_HIDDEN_TEXT_FLAG, DRY_RUN_FLAG, isOffline, OFFLINE_FLAG, SCOPE_FLAG, YES_FLAG} from '../command-spec.js'
import {withProgress} from '../progress.js'
import {renderUpdates} from '../render/update.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    scope: SCOPE_FLAG,
    yes: YES_FLAG,
    'dry-run': DRY_RUN_FLAG,
    offline: OFFLINE_FLAG,
    'allow-hidden-text': ALLOW_HIDDEN_TEXT_FLAG,
    auto: {
      type: 'boolean',
      description:
        'for a scheduler or a SessionStart hook: refresh the marketplaces with auto-update on that are due (last refreshed a day ago), then update (apply) or report (notify); never asks, and exits 0',
      exclusive: ['yes', 'dry-run', 'offline'],
    },
    review: {
      type: 'boolean',
      description:
        'show what each update changes (descriptions, text, hooks, MCP servers, permissions, sources) and ask before applying it; off a terminal without --yes: status 8',
    },
    'allow-downgrade': {
      type: 'boolean',
      description: 'move to an older version or a commit that does not descend from the installed one, despite policy noDowngrade',
    },
  },
  args: {name: 'plugin', description: 'plugins to update (default: all installed in the scope)', variadic: true},
} as const

/** On a terminal: the review and the consent questions (inquirer loads only here). */
const questions = async () => {
  const [{whilePrompting}, {confirmOrFail}, {askConsent}] = await Promise.all([
    import('../progress.js'),
    import('../prompt.js'),
    import('../install-options.js'),
  ])
  return {
    confirmReview: (diff: PluginDiff) =>
      whilePrompting(() => confirmOrFail(`Apply the update of ${diff.plugin} reviewed above?`, {yes: false, interactive: true})),
    confirm: askConsent((id) => `${id} changed what it runs. Update and allow it?`),
  }
}

/** The failure of an update where some plugins failed: one is reported as itself (its details and suggestions), several as the whole result. */
const updateFailure = (result: PluginsUpdated, failed: PluginsUpdated['updates']): LoadoutError => {
  const first = failed[0]!
  const one = failed.length === 1
  const message = one
    ? `${first.plugin}: ${first.message}`
    : `${failed.length} of ${result.updates.length} plugins failed to update: ${failed.map((u) => `${u.plugin}: ${u.message}`).join('; ')}`
  return new LoadoutError(one && first.code ? first.code : 'update-failed', worstStatus(failed.map((u) => u.exitStatus ?? 1)), message, {
    details: one && first.details !== undefined ? first.details : result,
    suggestions: one && first.suggestions ? first.suggestions : ['the other plugins were updated; see each failure above'],
  })
}

export const update = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<PluginsUpdated | AutoUpdateReport> => {
    const {env} = io
    if (flags.auto) {
      if (argv.length > 0) throw usageError('auto-with-plugins', '--auto takes no plugin names: it updates what the due marketplaces hold')
      const [{autoUpdate}, {renderAutoUpdate}] = await Promise.all([import('../../core/ops/update/auto.js'), import('../render/auto-update.js')])
      const report = await autoUpdate(env, {allowHiddenText: flags['allow-hidden-text'] as boolean})
      io.log(renderAutoUpdate(report))
      return report
    }
    const interactive = env.interactive && !io.json
    const review = flags.review === true
    const asked = interactive ? await questions() : undefined
    // the review goes to stdout before the question, so that it is read before anyone approves
    const renderReview = review && !io.json ? (await import('../render/review.js')).renderReview : undefined
    const result = await withProgress(!io.json, (onProgress) =>
      updatePlugins(argv, {
        env,
        context: resolveScope(flags.scope, env),
        // as oclif hands them over: a flag not given is undefined, and results echo some of them
        dryRun: flags['dry-run'] as boolean,
        prefix: true,
        offline: isOffline(flags.offline),
        yes: flags.yes as boolean,
        allowHiddenText: flags['allow-hidden-text'] as boolean,
        review: flags.review as boolean,
        allowDowngrade: flags['allow-downgrade'] as boolean,
        onProgress,
        ...(renderReview ? {onReview: (diff: PluginDiff) => io.log(renderReview(diff))} : {}),
        ...(asked && review ? {confirmReview: asked.confirmReview} : {}),
        ...(asked ? {confirm: asked.confirm} : {}),
      }),
    )
    const failed = result.updates.filter((u) => u.status === 'failed')
    if (failed.length > 0) {
      if (!io.json) writeStderr(renderUpdates(result))
      throw updateFailure(result, failed)
    }
    io.log(renderUpdates(result))
    return result
  },
  // on a terminal update may ask (consent, the review): that stays with oclif
  {requests: true, fastWhen: (io) => !io.env.interactive},
)
