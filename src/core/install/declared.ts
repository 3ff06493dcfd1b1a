import {EXIT, LoadoutError, needsConsent} from '../errors.js'
import {prepareDeclaredServer} from '../mcp/from-registry.js'
import {isMcpId} from '../mcp/spec.js'
import {readInstallRecords} from '../state/records.js'
import {loadTargets, pickTargets} from '../targets/registry.js'
import type {AgentTarget} from '../targets/types.js'
import {consentSummary, isApproved} from './consent.js'
import {fetchPlugin} from './fetch-plugin.js'
import {existingRecords, installPrepared, isCurrent, prepareFetched, preparePlugin, type InstallOptions, type InstallResult, type Prepared} from './install.js'
import {declaredPlugins} from './project.js'
import type {PluginFetchSpec} from './resolve.js'

export interface DeclaredInstall {
  frozen: boolean
  results: InstallResult[]
}

export interface DeclaredOptions extends InstallOptions {
  frozen: boolean
  /**
   * When the user named no agents (`targets` is then unused): the agents to write a plugin the lock
   * does not record yet into. A locked plugin goes to the agents its lock records.
   */
  chooseTargets?: () => Promise<readonly AgentTarget[]>
}

/**
 * `loadout install` in a project: every plugin loadout.json declares, at the commit loadout.lock
 * resolved it to, into the agents the lock records (unless agents are named). With `frozen`, a
 * plugin missing from the lock or resolving to other content fails.
 * Consent is asked as for any install: the project's files cannot approve themselves.
 */
export const installDeclared = async (options: DeclaredOptions): Promise<DeclaredInstall> => {
  const {env, context} = options
  const declared = declaredPlugins(context.projectRoot)
  const locked = readInstallRecords(env, context.projectRoot).filter((r) => r.scope === 'project')
  const ids = Object.keys(declared).sort((a, b) => a.localeCompare(b))
  if (options.frozen) {
    const missing = ids.filter((id) => !locked.some((r) => r.plugin === id))
    if (missing.length > 0) {
      throw new LoadoutError('lock-outdated', EXIT.integrity, `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} declared in loadout.json but not in loadout.lock`, {
        suggestions: ['run loadout install without --frozen and commit loadout.lock'],
      })
    }
  }
  // Everything is fetched and checked before anything is written: a stale lock or a missing approval
  // fails the whole run, not half of it.
  const all = readInstallRecords(env, context.projectRoot)
  let chosen: readonly AgentTarget[] | undefined
  const ready: Array<{prepared: Prepared; targets: readonly AgentTarget[]}> = []
  for (const id of ids) {
    const lock = locked.find((r) => r.plugin === id)
    let prepared = isMcpId(id) ? await prepareDeclaredServer(id, declared[id]!, env, context.projectRoot) : await preparePlugin(declared[id]!.source ?? id, options)
    if (lock?.commit && prepared.fetched.commit !== lock.commit) prepared = await preparePluginAt(prepared, lock.commit, options)
    if (options.frozen && lock && lock.integrity !== prepared.fetched.integrity) {
      throw new LoadoutError('lock-outdated', EXIT.integrity, `${id} resolves to different content than loadout.lock records (${lock.integrity.slice(0, 19)}… vs ${prepared.fetched.integrity.slice(0, 19)}…)`, {
        suggestions: ['run loadout install without --frozen to update the lock'],
      })
    }
    let targets = options.targets
    if (options.chooseTargets) {
      const recorded = locked.filter((r) => r.plugin === id).map((r) => r.target)
      targets = recorded.length > 0 ? pickTargets(recorded, await loadTargets()) : (chosen ??= await options.chooseTargets())
    }
    ready.push({prepared, targets})
  }
  if (!options.yes && !options.confirm && !options.dryRun) {
    const unapproved = ready
      .filter(({prepared, targets}) => options.force || !isCurrent(existingRecords(all, prepared.id, {context, targets}), targets, prepared.fetched.integrity))
      .map(({prepared}) => prepared)
      .filter((p) => {
        const summary = consentSummary(p.id, p.model)
        return summary.items.length > 0 && !isApproved(env, p.id, summary.fingerprint)
      })
    if (unapproved.length > 0) {
      const names = unapproved.map((p) => p.id).join(', ')
      throw needsConsent('consent-needed', `${names} ${unapproved.length === 1 ? 'runs' : 'run'} code on this machine (hooks, MCP servers or tools) and needs your approval; nothing was installed`, {
        suggestions: ['run it on a terminal to review and approve, or pass --yes to approve', 'a project cannot approve its own plugins: each person approves them once'],
        details: {items: unapproved.flatMap((p) => consentSummary(p.id, p.model).items)},
      })
    }
  }
  const results: InstallResult[] = []
  for (const {prepared, targets} of ready) results.push(await installPrepared(prepared, {...options, targets}))
  return {frozen: options.frozen, results}
}

/** The same plugin fetched at the commit the lock pinned: its git source, or its git marketplace's folder. */
const preparePluginAt = async (prepared: Prepared, commit: string, options: InstallOptions): Promise<Prepared> => {
  const current = prepared.resolved.fetch
  let fetch: PluginFetchSpec
  if (current.kind === 'git') fetch = {...current, sha: commit}
  else if (current.kind === 'folder' && current.git) fetch = {kind: 'git', url: current.git.url, sha: commit, ...(current.git.path ? {path: current.git.path} : {}), label: current.label}
  else return prepared
  const resolved = {...prepared.resolved, fetch}
  return prepareFetched(resolved, await fetchPlugin(fetch, options.env, options.offline), options)
}
