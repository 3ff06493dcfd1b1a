import {existsSync} from 'node:fs'
import type {Environment} from '../../kernel/env/environment.js'
import {EXIT, LoadoutError, notFound, usageError} from '../../model/errors.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {loadTargets, pickTargets} from '../../kernel/targets/registry.js'
import {installPrepared, type InstallResult, type Prepared} from './install.js'
import {installBatch} from './batch.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import type {DisabledParts} from '../../model/plugin.js'
import {addParts, assertPartsExist, assertSomethingLeft, readParts, removeParts} from './parts.js'
import {readInstalledCopy} from '../../kernel/mcp/model.js'
import {admitPluginModel} from '../../kernel/policy/gate.js'
import {recordsFor} from './remove.js'
import {pluginFiles} from './plugin-copy.js'

/**
 * Re-applies a disabled plugin from its installed copy, to the agents it was installed for. A skill
 * name taken meanwhile is written as <plugin>-<name>, as `install --prefix` would.
 */
export const enablePlugin = async (
  id: string,
  options: {env: Environment; context: ScopeContext; yes: boolean; dryRun: boolean; agents?: readonly string[]},
): Promise<InstallResult> => {
  const {mine} = recordsFor(id, options.env, options.context, options.agents)
  const disabled = mine.filter((r) => !r.enabled)
  const first = disabled[0]
  if (!first)
    return {
      status: 'already-installed',
      plugin: mine[0]!.plugin,
      source: mine[0]!.source,
      integrity: mine[0]!.integrity,
      scope: options.context.scope,
      dryRun: options.dryRun,
      plans: [],
      consent: {items: [], fingerprint: '', approvedBy: 'not-needed'},
      problems: [],
    }
  const targets = pickTargets(
    disabled.map((r) => r.target),
    await loadTargets(),
  )
  return installPrepared(await preparedFromCopy(first, options.env, options.context), {
    env: options.env,
    context: options.context,
    targets,
    dryRun: options.dryRun,
    force: true,
    prefix: true,
    offline: true,
    yes: options.yes,
  })
}

/** The plugin as its installed copy holds it, checked to be what was approved: what enable and part changes reinstall from. */
const preparedFromCopy = async (first: InstallRecord, env: Environment, context: ScopeContext): Promise<Prepared> => {
  if (!first.pluginRoot || !existsSync(first.pluginRoot))
    throw notFound('plugin-copy-missing', `the installed copy of ${first.plugin} is gone; reinstall it: loadout install ${first.plugin} --force`)
  // the copy must still be what was approved (a record from before copies were hashed names the fetched tree)
  const files = await pluginFiles(first.pluginRoot)
  if (files.integrity !== (first.pluginRootIntegrity ?? first.integrity)) {
    throw new LoadoutError(
      'plugin-copy-changed',
      EXIT.integrity,
      `the installed copy of ${first.plugin} (${first.pluginRoot}) changed since it was installed; not enabled`,
      {
        suggestions: [`see what changed: loadout verify ${first.plugin}`, `reinstall it: loadout install ${first.plugin} --force`],
      },
    )
  }
  const model = readInstalledCopy(first.plugin, first.pluginRoot, env.home)
  // the policy may have changed since it was disabled: what it now forbids (hooks, MCP servers, the
  // plugin itself) is not put back. Hidden text was judged when it was installed (audit still reports it).
  admitPluginModel(model, first.plugin, {env, projectRoot: context.projectRoot, allowHiddenText: true})
  return {
    resolved: {
      id: first.plugin,
      name: model.name,
      marketplace: first.plugin.split('@')[1]!,
      ...(first.version ? {version: first.version} : {}),
      fetch: {kind: 'folder', path: first.pluginRoot, label: first.source},
    },
    fetched: {root: first.pluginRoot, integrity: first.integrity, ...(first.commit ? {commit: first.commit} : {})},
    model,
    id: first.plugin,
    files,
  }
}

export interface PartsChange {
  /** parts to turn off (`disable --skill x`) */
  off?: DisabledParts
  /** parts to turn back on (`enable --skill x`) */
  on?: DisabledParts
}

/**
 * Turns parts of an installed plugin off or on in each agent it is installed for (or the ones named):
 * the plugin is reinstalled from its installed copy with those parts left out, in one transaction, so
 * a part turned on again is written byte for byte as before, and the records (and loadout.json) say
 * what is off. An agent that loads the plugin as its own is offered a copy without those parts.
 */
export const changeParts = async (
  id: string,
  change: PartsChange,
  options: {env: Environment; context: ScopeContext; yes: boolean; dryRun: boolean; agents?: readonly string[]},
): Promise<InstallResult> => {
  const {mine} = recordsFor(id, options.env, options.context, options.agents)
  const off = mine.filter((r) => !r.enabled)
  if (off.length > 0)
    throw usageError(
      'plugin-disabled',
      `${mine[0]!.plugin} is disabled in ${off.map((r) => r.target).join(', ')}; enable it before turning its parts on or off`,
      {
        suggestions: [`loadout enable ${mine[0]!.plugin}`],
      },
    )
  const first = mine[0]!
  const prepared = await preparedFromCopy(first, options.env, options.context)
  if (change.off) assertPartsExist(prepared.model, first.plugin, change.off)
  if (change.on) assertPartsExist(prepared.model, first.plugin, change.on)
  const all = await loadTargets()
  // one reinstall per distinct set of parts, so that each agent keeps what it had off besides
  const groups = new Map<string, {parts: DisabledParts; targets: string[]}>()
  for (const record of mine) {
    let parts = readParts(record.disabledParts)
    if (change.off) parts = addParts(parts, change.off)
    if (change.on) parts = removeParts(parts, change.on)
    assertSomethingLeft(prepared.model, first.plugin, parts)
    const key = JSON.stringify(parts)
    groups.set(key, {parts, targets: [...(groups.get(key)?.targets ?? []), record.target]})
  }
  // every agent's change in one transaction: a failure (or a kill) leaves all of them as they were, or all changed
  const results = await installBatch(
    [...groups.values()].map(({parts, targets}) => ({
      prepared,
      options: {
        env: options.env,
        context: options.context,
        targets: pickTargets(targets, all),
        dryRun: options.dryRun,
        force: true,
        prefix: true,
        offline: true,
        // turning parts off only leaves out some of what was approved: nothing new runs
        yes: options.yes || !change.on,
        disabledParts: parts,
      },
    })),
    {env: options.env, context: options.context, dryRun: options.dryRun},
  )
  return results.reduce((a, b) => ({...b, plans: [...a.plans, ...b.plans], problems: [...a.problems, ...b.problems]}))
}
