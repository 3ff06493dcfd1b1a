import type {Environment} from '../../kernel/env/environment.js'
import {conflict, notFound} from '../../model/errors.js'
import {projectManifestFile} from '../../kernel/state/marketplaces.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {pathsRecordedBy, readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {closestNames} from '../../kernel/text/suggest.js'
import {removeApplied} from './apply.js'
import {inheritCreated} from './config-heirs.js'
import {ownedEdits} from './owned-edits.js'
import {pruneProjectCopies} from './project-copy.js'
import {undeclarePlugin} from './project.js'
import {transaction} from '../../kernel/state/transaction.js'
import {approvalsFile, dropApproval} from './consent.js'

export interface RemovalResult {
  plugin: string
  scope: Scope
  dryRun: boolean
  targets: Array<{target: string; files: number; configEntries: number; kept: string[]; drifted: string[]}>
}

/** The records of `id` in the scope (and agents) asked for; none is "not found", naming where it is. */
export const recordsFor = (id: string, env: Environment, context: ScopeContext, agents?: readonly string[]): {mine: InstallRecord[]; all: InstallRecord[]} => {
  const all = readInstallRecords(env, context.projectRoot)
  // `id`, or its name before `@marketplace` (asked of every record: no split, no array made for each)
  const bare = !id.includes('@')
  const matching = (r: InstallRecord) => r.plugin === id || (bare && r.plugin.startsWith(id) && r.plugin[id.length] === '@')
  const mine = all.filter((r) => matching(r) && r.scope === context.scope && (!agents || agents.includes(r.target)))
  if (mine.length === 0) {
    const elsewhere = all.filter(matching)
    const near = closestNames(
      id,
      all.map((r) => r.plugin),
    )
    throw notFound('not-installed', `${id} is not installed in the ${context.scope} scope${agents ? ` for ${agents.join(', ')}` : ''}`, {
      suggestions: [
        ...(elsewhere.length > 0
          ? [`it is installed in the ${elsewhere[0]!.scope} scope for ${elsewhere.map((r) => r.target).join(', ')}: add --scope ${elsewhere[0]!.scope}`]
          : []),
        ...(near.length > 0 && elsewhere.length === 0 ? [`did you mean ${near.join(' or ')}?`] : []),
        'see what is installed: loadout list',
      ],
    })
  }
  return {mine, all}
}

const summarize = (record: InstallRecord) => ({
  target: record.target,
  files: record.files.length,
  configEntries: record.config.length,
  kept: [] as string[],
  drifted: [] as string[],
})

/**
 * A dependency is not taken from under a plugin that needs it (npm and pnpm keep a dependency while a
 * dependent stays): refused, naming the dependents, unless `--force`. Only when the plugin would leave
 * the scope entirely: uninstalling it from one agent of several leaves it for the dependent.
 */
const refuseNeeded = (plugin: string, scope: Scope, mine: readonly InstallRecord[], remaining: readonly InstallRecord[]): void => {
  if (remaining.some((r) => r.plugin === plugin && r.scope === scope)) return
  const needing = new Set(mine.flatMap((r) => r.dependencyOf ?? []))
  if (needing.size === 0) return
  const installed = new Set(remaining.filter((r) => r.scope === scope).map((r) => r.plugin))
  const dependents = [...needing].filter((d) => installed.has(d)).sort()
  if (dependents.length === 0) return
  throw conflict(
    'dependency-needed',
    `${plugin} is a dependency of ${dependents.join(', ')} (${scope} scope): uninstalling it would break ${dependents.length === 1 ? 'it' : 'them'}`,
    {
      suggestions: [
        `uninstall ${dependents.join(' and ')} first (the dependencies nothing else needs go with ${dependents.length === 1 ? 'it' : 'them'})`,
        'or pass --force to remove it anyway',
      ],
      details: {dependents},
    },
  )
}

/**
 * Removes exactly what was recorded: a file the user changed since is kept (and named) unless
 * `force`; then the records go. With `keepRecord` (disable) the records stay, marked disabled.
 */
export const removeInstalled = async (
  id: string,
  env: Environment,
  context: ScopeContext,
  /** `going`: plugins the same dry run removes before this one (a chain `prune` frees): they need nothing */
  options: {agents?: readonly string[]; force: boolean; dryRun: boolean; keepRecord?: boolean; going?: readonly string[]},
): Promise<RemovalResult> => {
  if (options.dryRun) {
    const {mine, all} = recordsFor(id, env, context, options.agents)
    const going = new Set(options.going ?? [])
    if (!options.force && !options.keepRecord)
      refuseNeeded(
        mine[0]!.plugin,
        context.scope,
        mine,
        all.filter((r) => !mine.includes(r) && !(r.scope === context.scope && going.has(r.plugin))),
      )
    return {plugin: mine[0]!.plugin, scope: context.scope, dryRun: true, targets: mine.map(summarize)}
  }
  return transaction(env, context.projectRoot, `${options.keepRecord ? 'disable' : 'uninstall'} ${id}`, (tx) => {
    // the records as they are now, under the lock: not as they were when the command started
    const {mine, all} = recordsFor(id, env, context, options.agents)
    const plugin = mine[0]!.plugin
    const targets: RemovalResult['targets'] = []
    const remaining = all.filter((r) => !mine.includes(r))
    if (!options.force && !options.keepRecord) refuseNeeded(plugin, context.scope, mine, remaining)
    // an uninstall (not a disable) with --force takes out an entry the user edited, as it does a changed file
    const owned = {scope: context.scope, takeEdited: options.force && !options.keepRecord}
    for (const record of mine) ownedEdits(record.config, owned)
    const keep = pathsRecordedBy(remaining, mine)
    for (const record of mine) {
      const report = removeApplied(record, {force: options.force, keep, owned}, tx)
      targets.push({...summarize(record), kept: report.kept, drifted: report.drifted})
    }
    const disabled = options.keepRecord ? mine.map((r): InstallRecord => ({...r, enabled: false, files: [], dirs: [], trees: [], config: []})) : []
    tx.writeRecords(context.scope, [...inheritCreated(mine, remaining), ...disabled])
    if (context.scope === 'project') pruneProjectCopies(context.projectRoot, plugin, [...remaining, ...disabled], tx)
    if (context.scope === 'project' && !options.keepRecord && !remaining.some((r) => r.plugin === plugin && r.scope === 'project')) {
      tx.touch(projectManifestFile(context.projectRoot))
      undeclarePlugin(context.projectRoot, plugin)
    }
    // the last install of the plugin gone (any scope): what was approved for it goes too, as a fresh install asks again
    if (!options.keepRecord && !remaining.some((r) => r.plugin === plugin)) {
      tx.touch(approvalsFile(env))
      dropApproval(env, plugin)
    }
    return {plugin, scope: context.scope, dryRun: false, targets}
  })
}
