import {existsSync, renameSync, rmSync} from 'node:fs'
import {basename, join} from 'node:path'
import {loadoutPaths, type Environment} from '../environment.js'
import {EXIT, LoadoutError, needsConsent, notFound, usageError} from '../errors.js'
import {copyTree} from '../fs/copy.js'
import {withLock} from '../fs/lock.js'
import {stateLockDir} from '../marketplace/state.js'
import type {PluginEntry} from '../marketplace/types.js'
import {readForInstall} from '../plugin/leniency.js'
import {inspectPlugin} from '../plugin/read.js'
import type {PluginModel} from '../plugin/types.js'
import type {Problem} from '../problems.js'
import type {ScopeContext} from '../scope.js'
import {ownershipFrom, readInstallRecords, writeInstallRecords, type InstallRecord} from '../state/records.js'
import type {AgentTarget} from '../targets/types.js'
import {applyOperation, removeApplied, rollBack, writeJournal, type Journal} from './apply.js'
import {consentSummary, isApproved, storeApproval, type ConsentSummary} from './consent.js'
import {fetchPlugin, type FetchedPlugin} from './fetch-plugin.js'
import {journalFile, recoverJournal, type Recovery} from './journal.js'
import {planInstall, type TargetPlan} from './plan.js'
import {declarePlugin} from './project.js'
import {DIRECT, pluginDataDirs, resolvePluginSpec, type ResolvedPlugin} from './resolve.js'
import {checkRecord} from './verify.js'

export interface InstallOptions {
  env: Environment
  context: ScopeContext
  targets: readonly AgentTarget[]
  dryRun: boolean
  force: boolean
  prefix: boolean
  offline: boolean
  yes: boolean
  /** install only these skills of the plugin */
  skills?: readonly string[]
  /** asks the person on a terminal; absent when there is none */
  confirm?: (summary: ConsentSummary, id: string) => Promise<boolean>
  onProgress?: (message: string) => void
}

export interface InstallResult {
  status: 'installed' | 'already-installed' | 'planned'
  plugin: string
  version?: string
  source: string
  commit?: string
  integrity: string
  scope: string
  dryRun: boolean
  plans: TargetPlan[]
  consent: {items: ConsentSummary['items']; fingerprint: string; approvedBy: 'not-needed' | 'stored' | 'yes' | 'prompt' | 'pending'}
  problems: Problem[]
  recovered?: Recovery
}

const pickSkills = (model: PluginModel, names: readonly string[]): PluginModel => {
  for (const name of names) {
    if (!model.skills.some((s) => s.name === name)) {
      throw notFound('skill-not-in-plugin', `plugin "${model.name}" has no skill "${name}" (it has ${model.skills.map((s) => s.name).join(', ') || 'none'})`)
    }
  }
  return {...model, skills: model.skills.filter((s) => names.includes(s.name)), subagents: [], mcpServers: [], hooks: [], commands: [], tools: []}
}

/** The copy of the plugin that `${CLAUDE_PLUGIN_ROOT}` points at: one per plugin and revision, made once. */
const installedRoot = (env: Environment, id: string, fetched: FetchedPlugin): {root: string; data: string} => {
  const revision = (fetched.commit ?? fetched.integrity.replace(/^sha256-/, '')).slice(0, 16)
  const dirs = pluginDataDirs(loadoutPaths(env).data, id, revision)
  return dirs
}

const materialize = (from: string, to: string): void => {
  if (existsSync(to)) return
  const staging = `${to}.stage-${process.pid}`
  rmSync(staging, {recursive: true, force: true})
  try {
    copyTree(from, staging)
    renameSync(staging, to)
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    if (!existsSync(to)) throw error
  }
}

export interface Prepared {
  resolved: ResolvedPlugin
  fetched: FetchedPlugin
  model: PluginModel
  id: string
}

/**
 * Reads a fetched plugin. A plugin fetched straight from a repository or an archive that names itself
 * nowhere would take the name of its cache folder (a commit or a digest): it takes the source's name.
 */
export const readFetched = (resolved: ResolvedPlugin, fetched: FetchedPlugin, env: Environment): PluginModel => {
  if (resolved.entry || resolved.marketplace !== DIRECT || !resolved.name || inspectPlugin(fetched.root, {home: env.home}).model.name !== basename(fetched.root)) {
    return readForInstall(fetched.root, {...(resolved.entry ? {entry: resolved.entry} : {}), home: env.home})
  }
  const entry: PluginEntry = {name: resolved.name, source: {kind: 'local', path: '.'}, tags: [], keywords: [], raw: {}, problems: []}
  return readForInstall(fetched.root, {entry, home: env.home})
}

