/**
 * Dependencies nothing needs any more: plugins installed only as dependencies (`autoInstalled`)
 * whose every dependent is gone (or going). Found as a fixed point, so a chain whose top is removed
 * goes whole: removing a frees b, which frees c.
 */
import type {Environment} from '../../kernel/env/environment.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {removeInstalled, type RemovalResult} from './remove.js'

/**
 * The auto-installed plugins of `scope` that nothing would need once `removing` is gone. With
 * `removing` empty: every unneeded dependency (what `prune` removes).
 */
export const unneededDependencies = (records: readonly InstallRecord[], scope: string, removing: readonly string[] = []): string[] => {
  const mine = records.filter((r) => r.scope === scope)
  const installed = new Set(mine.map((r) => r.plugin))
  const gone = new Set(removing)
  const freed: string[] = []
  let changed = true
  while (changed) {
    changed = false
    for (const record of mine) {
      const id = record.plugin
      if (!record.autoInstalled || gone.has(id)) continue
      // one record per target: the plugin is needed if any of them names a dependent still there
      const dependents = new Set(mine.filter((r) => r.plugin === id).flatMap((r) => r.dependencyOf ?? []))
      const needed = [...dependents].some((d) => installed.has(d) && !gone.has(d))
      if (needed) continue
      // with a `removing` list, only what that removal frees (directly or down a chain) is offered
      if (removing.length > 0 && ![...dependents].some((d) => gone.has(d))) continue
      gone.add(id)
      freed.push(id)
      changed = true
    }
  }
  return freed
}

export interface PruneResult {
  scope: string
  dryRun: boolean
  removed: string[]
  results: RemovalResult[]
}

/** Removes the given dependencies (or every unneeded one), each exactly as recorded. */
export const removeDependencies = async (
  env: Environment,
  context: ScopeContext,
  options: {ids?: readonly string[]; dryRun: boolean; force: boolean},
): Promise<PruneResult> => {
  const ids = options.ids ?? unneededDependencies(readInstallRecords(env, context.projectRoot), context.scope)
  const results: RemovalResult[] = []
  // a dry run removes nothing: what it lists before a plugin counts as gone when that plugin is judged
  for (const [i, id] of ids.entries())
    results.push(await removeInstalled(id, env, context, {force: options.force, dryRun: options.dryRun, going: ids.slice(0, i)}))
  return {scope: context.scope, dryRun: options.dryRun, removed: [...ids], results}
}
