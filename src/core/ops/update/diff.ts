import {notFound} from '../../model/errors.js'
import type {Environment} from '../../kernel/env/environment.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import type {HeldRelease} from '../../kernel/policy/release-age.js'
import {prepareCandidate} from './candidate.js'
import {diffPlugin, type PluginDiff} from './review.js'

export interface PluginDiffs {
  diffs: Array<PluginDiff | {plugin: string; scope: string; held: HeldRelease}>
}

/**
 * Read-only: what `update` would change for each named plugin, against the marketplaces as they were
 * last fetched (`marketplace update` refreshes them). Fetches the candidate into the cache, as
 * install does; no record, lock, approval or registration changes.
 */
export const diffInstalled = async (
  ids: readonly string[],
  options: {env: Environment; context: ScopeContext; offline: boolean; scope?: 'user' | 'project'},
): Promise<PluginDiffs> => {
  const records = readInstallRecords(options.env, options.context.projectRoot).filter(
    (r) => (!options.scope || r.scope === options.scope) && (ids.includes(r.plugin) || ids.includes(r.plugin.split('@')[0]!)),
  )
  const missing = ids.filter((id) => !records.some((r) => r.plugin === id || r.plugin.split('@')[0] === id))
  if (missing.length > 0)
    throw notFound('plugin-not-installed', `not installed${options.scope ? ` in the ${options.scope} scope` : ''}: ${missing.join(', ')}`, {
      suggestions: ['see what is installed: loadout list'],
    })
  const firsts = new Map(records.map((r) => [`${r.scope}\0${r.plugin}`, r]))
  const diffs: PluginDiffs['diffs'] = []
  for (const first of [...firsts.values()].sort((a, b) => a.plugin.localeCompare(b.plugin) || a.scope.localeCompare(b.scope))) {
    const candidate = await prepareCandidate(first.plugin, first, options)
    diffs.push(candidate.prepared ? await diffPlugin(first, candidate.prepared, options.env) : {plugin: first.plugin, scope: first.scope, held: candidate.held})
  }
  return {diffs}
}