/** Resolve, fetch and read: everything up to the plan, nothing written to any agent. */
export const preparePlugin = async (spec: string, options: Pick<InstallOptions, 'env' | 'context' | 'offline' | 'skills' | 'onProgress'>): Promise<Prepared> => {
  const resolved = resolvePluginSpec(spec, options.env, options.context.projectRoot)
  options.onProgress?.(`fetching ${resolved.fetch.label}`)
  const fetched = await fetchPlugin(resolved.fetch, options.env, options.offline)
  return prepareFetched(resolved, fetched, options)
}

/** Reads and checks a fetched plugin (only the skills asked for, when some are). */
export const prepareFetched = (resolved: ResolvedPlugin, fetched: FetchedPlugin, options: Pick<InstallOptions, 'env' | 'skills'>): Prepared => {
  let model = readFetched(resolved, fetched, options.env)
  if (options.skills && options.skills.length > 0) model = pickSkills(model, options.skills)
  const id = resolved.marketplace === DIRECT ? `${model.name}@${DIRECT}` : resolved.id
  return {resolved, fetched, model, id}
}

/** The records of `id` in the scope for the chosen targets: what an install replaces. */
export const existingRecords = (all: readonly InstallRecord[], id: string, options: Pick<InstallOptions, 'context' | 'targets'>): InstallRecord[] =>
  all.filter((r) => r.plugin === id && r.scope === options.context.scope && options.targets.some((t) => t.id === r.target))

/**
 * Whether this content is installed, enabled and whole in every chosen target. A lock committed to a
 * project says what was installed on someone's machine: in a fresh clone its files and the plugin's
 * installed copy are missing, so it is installed again.
 */
export const isCurrent = (existing: readonly InstallRecord[], targets: readonly AgentTarget[], integrity: string): boolean =>
  existing.length === targets.length &&
  existing.every((r) => r.integrity === integrity && r.enabled && (!r.pluginRoot || existsSync(r.pluginRoot)) && checkRecord(r).missing.length === 0)

/** An agent that installs packages itself (Lexora) gets a package, not folders: refused, pointing at `plugin pack`. */
const refusePackOnly = (targets: readonly AgentTarget[]): void => {
  const packOnly = targets.filter((t) => t.installs === false)
  if (packOnly.length === 0) return
  throw usageError('agent-installs-packages', `${packOnly.map((t) => t.name).join(', ')} installs packages itself: loadout writes no folder for it`, {
    suggestions: [`write the package archive instead: loadout plugin pack <plugin folder> --format ${packOnly[0]!.id}`, 'then install the archive with the host\'s own installer'],
  })
}

/** Installs one prepared plugin into the chosen targets, under the lock, undoing everything on failure. */
export const installPrepared = async (prepared: Prepared, options: InstallOptions): Promise<InstallResult> => {
  refusePackOnly(options.targets)
  const {env, context} = options
  const {resolved, fetched, model, id} = prepared
  const all = readInstallRecords(env, context.projectRoot)
  const existing = existingRecords(all, id, options)
  const base = {
    plugin: id,
    ...(resolved.version ?? model.version ? {version: resolved.version ?? model.version} : {}),
    source: resolved.fetch.label,
    ...(fetched.commit ? {commit: fetched.commit} : {}),
    integrity: fetched.integrity,
    scope: context.scope,
    dryRun: options.dryRun,
    problems: model.problems,
  }
  const summary = consentSummary(id, model)
  if (isCurrent(existing, options.targets, fetched.integrity) && !options.force) {
    return {...base, status: 'already-installed', plans: [], consent: {items: summary.items, fingerprint: summary.fingerprint, approvedBy: 'not-needed'}}
  }

  const dirs = installedRoot(env, id, fetched)
  const others = all.filter((r) => !existing.includes(r))
  const plans = planInstall({
    id,
    model,
    targets: options.targets,
    env,
    context,
    ownership: ownershipFrom(others),
    replacing: existing,
    prefix: options.prefix,
    vars: {pluginRoot: dirs.root, pluginData: dirs.data},
  })
  let approvedBy: InstallResult['consent']['approvedBy'] = 'not-needed'
  if (summary.items.length > 0) {
    if (isApproved(env, id, summary.fingerprint)) approvedBy = 'stored'
    else if (options.dryRun) approvedBy = 'pending'
    else if (options.yes) approvedBy = 'yes'
    else if (options.confirm) {
      if (!(await options.confirm(summary, id))) throw new LoadoutError('consent-refused', EXIT.needsConsent, `not installed: the executable parts of ${id} were not approved`)
      approvedBy = 'prompt'
    } else {
      throw needsConsent('consent-needed', `${id} runs code on this machine (${summary.items.length} hook(s), MCP server(s) or tool(s)) and needs your approval`, {
        suggestions: ['run it on a terminal to review and approve, or pass --yes to approve', `see what it runs: loadout install ${id} --dry-run`],
        details: {items: summary.items},
      })
    }
  }
  const consent = {items: summary.items, fingerprint: summary.fingerprint, approvedBy}
  if (options.dryRun) return {...base, status: 'planned', plans, consent}

  const recordBase = {
    plugin: id,
    scope: context.scope,
    ...(base.version ? {version: base.version} : {}),
    source: base.source,
    ...(fetched.commit ? {commit: fetched.commit} : {}),
    ...(fetched.archiveSha256 ? {archiveSha256: fetched.archiveSha256} : {}),
    integrity: fetched.integrity,
    pluginRoot: dirs.root,
    ...(summary.items.length > 0 ? {consent: summary.fingerprint} : {}),
  }
  const recovered = await withLock(stateLockDir(env), async () => {
    const recovery = recoverJournal(env, context.projectRoot)
    materialize(model.root, dirs.root)
    const journal: Journal = {plugin: id, scope: context.scope, targets: options.targets.map((t) => t.id), steps: []}
    const file = journalFile(env)
    try {
      for (const old of existing) removeApplied(old, {force: true, keep: keptBy(others)})
      writeJournal(file, journal)
      const records = applyPlans(plans, recordBase, journal, file)
      writeInstallRecords(env, context.projectRoot, context.scope, [...others, ...records])
      if (context.scope === 'project') declarePlugin(context.projectRoot, id, base.version, resolved.fetch.label, resolved.marketplace === DIRECT)
      if (summary.items.length > 0) storeApproval(env, id, summary.fingerprint)
    } catch (error) {
      rollBack(journal)
      rmSync(file, {force: true})
      if (existing.length > 0) {
        const restored = restoreReplaced(existing, others, options)
        writeInstallRecords(env, context.projectRoot, context.scope, [...others, ...restored])
      }
      throw error
    }
    rmSync(file, {force: true})
    return recovery
  })
  return {...base, status: 'installed', plans, consent, ...(recovered ? {recovered} : {})}
}

