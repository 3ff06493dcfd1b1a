import {EXIT, LoadoutError, needsConsent} from '../../model/errors.js'
import {prepareDeclaredServer} from '../mcp/from-registry.js'
import {fetchSpecKinds} from '../../kernel/sources/kinds/index.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {loadTargets, pickTargets} from '../../kernel/targets/registry.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {isApproved, type ConsentSummary} from '../install/consent.js'
import {fetchPlugin} from '../install/fetch-plugin.js'
import {consentFor, prepareFetched, preparePlugin, prepareResolved, type InstallOptions, type InstallResult, type Prepared} from '../install/install.js'
import {installBatch} from '../install/batch.js'
import {registerDeclaredMarketplaces, type RegisteredMarketplace} from './declared-markets.js'
import {lockDiffers} from '../install/frozen.js'
import {ownedEdits} from '../install/owned-edits.js'
import {declaredPlugins, type DeclaredPlugin} from '../install/project.js'
import {missingIgnoreLines} from '../install/project-root.js'
import {resolveSpec} from '../../kernel/resolve/spec.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {describeGap, requireGaps} from '../../kernel/policy/require.js'
import {environmentWith} from '../../kernel/env/environment.js'

export interface DeclaredInstall {
  frozen: boolean
  /** marketplaces loadout.json declares that were registered on this machine by this run */
  registered: RegisteredMarketplace[]
  results: InstallResult[]
  /** lines the project's .gitignore still needs (loadout's machine-local folder), to print */
  ignore: string[]
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
  // The lock is checked (every path contained) before anything, even a marketplace, is registered.
  const locked = readInstallRecords(env, context.projectRoot).filter((r) => r.scope === 'project')
  // ...and every config entry it claims is, on this machine, absent or as loadout recorded writing it.
  for (const record of locked) ownedEdits(record.config, {scope: 'project'})
  const registered = await registerDeclaredMarketplaces(env, context, {
    offline: options.offline,
    ...(options.onProgress ? {onProgress: options.onProgress} : {}),
  })
  const declared = declaredPlugins(context.projectRoot)
  const ids = Object.keys(declared).sort((a, b) => a.localeCompare(b))
  if (options.frozen) assertDeclarationsLocked(declared, locked)
  const required = await requiredSpecs(options, declared)
  // Everything is fetched and checked before anything is written: a stale lock or a missing approval
  // fails the whole run, not half of it.
  let chosen: readonly AgentTarget[] | undefined
  const ready: Array<{prepared: Prepared; targets: readonly AgentTarget[]}> = []
  for (const id of ids) {
    const lock = locked.find((r) => r.plugin === id)
    // a declared folder is relative to the project root, wherever loadout runs from
    const spec = declared[id]!.source ?? id
    const inProject = {...options, env: environmentWith(env, {cwd: context.projectRoot})}
    // a locked plugin is fetched at its locked commit: the cool-down judges what update takes, not the lock
    let prepared = isMcpId(id)
      ? await prepareDeclaredServer(id, declared[id]!, env, context.projectRoot)
      : lock?.commit
        ? await prepareResolved(await resolveSpec(spec, inProject.env, context.projectRoot), inProject)
        : await preparePlugin(spec, inProject)
    if (lock?.commit && prepared.fetched.commit !== lock.commit) prepared = await preparePluginAt(prepared, lock.commit, options)
    if (lock?.artifact && fetchSpecKinds[prepared.resolved.fetch.kind].artifact && prepared.fetched.artifact?.integrity !== lock.artifact.integrity) {
      const fetch = {...prepared.resolved.fetch, version: lock.artifact.version, integrity: lock.artifact.integrity}
      prepared = await prepareFetched({...prepared.resolved, fetch}, await fetchPlugin(fetch, options.env, options.offline), options)
    }
    // The lock is the contract: other content at the locked commit (or a folder that changed) is refused; `update` moves the lock.
    if (lock && lock.integrity !== prepared.fetched.integrity) {
      throw new LoadoutError(
        'integrity-mismatch',
        EXIT.integrity,
        `${id} resolves to different content than loadout.lock records (${lock.integrity.slice(0, 19)}… vs ${prepared.fetched.integrity.slice(0, 19)}…); nothing was installed`,
        {
          suggestions: [`to take the new content and rewrite the lock: loadout update ${id}`, 'or restore the source the lock was made from'],
        },
      )
    }
    let targets = options.targets
    if (options.chooseTargets) {
      const recorded = locked.filter((r) => r.plugin === id).map((r) => r.target)
      targets = recorded.length > 0 ? pickTargets(recorded, await loadTargets()) : (chosen ??= await options.chooseTargets())
    }
    ready.push({prepared, targets})
  }
  for (const spec of required) {
    const prepared = await preparePlugin(spec, {...options, env: environmentWith(env, {cwd: context.projectRoot})})
    ready.push({prepared, targets: options.chooseTargets ? (chosen ??= await options.chooseTargets()) : options.targets})
  }
  if (!options.yes && !options.confirm && !options.dryRun) {
    // what each plugin runs with the parts the lock or loadout.json turned off left out
    const all = readInstallRecords(env, context.projectRoot)
    const summaries: Array<{prepared: Prepared; summary: ConsentSummary}> = []
    for (const {prepared, targets} of ready) summaries.push({prepared, summary: await consentFor(prepared, {...options, targets}, all)})
    const unapproved = summaries.filter(({prepared, summary}) => summary.items.length > 0 && !isApproved(env, prepared.id, summary.fingerprint))
    if (unapproved.length > 0) {
      const names = unapproved.map((u) => u.prepared.id).join(', ')
      throw needsConsent(
        'consent-needed',
        `${names} ${unapproved.length === 1 ? 'runs' : 'run'} code on this machine (hooks, MCP servers or tools) and needs your approval; nothing was installed`,
        {
          suggestions: [
            'run it on a terminal to review and approve, or pass --yes to approve',
            'a project cannot approve its own plugins: each person approves them once',
          ],
          details: {items: unapproved.flatMap((u) => u.summary.items)},
        },
      )
    }
  }
  // every declared plugin in one transaction: a failure of one leaves none of them
  const results: InstallResult[] = await installBatch(
    ready.map(({prepared, targets}) => ({prepared, options: {...options, targets}})),
    options,
  )
  return {frozen: options.frozen, registered, results, ignore: missingIgnoreLines(context.projectRoot)}
}

