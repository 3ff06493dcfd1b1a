import {existsSync} from 'node:fs'
import {basename} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, EXIT, LoadoutError, needsConsent, notFound, usageError, validationFailed} from '../../model/errors.js'
import {projectManifestFile} from '../../kernel/state/marketplaces.js'
import {installView, readForInstall} from '../../kernel/plugin/leniency.js'
import {namingEntry} from '../../kernel/plugin/manifests.js'
import {inspectPlugin} from '../../kernel/plugin/read.js'
import {withTreeReadOnce} from '../../kernel/fs/contain.js'
import type {DisabledParts, PluginModel} from '../../model/plugin.js'
import {admitPluginModel, admitPluginSource} from '../../kernel/policy/gate.js'
import type {Problem} from '../../model/problems.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {pathsRecordedBy, ownershipFrom, readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {applyOperations, flushConfigs, memberRun, removeApplied, type PendingConfigs} from './apply.js'
import {approvalsFile, consentFromPlans, consentSummary, isApproved, storeApproval, type ConsentSummary} from './consent.js'
import {fetchPlugin, type FetchedPlugin} from './fetch-plugin.js'
import type {NpmProvenance} from '../../kernel/sources/npm.js'
import {checkPluginProvenance, checkPluginSignature} from './signature.js'
import {assertLockUnchanged, unchangedFromLockfile} from './frozen.js'
import {ownedEdits} from './owned-edits.js'
import {inheritCreated} from './config-heirs.js'
import {chooseForm, recordedForm, type FormChoice} from './form.js'
import {holdsSharedProjectName, marketplaceNameFor, nameToRecord} from './native-name.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import {planInstall, type Operation, type PlanInput, type SharedEntries, type TargetPlan} from './plan.js'
import {readPluginExtras, type Dependency} from '../../kernel/resolve/manifest.js'
import {shareDestinations} from './shared-dests.js'
import {declaredPlugins, declarePlugin, undeclarePlugin} from './project.js'
import {commonParts, normalParts, noParts, readParts, withoutParts} from './parts.js'
import {placeProjectCopy, pruneProjectCopies} from './project-copy.js'
import {installedDirs, pluginVarsFor} from './project-root.js'
import {transaction, type Recovery, type Transaction} from '../../kernel/state/transaction.js'
import {DIRECT, type ResolvedPlugin} from '../../kernel/resolve/resolve.js'
import {checkRecord} from './verify.js'
import {journalCopy, materializeCopy, pluginFiles, type PluginFiles} from './plugin-copy.js'
import {copyMade} from './copies-made.js'
import {dependencyFields, type DependencyMark} from '../../kernel/state/mark.js'
import {releaseTooYoung, resolveMature} from '../../kernel/policy/release-age.js'
import {ensureUserConfig, type AskUserConfig} from '../../kernel/user-config/ensure.js'

export interface InstallOptions {
  env: Environment
  context: ScopeContext
  targets: readonly AgentTarget[]
  dryRun: boolean
  force: boolean
  prefix: boolean
  /**
   * `native`: as the agent's own plugin where loadout can (Claude Code: a marketplace it owns), the
   * default; `loose`: loose parts. Absent: what each agent's record says, else native (form.ts).
   */
  form?: FormChoice
  offline: boolean
  yes: boolean
  /** project scope: loadout.lock and loadout.json must not change (`install --frozen`) */
  frozen?: boolean
  /** install only these skills of the plugin */
  skills?: readonly string[]
  /** install even when text the agents read hides characters (tags, bidi controls, zero-width) */
  allowHiddenText?: boolean
  /** asks the person on a terminal; absent when there is none */
  confirm?: (summary: ConsentSummary, id: string) => Promise<boolean>
  onProgress?: (message: string) => void
  /** installing this plugin because another one depends on it */
  dependency?: DependencyMark
  /** the catalog renamed the installed plugin to this one: its records are replaced too */
  renamedFrom?: string
  /** move to an older version or a commit that does not descend from the installed one despite policy `noDowngrade` */
  allowDowngrade?: boolean
  /** asks on a terminal for userConfig values not set yet; absent: missing ones fail the install */
  askUserConfig?: AskUserConfig
  /** the parts to leave out in every chosen agent (`disable --skill`); absent: each agent keeps what its record, or loadout.json, turned off */
  disabledParts?: DisabledParts
}

