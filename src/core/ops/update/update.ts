import {needsConsent, toExitStatus, type ExitStatus} from '../../model/errors.js'
import {updateMarketplaces} from '../marketplace/update.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import type {HeldRelease} from '../../kernel/policy/release-age.js'
import {heldMessage, prepareCandidate} from './candidate.js'
import {checkDowngrade} from '../install/downgrade.js'
import {diffPlugin, type PluginDiff} from './review.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {loadTargets, pickTargets} from '../../kernel/targets/registry.js'
import {installPrepared, type InstallOptions, type InstallResult} from '../install/install.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'

export interface PluginUpdate {
  plugin: string
  scope: string
  /** held: a newer release exists, younger than the policy's minimumReleaseAge */
  status: 'updated' | 'current' | 'held' | 'failed'
  from: {version?: string; commit?: string; integrity: string}
  to?: {version?: string; commit?: string; integrity: string}
  /** the catalog renamed the plugin: it was updated under this id */
  renamedTo?: string
  /** the executable parts changed, so consent was asked again */
  consentChanged?: boolean
  /** the release the cool-down passed over (status held, or updated to an older tag than the newest) */
  held?: HeldRelease
  /** with --review: what the update changes */
  review?: PluginDiff
  result?: InstallResult
  message?: string
  /** failed only: the error's code and documented exit status */
  code?: string
  exitStatus?: ExitStatus
  suggestions?: string[]
  details?: unknown
}

export interface PluginsUpdated {
  updates: PluginUpdate[]
}

export interface UpdateOptions extends Omit<InstallOptions, 'targets' | 'force'> {
  /** show what each update changes (see review.ts) before it is applied; it needs approval like what runs */
  review?: boolean
  /** called with each review before its approval is asked */
  onReview?: (diff: PluginDiff) => void
  /** asks the person on a terminal whether to apply a reviewed update */
  confirmReview?: (diff: PluginDiff) => Promise<boolean>
  /** false: the marketplaces were refreshed already (`update --auto`) */
  refresh?: boolean
}

/** --review: the update goes ahead once approved (--yes, or on a terminal); off one, status 8. */
const approveReview = async (diff: PluginDiff, options: UpdateOptions): Promise<void> => {
  options.onReview?.(diff)
  if (options.yes || options.dryRun) return
  if (options.confirmReview) {
    if (await options.confirmReview(diff)) return
    throw needsConsent('review-refused', `not updated: the update of ${diff.plugin} was not approved`, {details: diff})
  }
  throw needsConsent('review-needs-consent', `the update of ${diff.plugin} needs your approval after review`, {
    suggestions: ['run it on a terminal to approve, or pass --yes once you have read the review', `the review alone: loadout diff ${diff.plugin}`],
    details: diff,
  })
}

/**
 * Refreshes the marketplaces the installed plugins come from, then reinstalls each plugin whose
 * content changed (by version, commit or integrity: an unchanged version string with new content is
 * still an update). Changed hooks, MCP commands or tools need consent again.
 */
export const updatePlugins = async (ids: readonly string[], options: UpdateOptions): Promise<PluginsUpdated> => {
  const {env, context} = options
  const records = readInstallRecords(env, context.projectRoot).filter(
    (r) => r.scope === context.scope && r.enabled && (ids.length === 0 || ids.includes(r.plugin) || ids.includes(r.plugin.split('@')[0]!)),
  )
  const markets = [
    ...new Set(
      records
        .filter((r) => !isMcpId(r.plugin))
        .map((r) => r.plugin.split('@')[1]!)
        .filter((m) => m !== DIRECT),
    ),
  ]
  if (markets.length > 0 && !options.offline && !options.dryRun && options.refresh !== false) await updateMarketplaces(markets, env, context, {offline: false})
  const byPlugin = new Map<string, InstallRecord[]>()
  for (const r of records) byPlugin.set(r.plugin, [...(byPlugin.get(r.plugin) ?? []), r])
  const all = await loadTargets()
  const updates: PluginUpdate[] = []
  for (const [plugin, group] of [...byPlugin].sort(([a], [b]) => a.localeCompare(b))) {
    const first = group[0]!
    const from = {...(first.version ? {version: first.version} : {}), ...(first.commit ? {commit: first.commit} : {}), integrity: first.integrity}
    try {
      // a plugin installed for a range (asked for, or its dependents') is updated within it
      const candidate = await prepareCandidate(plugin, first, options)
      if (!candidate.prepared) {
        updates.push({plugin, scope: first.scope, status: 'held', from, held: candidate.held, message: heldMessage(candidate.held)})
        continue
      }
      const {prepared, held} = candidate
      const to = {
        ...((prepared.model.version ?? prepared.resolved.version) ? {version: prepared.resolved.version ?? prepared.model.version} : {}),
        ...(prepared.fetched.commit ? {commit: prepared.fetched.commit} : {}),
        integrity: prepared.fetched.integrity,
      }
      const renamedFrom = prepared.id !== plugin && !plugin.endsWith(`@${DIRECT}`) ? plugin : undefined
      if (to.integrity === from.integrity && !renamedFrom) {
        updates.push({plugin, scope: first.scope, status: 'current', from})
        continue
      }
      await checkDowngrade(first, prepared, to, env, context.projectRoot, options.allowDowngrade ?? false)
      const review = options.review ? await diffPlugin(first, prepared, env) : undefined
      if (review) await approveReview(review, options)
      const targets = pickTargets(
        group.map((r) => r.target),
        all,
      )
      const {review: _review, onReview: _onReview, confirmReview: _confirmReview, ...install} = options
      const result = await installPrepared(prepared, {...install, targets, force: true, ...(renamedFrom ? {renamedFrom} : {})})
      updates.push({
        plugin,
        scope: first.scope,
        status: 'updated',
        from,
        to,
        ...(held ? {held} : {}),
        ...(review ? {review} : {}),
        ...(renamedFrom ? {renamedTo: prepared.id} : {}),
        consentChanged: Boolean(first.consent && first.consent !== result.consent.fingerprint),
        result,
      })
    } catch (error) {
      // one plugin failing leaves the others to be updated; the command's status reports it
      updates.push({plugin, scope: first.scope, status: 'failed', from, message: (error as Error).message, ...toExitStatus(error)})
    }
  }
  return {updates}
}