/**
 * The plugins policy `require` names that neither an install nor loadout.json provides at a version
 * its range allows, as specs to install (`plugin@marketplace@range`). With --frozen the lock may not
 * change, so a gap fails instead (status 11).
 */
const requiredSpecs = async (options: DeclaredOptions, declared: Record<string, DeclaredPlugin>): Promise<string[]> => {
  const {env, context} = options
  const installed = [
    ...readInstallRecords(env, context.projectRoot).map((r) => ({plugin: r.plugin, ...(r.version ? {version: r.version} : {})})),
    ...Object.entries(declared).map(([plugin, d]) => ({plugin, ...(d.version ? {version: d.version} : {})})),
  ]
  const gaps = await requireGaps(loadPolicy(env, context.projectRoot), installed)
  if (gaps.length > 0 && options.frozen)
    throw new LoadoutError(
      'policy-require-unmet',
      EXIT.policy,
      `--frozen, and policy requires what loadout.lock does not have: ${gaps.map(describeGap).join('; ')}`,
      {
        suggestions: ['run loadout install without --frozen to install them and commit loadout.json and loadout.lock'],
        details: {gaps},
      },
    )
  return gaps.map((g) => (g.version ? `${g.plugin}@${g.version}` : g.plugin))
}

/** --frozen: loadout.json and loadout.lock must name the same plugins, at the same versions. */
const assertDeclarationsLocked = (declared: Record<string, DeclaredPlugin>, locked: readonly InstallRecord[]): void => {
  const differences: string[] = []
  for (const [id, entry] of Object.entries(declared)) {
    const lock = locked.find((r) => r.plugin === id)
    if (!lock) differences.push(`${id} is declared in loadout.json but not in loadout.lock`)
    else if (entry.version !== undefined && lock.version !== undefined && entry.version !== lock.version)
      differences.push(`${id} is declared at ${entry.version} but locked at ${lock.version}`)
  }
  for (const id of new Set(locked.map((r) => r.plugin))) if (!(id in declared)) differences.push(`${id} is in loadout.lock but not declared in loadout.json`)
  if (differences.length > 0) throw lockDiffers('--frozen: loadout.json and loadout.lock disagree', differences)
}

/** The same plugin fetched at the commit the lock pinned: its git source, or its git marketplace's folder. */
const preparePluginAt = async (prepared: Prepared, commit: string, options: InstallOptions): Promise<Prepared> => {
  const current = prepared.resolved.fetch
  const fetch = fetchSpecKinds[current.kind].atCommit(current as never, commit)
  if (!fetch) return prepared
  const resolved = {...prepared.resolved, fetch}
  return prepareFetched(resolved, await fetchPlugin(fetch, options.env, options.offline), options)
}