export interface InstallResult {
  status: 'installed' | 'already-installed' | 'planned'
  plugin: string
  version?: string
  source: string
  commit?: string
  /** the fingerprint of the key that signed `commit`, when its marketplace declares keys */
  signer?: string
  /** an npm package: what the registry's signing keys proved about it */
  provenance?: NpmProvenance
  integrity: string
  scope: string
  dryRun: boolean
  plans: TargetPlan[]
  consent: {
    items: ConsentSummary['items']
    files?: ConsentSummary['files']
    fingerprint: string
    approvedBy: 'not-needed' | 'stored' | 'yes' | 'prompt' | 'pending'
  }
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

export interface Prepared {
  resolved: ResolvedPlugin
  fetched: FetchedPlugin
  model: PluginModel
  id: string
  /** the plugin's files as read: what consent shows and the installed copy must match */
  files: PluginFiles
  /**
   * What a read of the installed copy gives (the tree as read, before install leaves out the skills
   * no agent loads), when the marketplace entry changed nothing of it: the budget counts a copy this
   * run made from it (kernel/plugin/read.ts `shapedByEntry`; ops/install/copies-made.ts).
   */
  copyView?: PluginModel
}

/**
 * Reads a fetched plugin. A plugin fetched straight from a repository or an archive that names itself
 * nowhere would take the name of its cache folder (a commit or a digest): it takes the source's name.
 */
const readFetched = (resolved: ResolvedPlugin, fetched: FetchedPlugin, env: Environment): {model: PluginModel; copyView?: PluginModel} => {
  // read once; read again only when the plugin took its cache folder's name
  const inspected = inspectPlugin(fetched.root, {...(resolved.entry ? {entry: resolved.entry} : {}), home: env.home})
  if (resolved.entry || resolved.marketplace !== DIRECT || !resolved.name || inspected.model.name !== basename(fetched.root))
    return {model: installView(inspected), ...(inspected.shapedByEntry ? {} : {copyView: inspected.model})}
  return {model: readForInstall(fetched.root, {entry: namingEntry(resolved.name), home: env.home})}
}

/**
 * `spec` resolved under the policy's `minimumReleaseAge`: a release too young gives way to the newest
 * tagged one old enough; with none, the install is refused (status 11).
 */
export const resolveForInstall = async (spec: string, env: Environment, projectRoot: string): Promise<{resolved: ResolvedPlugin; range?: string}> => {
  const choice = await resolveMature(spec, env, projectRoot)
  if (!choice.resolved) throw releaseTooYoung(spec, choice.held!)
  return {resolved: choice.resolved, ...(choice.range ? {range: choice.range} : {})}
}

/** Resolve, fetch and read: everything up to the plan, nothing written to any agent. */
export const preparePlugin = async (
  spec: string,
  options: Pick<InstallOptions, 'env' | 'context' | 'offline' | 'skills' | 'allowHiddenText' | 'onProgress'>,
): Promise<Prepared> => prepareResolved((await resolveForInstall(spec, options.env, options.context.projectRoot)).resolved, options)

/**
 * Fetches a plugin to install. A plugin of a marketplace installed for the user keeps its copy under
 * loadout's data folder by revision: when the copy of the revision the fetch resolves to is still as it
 * was made, it is read instead of the cached tree (plugin-copy.ts `intactCopy`).
 */
export const fetchForInstall = (resolved: ResolvedPlugin, options: Pick<InstallOptions, 'env' | 'context' | 'offline'>): Promise<FetchedPlugin> =>
  fetchPlugin(
    resolved.fetch,
    options.env,
    options.offline,
    options.context.scope === 'user' && resolved.marketplace !== DIRECT
      ? {keptCopyAt: (commit) => installedDirs(options.env, options.context, resolved.id, {commit, integrity: ''}).root}
      : {},
  )

/** Fetch and read what is resolved already. */
export const prepareResolved = async (
  resolved: ResolvedPlugin,
  options: Pick<InstallOptions, 'env' | 'context' | 'offline' | 'skills' | 'allowHiddenText' | 'onProgress'>,
): Promise<Prepared> => {
  admitPluginSource(resolved, options.env, options.context.projectRoot)
  options.onProgress?.(`fetching ${resolved.fetch.label}`)
  const fetched = await fetchForInstall(resolved, options)
  return prepareFetched(resolved, fetched, options)
}

/** Reads and checks a fetched plugin (only the skills asked for, when some are). */
export const prepareFetched = async (
  resolved: ResolvedPlugin,
  fetched: FetchedPlugin,
  options: Pick<InstallOptions, 'env' | 'context' | 'skills' | 'allowHiddenText' | 'offline'>,
): Promise<Prepared> => {
  checkPluginProvenance(resolved, fetched, options.env, options.context.projectRoot)
  const signer = await checkPluginSignature(resolved, fetched, options.env, options.context.projectRoot, options.offline)
  if (signer) fetched = {...fetched, signer}
  // one read of the tree: the hidden-text scan walks the folders the reading listed
  const {read, model, id} = withTreeReadOnce(() => {
    const read = readFetched(resolved, fetched, options.env)
    const model = options.skills && options.skills.length > 0 ? pickSkills(read.model, options.skills) : read.model
    const id = resolved.marketplace === DIRECT ? `${model.name}@${DIRECT}` : resolved.id
    admitPluginModel(model, id, {env: options.env, projectRoot: options.context.projectRoot, ...(options.allowHiddenText ? {allowHiddenText: true} : {})})
    return {read, model, id}
  })
  // the fetch hashed the same folder file by file already, unless the plugin is a folder inside it
  const files = fetched.files && model.root === fetched.root ? fetched.files : await pluginFiles(model.root)
  return {resolved, fetched, model, id, files, ...(read.copyView && read.copyView.root === model.root ? {copyView: read.copyView} : {})}
}

/** The records of `id` in the scope for the chosen targets: what an install replaces. */
export const existingRecords = (
  all: readonly InstallRecord[],
  id: string,
  options: Pick<InstallOptions, 'context' | 'targets' | 'renamedFrom'>,
): InstallRecord[] =>
  all.filter(
    (r) => (r.plugin === id || r.plugin === options.renamedFrom) && r.scope === options.context.scope && options.targets.some((t) => t.id === r.target),
  )

/** The record with the marketplace name its native form is registered under, where a project's own (native-name.ts). */
const withMarketplace = (record: InstallRecord, id: string, name: string | undefined): InstallRecord => {
  const kept = nameToRecord(id, record, name)
  return kept ? {...record, marketplace: kept} : record
}

/** An explicit --native or --loose that differs from the form an agent's record holds: the plugin is reinstalled in the new form. */
const formSwitched = (existing: readonly InstallRecord[], form: FormChoice | undefined): boolean =>
  form !== undefined && existing.some((r) => r.form !== undefined && recordedForm(r) !== form)

/**
 * Whether this content is installed, enabled and whole in every chosen target, in the form asked for. A lock committed to a
 * project says what was installed on someone's machine: in a fresh clone its files and the plugin's
 * installed copy are missing, so it is installed again.
 */
export const isCurrent = (existing: readonly InstallRecord[], targets: readonly AgentTarget[], integrity: string, form?: FormChoice, frozen = false): boolean =>
  existing.length === targets.length &&
  !formSwitched(existing, form) &&
  (frozen || !holdsSharedProjectName(existing)) &&
  existing.every((r) => r.integrity === integrity && r.enabled && (!r.pluginRoot || existsSync(r.pluginRoot)) && checkRecord(r).missing.length === 0)

/** An agent that installs packages itself (Lexora) gets a package, not folders: refused, pointing at `plugin pack`. */
export const refusePackOnly = (targets: readonly AgentTarget[]): void => {
  const packOnly = targets.filter((t) => t.installs === false)
  if (packOnly.length === 0) return
  throw usageError('agent-installs-packages', `${packOnly.map((t) => t.name).join(', ')} installs packages itself: loadout writes no folder for it`, {
    suggestions: [
      `write the package archive instead: loadout plugin pack <plugin folder> --format ${packOnly[0]!.id}`,
      "then install the archive with the host's own installer",
    ],
  })
}

/** What the check before the lock decided for one plugin: an answer already, or an install to apply. */
export type Preflight = {done: InstallResult} | {pending: PendingInstall}

export interface PendingInstall {
  prepared: Prepared
  options: InstallOptions
  base: Omit<InstallResult, 'status' | 'plans' | 'consent'>
  summary: ConsentSummary
  consent: InstallResult['consent']
  dirs: ReturnType<typeof installedDirs>
  userConfig: Awaited<ReturnType<typeof ensureUserConfig>>
  /** the parts each chosen agent leaves out, by agent id */
  disabled: Record<string, DisabledParts>
  /** the plan consent was built from, and the records it was made on */
  planned: Planned & {on: readonly InstallRecord[]}
}

/**
 * The parts each chosen agent leaves out: the ones asked for now, else what its record turned off (an
 * update, a reinstall, a teammate's clone reading loadout.lock), else what loadout.json declares off.
 */
export const disabledPartsFor = (
  all: readonly InstallRecord[],
  id: string,
  options: Pick<InstallOptions, 'context' | 'targets' | 'renamedFrom' | 'disabledParts'>,
): Record<string, DisabledParts> => {
  const existing = existingRecords(all, id, options)
  const declared = options.context.scope === 'project' ? readParts(declaredPlugins(options.context.projectRoot)[id]?.disabled) : {}
  return Object.fromEntries(
    options.targets.map((t) => {
      if (options.disabledParts) return [t.id, normalParts(options.disabledParts)]
      const record = existing.find((r) => r.target === t.id)
      return [t.id, record ? readParts(record.disabledParts) : declared]
    }),
  )
}

/** What planning an install needs beyond the prepared plugin: its folders, userConfig values and the parts each agent leaves out. */
type PlanBasis = Pick<PendingInstall, 'prepared' | 'options' | 'dirs' | 'userConfig' | 'disabled'>

const consentOf = (basis: PlanBasis, plans: readonly TargetPlan[]): ConsentSummary =>
  consentFromPlans(basis.prepared.id, basis.prepared.model, basis.prepared.files, plans, basis.options.targets)

/**
 * What consent shows for installing `prepared` now: built from the per-agent plans, so exactly what is
 * written and run. userConfig values not set yet are not asked for here.
 */
export const consentFor = async (
  prepared: Prepared,
  options: Pick<InstallOptions, 'env' | 'context' | 'targets' | 'prefix' | 'form' | 'skills' | 'renamedFrom' | 'disabledParts'>,
  all: readonly InstallRecord[],
): Promise<ConsentSummary> => {
  const {env, context} = options
  const basis: PlanBasis = {
    prepared,
    options: options as InstallOptions,
    dirs: installedDirs(env, context, prepared.id, prepared.fetched),
    userConfig: await ensureUserConfig(env, prepared.id, prepared.fetched.root, prepared.resolved.entry, {dryRun: true}),
    disabled: disabledPartsFor(all, prepared.id, options),
  }
  return consentOf(basis, planFor(basis, all).plans)
}

/**
 * Everything an install decides before the lock: whether it is installed already, the approval
 * (asked now, before anything is written), userConfig values, and a dry run's plan. Judged again
 * under the lock by `applyInTransaction`.
 */
export const preflightInstall = async (prepared: Prepared, options: InstallOptions, all: readonly InstallRecord[]): Promise<Preflight> => {
  const {env, context} = options
  const {resolved, fetched, model, id} = prepared
  const existing = existingRecords(all, id, options)
  const version = resolved.version ?? fetched.artifact?.version ?? model.version
  const base = {
    plugin: id,
    ...(version ? {version} : {}),
    source: resolved.fetch.label,
    ...(fetched.commit ? {commit: fetched.commit} : {}),
    ...(fetched.signer ? {signer: fetched.signer.fingerprint} : {}),
    ...(fetched.provenance ? {provenance: fetched.provenance} : {}),
    integrity: fetched.integrity,
    scope: context.scope,
    dryRun: options.dryRun,
    problems: model.problems,
  }
  const disabled = disabledPartsFor(all, id, options)
  const dirs = installedDirs(env, context, id, fetched)
  // What runs counts as installed only once this machine's user approved it: files a clone brings along never
  // do (a lock's records carry fingerprints this user may never have approved)
  const approvedAll = existing.every((r) => r.consent === undefined || isApproved(env, id, r.consent))
  if (isCurrent(existing, options.targets, fetched.integrity, options.form, options.frozen) && !options.force && !options.renamedFrom && approvedAll) {
    // shown as it was written: any name --prefix took then is taken again, and a plan that no longer fits shows the plugin as read
    const summary = await consentFor(prepared, {...options, prefix: true}, all).catch(() => consentSummary(id, model, prepared.files))
    return {
      done: {
        ...base,
        status: 'already-installed',
        plans: [],
        consent: {items: summary.items, files: summary.files, fingerprint: summary.fingerprint, approvedBy: 'not-needed'},
      },
    }
  }
  const userConfig = await ensureUserConfig(env, id, fetched.root, resolved.entry, {
    dryRun: options.dryRun,
    ...(options.askUserConfig ? {ask: options.askUserConfig} : {}),
  })
  const basis: PlanBasis = {prepared, options, dirs, userConfig, disabled}
  const planned = planFor(basis, all)
  const {plans} = planned
  const summary = consentOf(basis, plans)
  let approvedBy: InstallResult['consent']['approvedBy'] = 'not-needed'
  if (summary.items.length > 0) {
    if (isApproved(env, id, summary.fingerprint)) approvedBy = 'stored'
    else if (options.dryRun) approvedBy = 'pending'
    else if (options.yes) approvedBy = 'yes'
    else if (options.confirm) {
      if (!(await options.confirm(summary, id)))
        throw new LoadoutError('consent-refused', EXIT.needsConsent, `not installed: the executable parts of ${id} were not approved`)
      approvedBy = 'prompt'
    } else {
      throw needsConsent(
        'consent-needed',
        `${id} runs code on this machine (${summary.items.length} hook(s), MCP server(s) or tool(s)) and needs your approval`,
        {
          suggestions: ['run it on a terminal to review and approve, or pass --yes to approve', `see what it runs: loadout install ${id} --dry-run`],
          details: {items: summary.items},
        },
      )
    }
  }
  const consent = {items: summary.items, files: summary.files, fingerprint: summary.fingerprint, approvedBy}
  const pending: PendingInstall = {prepared, options, base, summary, consent, dirs, userConfig, disabled, planned: {...planned, on: all}}
  if (options.dryRun) {
    refuseNothingWritten(id, plans, options, model.problems)
    return {done: {...base, status: 'planned', plans, consent}}
  }
  return {pending}
}

/** The form asked for: `--skill` picks skills out of the plugin, which only loose parts can do. */
const askedForm = (options: InstallOptions): FormChoice | undefined => options.form ?? (options.skills ? 'loose' : undefined)

interface Planned {
  existing: InstallRecord[]
  others: InstallRecord[]
  plans: TargetPlan[]
  marketplace: PlanInput['marketplace']
}

const planFor = (p: PlanBasis, all: readonly InstallRecord[]): Planned => {
  const {options, prepared, dirs, userConfig} = p
  const existing = existingRecords(all, prepared.id, options)
  const others = all.filter((r) => !existing.includes(r))
  const siblings = others.filter((r) => r.plugin === prepared.id && r.scope === options.context.scope)
  // loadout.json's word, for a plugin the lock does not record yet (a record's own form comes first)
  const declaredForm = options.context.scope === 'project' && declaredPlugins(options.context.projectRoot)[prepared.id]?.form === 'loose' ? 'loose' : undefined
  const input: PlanInput = {
    ...(userConfig ? {userConfig} : {}),
    id: prepared.id,
    model: prepared.model,
    targets: options.targets,
    env: options.env,
    context: options.context,
    ownership: ownershipFrom(others),
    replacing: existing,
    siblings,
    integrity: prepared.fetched.integrity,
    prefix: options.prefix,
    // the form asked for, else the one each agent's record holds: so again on update, enable, reinstall and a clone's install
    form: (target, fallback) =>
      chooseForm(
        prepared.id,
        prepared.model,
        askedForm(options),
        existing.find((r) => r.target === target.id),
        declaredForm ?? fallback,
      ),
    pluginRoot: dirs.root,
    marketplace: marketplaceNameFor(prepared.id, options.context, [...existing, ...siblings], options.frozen ?? false),
    ...(options.context.scope === 'project'
      ? {nativeInUserScope: new Set(all.filter((r) => r.plugin === prepared.id && r.scope === 'user' && r.enabled && r.form === 'native').map((r) => r.target))}
      : {}),
    vars: (target, section) => pluginVarsFor(target, options.context, dirs, section),
  }
  // each agent is planned with the parts it leaves out
  const planned = options.targets.flatMap((t) =>
    planInstall({
      ...input,
      targets: [t],
      model: withoutParts(prepared.model, p.disabled[t.id]),
      disabled: {parts: p.disabled[t.id] ?? {}, whole: prepared.model},
    }),
  )
  const plans = shareDestinations(planned, input, options.targets)
  return {existing, others, plans, marketplace: input.marketplace}
}

/**
 * Applies one checked install inside a caller's transaction, on `current` (the records as this
 * transaction has them so far), and returns its answer and the records after it. Writes no state
 * file: the caller writes the records once, after every plugin of the batch.
 */
export const applyInTransaction = async (
  tx: Transaction,
  p: PendingInstall,
  current: readonly InstallRecord[],
): Promise<{result: InstallResult; records: InstallRecord[]; changed: boolean}> => {
  const {options, prepared, base, summary, consent, dirs, disabled} = p
  const {env, context} = options
  const {resolved, fetched, model, id} = prepared
  // approval too is judged again: another run may have stored it meanwhile
  const approvedNow = summary.items.length === 0 || isApproved(env, id, summary.fingerprint)
  // judged again on the records read under the lock: another process may have installed it meanwhile
  if (
    isCurrent(existingRecords(current, id, options), options.targets, fetched.integrity, options.form, options.frozen) &&
    !options.force &&
    approvedNow &&
    !options.renamedFrom
  ) {
    return {result: {...base, status: 'already-installed', plans: [], consent: {...consent, approvedBy: 'not-needed'}}, records: [...current], changed: false}
  }
  // the records read under the lock are the very ones read before it (the state file unchanged, no run recovered): the plan made
  // on them stands, and so does what consent showed of it
  const unchanged = !tx.recovered && sameRecords(current, p.planned.on)
  const {existing, others: before, plans, marketplace} = unchanged ? p.planned : planFor(p, current)
  refuseNothingWritten(id, plans, options, model.problems)
  // what is written now must be what was approved: another run may have changed what this one renames or skips
  if (!unchanged && consentOf(p, plans).fingerprint !== summary.fingerprint) {
    throw conflict('consent-changed', `what ${id} runs changed while it was being installed (another loadout run wrote meanwhile); nothing was written`, {
      suggestions: [`run it again: loadout install ${id}`],
    })
  }
  // every config entry the old records name must be loadout's before anything is touched
  for (const old of existing) ownedEdits(old.config, {scope: context.scope})
  // what the replaced version created in a config file passes to the installs still there, as an uninstall
  // does; only a version installed here: a fresh clone's lock names edits this machine never made (and
  // its plugin copy, machine-local, is not there yet)
  const written = existing.filter((r) => !r.pluginRoot || existsSync(r.pluginRoot))
  if (context.scope === 'project') await placeProjectCopy(context.projectRoot, model.root, dirs.root, fetched.integrity)
  else {
    journalCopy(tx, dirs.root)
    // the copy keeps where its files came from when it holds the whole fetched folder: read again only for that origin
    await materializeCopy(model.root, dirs.root, prepared.files, model.root === fetched.root ? fetched.origin : undefined)
    // made (or kept) to hold exactly the files read
    if (prepared.copyView) copyMade(dirs.root, prepared.files.integrity, prepared.copyView)
  }
  for (const old of existing) removeApplied(old, {force: true, keep: pathsRecordedBy(before), owned: {scope: context.scope}}, tx)
  const others = inheritCreated(written, before)
  const recordBase: RecordBase = {
    plugin: id,
    scope: context.scope,
    ...(base.version ? {version: base.version} : {}),
    source: base.source,
    ...(fetched.commit ? {commit: fetched.commit} : {}),
    ...(fetched.signer ? {signer: fetched.signer.fingerprint} : {}),
    ...(fetched.archiveSha256 ? {archiveSha256: fetched.archiveSha256} : {}),
    ...(fetched.artifact ? {artifact: fetched.artifact} : {}),
    integrity: fetched.integrity,
    ...dependencyFields(existing, options.dependency),
    pluginRoot: dirs.root,
    pluginRootIntegrity: prepared.files.integrity,
    ...(summary.items.length > 0 ? {consent: summary.fingerprint} : {}),
  }
  const records = unchangedFromLockfile(
    existing,
    (await applyPlans(plans, recordBase, tx)).map((r) => withMarketplace(withDisabled(inheritDirs(r, existing), disabled[r.target]), id, marketplace)),
  )
  if (context.scope === 'project' && !(options.frozen ?? false)) {
    tx.touch(projectManifestFile(context.projectRoot))
    // a server from `mcp add` or a registry is never anything but loose: no form is declared for it
    const loose = !isMcpId(id) && records.some((r) => r.form === 'loose') && !records.some((r) => r.form === 'native')
    declarePlugin(context.projectRoot, id, base.version, resolved.fetch.label, resolved.marketplace === DIRECT, declaredOff(id, records, current), loose)
    if (options.renamedFrom) undeclarePlugin(context.projectRoot, options.renamedFrom)
  }
  if (summary.items.length > 0) {
    tx.touch(approvalsFile(env))
    storeApproval(env, id, summary.fingerprint)
  }
  const after = releaseDropped([...others, ...records], id, context.scope, readPluginExtras(fetched.root, resolved.entry).dependencies)
  if (context.scope === 'project') pruneProjectCopies(context.projectRoot, id, after, tx)
  return {result: {...base, status: 'installed', plans, consent}, records: after, changed: true}
}

/** The same record objects in the same order: records.ts gives back the objects it parsed while the file it read is unchanged. */
const sameRecords = (a: readonly InstallRecord[], b: readonly InstallRecord[]): boolean => a.length === b.length && a.every((r, i) => r === b[i])

const withDisabled = (record: InstallRecord, parts: DisabledParts | undefined): InstallRecord =>
  noParts(parts) ? record : {...record, disabledParts: normalParts(parts)}

/** What loadout.json says is off: what every agent the plugin is in (in this scope) leaves out. */
const declaredOff = (id: string, written: readonly InstallRecord[], current: readonly InstallRecord[]): DisabledParts => {
  const targets = new Set(written.map((r) => r.target))
  const kept = current.filter((r) => r.plugin === id && r.scope === 'project' && !targets.has(r.target))
  return commonParts([...written, ...kept].map((r) => readParts(r.disabledParts)))
}

/**
 * The plugins this one no longer declares stop counting it as a dependent (an update that dropped a
 * dependency), so that `prune` finds them once nothing else needs them.
 */
const releaseDropped = (records: InstallRecord[], id: string, scope: string, declared: readonly Dependency[]): InstallRecord[] => {
  const market = id.split('@')[1]
  const needs = new Set(declared.map((d) => `${d.name}@${d.marketplace ?? market}`))
  return records.map((r) => {
    if (r.scope !== scope || !r.dependencyOf?.includes(id) || needs.has(r.plugin)) return r
    return {...r, dependencyOf: r.dependencyOf.filter((d) => d !== id)}
  })
}

/** Writes the records a batch ended with, once; `--frozen`: loadout.lock and loadout.json stay as they are, and must already say this. */
export const commitRecords = (tx: Transaction, options: Pick<InstallOptions, 'context' | 'frozen'>, records: InstallRecord[]): void => {
  const {context} = options
  if (options.frozen && context.scope === 'project') assertLockUnchanged(context.projectRoot, records)
  else tx.writeRecords(context.scope, records)
}

/**
 * A place found taken before the lock may be one another loadout run is writing right now: its files
 * are on disk, its records not yet. Such a conflict (undefined here) is judged again on the records read
 * under the lock, where a run in flight has finished or been rolled back. A dry run takes no lock: its
 * answer stands.
 */
export const unlessTakenMeanwhile = async <T>(preflight: Promise<T>, options: Pick<InstallOptions, 'dryRun'>): Promise<T | undefined> =>
  preflight.catch((error: unknown) => {
    if (error instanceof LoadoutError && error.exitStatus === EXIT.conflict && !options.dryRun) return undefined
    throw error
  })

/** Installs one prepared plugin into the chosen targets, under the lock, undoing everything on failure. */
export const installPrepared = async (prepared: Prepared, options: InstallOptions): Promise<InstallResult> => {
  refusePackOnly(options.targets)
  // read without the lock, for the answer before any question; judged again under the lock
  const pre = await unlessTakenMeanwhile(preflightInstall(prepared, options, readInstallRecords(options.env, options.context.projectRoot)), options)
  if (pre && 'done' in pre) return pre.done
  return transaction(options.env, options.context.projectRoot, `install ${prepared.id}`, async (tx): Promise<InstallResult> => {
    const recovered = tx.recovered ? {recovered: tx.recovered} : {}
    const checked = pre ?? (await preflightInstall(prepared, options, tx.records()))
    if ('done' in checked) return {...checked.done, ...recovered}
    const {result, records, changed} = await applyInTransaction(tx, checked.pending, tx.records())
    if (changed) commitRecords(tx, options, records)
    return {...result, ...recovered}
  })
}

/**
 * The folders the replaced version's install created stay loadout's: they are pruned only at commit,
 * so the new version finds them in place and would otherwise leave them behind when it goes.
 */
const inheritDirs = (record: InstallRecord, replaced: readonly InstallRecord[]): InstallRecord => {
  const old = replaced.find((r) => r.target === record.target)
  if (!old) return record
  const paths = [...record.files.map((f) => f.path), ...record.dirs, ...record.config.map((c) => c.file)]
  const inherited = old.dirs.filter((d) => paths.some((p) => p === d || p.startsWith(d + '/')))
  return {...record, dirs: [...new Set([...record.dirs, ...inherited])]}
}

type RecordBase = Omit<InstallRecord, 'target' | 'enabled' | 'components' | 'skipped' | 'files' | 'dirs' | 'config'>

/**
 * A plugin that writes nothing into any chosen agent is not installed there: like npm refusing a package
 * for a platform it does not support, the run fails (exit 4) saying why for each agent, and records nothing.
 * A dependency that has nothing for these agents is passed over instead, as npm passes over an optional one.
 */
const refuseNothingWritten = (id: string, plans: readonly TargetPlan[], options: Pick<InstallOptions, 'dependency'>, problems: readonly Problem[]): void => {
  if (plans.some((p) => p.operations.length > 0) || options.dependency?.kind === 'dependency') return
  const reasons = plans.map((p) => p.skipped.at(-1)?.reason ?? `nothing written for ${p.target}`)
  throw validationFailed('nothing-written', `${id} was not installed: ${reasons.join('; ')}`, {
    suggestions: ['choose an agent that loads its parts (`loadout targets` lists what each one reads)'],
    details: {plans: plans.map((p) => ({target: p.target, skipped: p.skipped})), problems},
  })
}

/**
 * Applies every planned operation through the transaction, a safe point between each, and returns the
 * records: none for an agent the plan writes nothing into, so that it is not listed as installed there.
 */
const applyPlans = async (plans: readonly TargetPlan[], recordBase: RecordBase, tx: Transaction): Promise<InstallRecord[]> => {
  const records: InstallRecord[] = []
  // what each destination received, for the agents that share it (written once, recorded for each)
  const at = new Map<string, SharedEntries>()
  const add = (record: InstallRecord, applied: SharedEntries & {config?: InstallRecord['config']}) => {
    record.files.push(...applied.files)
    record.dirs.push(...applied.dirs)
    if (applied.trees.length > 0) record.trees = [...(record.trees ?? []), ...applied.trees]
    record.config.push(...(applied.config ?? []))
  }
  const sharing: Array<{record: InstallRecord; op: Extract<Operation, {kind: 'shared'}>}> = []
  const pending: PendingConfigs = new Map()
  for (const plan of plans) {
    if (plan.operations.length === 0) continue
    const record: InstallRecord = {
      ...recordBase,
      target: plan.target,
      enabled: true,
      ...(plan.form ? {form: plan.form} : {}),
      components: [...new Set(plan.operations.map((o) => o.component))],
      skipped: plan.skipped,
      files: [],
      dirs: [],
      config: [],
    }
    for (let start = 0; start < plan.operations.length;) {
      const ops = plan.operations.slice(start, (start += memberRun(plan.operations, start)))
      const op = ops[0]!
      if (op.kind === 'shared') {
        sharing.push({record, op})
        continue
      }
      await tx.checkpoint()
      const results = applyOperations(ops, tx, pending)
      for (const applied of results) add(record, {...applied, trees: applied.trees ?? []})
      if (op.kind === 'copy-dir' || op.kind === 'write-file') {
        const applied = results[0]!
        at.set(op.dest, {files: applied.files, dirs: applied.dirs, trees: applied.trees ?? []})
      }
    }
    records.push(record)
  }
  flushConfigs(pending)
  for (const {record, op} of sharing) add(record, op.recorded ?? at.get(op.dest) ?? {files: [], dirs: [], trees: []})
  await tx.checkpoint()
  return records
}