type RecordBase = Omit<InstallRecord, 'target' | 'enabled' | 'components' | 'skipped' | 'files' | 'dirs' | 'config'>

/** Applies every planned operation, journalling each before and after, and returns the records. */
const applyPlans = (plans: readonly TargetPlan[], recordBase: RecordBase, journal: Journal, file: string): InstallRecord[] =>
  plans.map((plan) => {
    const record: InstallRecord = {
      ...recordBase,
      target: plan.target,
      enabled: true,
      components: [...new Set(plan.operations.map((o) => o.component))],
      skipped: plan.skipped,
      files: [],
      dirs: [],
      config: [],
    }
    for (const op of plan.operations) {
      const step: Journal['steps'][number] = {op}
      journal.steps.push(step)
      writeJournal(file, journal)
      const applied = applyOperation(op)
      step.applied = applied
      writeJournal(file, journal)
      record.files.push(...applied.files)
      record.dirs.push(...applied.dirs)
      if (applied.trees && applied.trees.length > 0) record.trees = [...(record.trees ?? []), ...applied.trees]
      record.config.push(...applied.config)
    }
    return record
  })

/**
 * A reinstall or update that failed after taking the old version out puts the old version back,
 * from its installed copy, so the agents' folders are as they were before the run.
 */
const restoreReplaced = (replaced: readonly InstallRecord[], others: readonly InstallRecord[], options: InstallOptions): InstallRecord[] => {
  const first = replaced[0]!
  if (!first.pluginRoot || !existsSync(first.pluginRoot)) return []
  const model = readForInstall(first.pluginRoot, {home: options.env.home})
  const targets = options.targets.filter((t) => replaced.some((r) => r.target === t.id))
  const plans = planInstall({
    id: first.plugin,
    model,
    targets,
    env: options.env,
    context: options.context,
    ownership: ownershipFrom(others),
    replacing: [],
    prefix: true,
    vars: {pluginRoot: first.pluginRoot, pluginData: pluginDataDirs(loadoutPaths(options.env).data, first.plugin, 'x').data},
  })
  const {target: _t, enabled: _e, components: _c, skipped: _s, files: _f, dirs: _d, config: _g, trees: _r, ...recordBase} = first
  const journal: Journal = {plugin: first.plugin, scope: first.scope, targets: targets.map((t) => t.id), steps: []}
  const file = journalFile(options.env)
  try {
    return applyPlans(plans, recordBase, journal, file)
  } catch {
    rollBack(journal)
    return []
  } finally {
    rmSync(file, {force: true})
  }
}

/** Paths other installs still record, which removing this one must leave alone. */
export const keptBy = (records: readonly InstallRecord[]): Set<string> => new Set(records.flatMap((r) => [...r.files.map((f) => f.path), ...r.dirs]))

export const installPlugin = async (spec: string, options: InstallOptions): Promise<InstallResult> => {
  refusePackOnly(options.targets)
  return installPrepared(await preparePlugin(spec, options), options)
}

export const dataDirOf = (env: Environment): string => join(loadoutPaths(env).data)
