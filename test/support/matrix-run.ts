/**
 * One lifecycle of the generated matrix, run in-process (the process boundary is not what it tests):
 * install, list, verify, disable, enable, outdated and update after a content change, `install
 * --frozen` in a clone at another path (project scope), uninstall, cache clean. After each stage it
 * notes the whole sandbox tree and, for every agent and part, which files in the agent's places for
 * that part hold the part's marker.
 */
import {cpSync, mkdirSync, writeFileSync} from 'node:fs'
import {join, relative, sep} from 'node:path'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {resolveScope} from '../../src/core/kernel/env/scope.js'
import type {CommandIo} from '../../src/ui/command-io.js'
import {install as installCommand} from '../../src/ui/shared-commands/install.js'
import {list as listCommand} from '../../src/ui/shared-commands/list.js'
import {verify as verifyCommand} from '../../src/ui/shared-commands/verify.js'
import {removeInstalled} from '../../src/core/ops/install/remove.js'
import {enablePlugin} from '../../src/core/ops/install/enable.js'
import {updatePlugins} from '../../src/core/ops/update/update.js'
import {findOutdated, type OutdatedResult} from '../../src/core/ops/update/outdated.js'
import {cleanCache} from '../../src/core/ops/maintenance/cache.js'
import type {Sandbox} from './cli.js'
import {snapshot} from '../e2e/helpers.js'
import {
  baseFolders,
  claudePluginDirs,
  filesHolding,
  locations,
  marker,
  PARTS,
  SECTION,
  supports,
  writePlugin,
  type Agent,
  type Part,
  type Roots,
  type Scope,
} from './matrix.js'

export const PLUGIN = 'mx'
export const NONE_PLUGIN = 'mx-none'
/** loadout's own folders in HOME, which the byte-identical checks set aside */
export const LOADOUT_OWN = ['home/.config/loadout', 'home/.cache/loadout', 'home/.local/share/loadout']
/** loadout's own files in a project: the declaration, the lock and the machine-local plugin copies */
export const PROJECT_OWN = ['loadout.json', 'loadout.lock', '.loadout']
/** the plugin sources the test writes and changes, inside the project so that a clone carries them */
const SOURCES = 'plugins'
/** the sandbox folder holding the clone at another path, which its own checks cover */
const ELSEWHERE = 'elsewhere'

export interface Batch {
  name: string
  scope: Scope
  agents: Agent[]
  /** installed together though each could be installed alone: they share a folder */
  group: boolean
  /** `loose`: installed with --loose (an agent with a native plugin form gets loose parts); else each agent's default */
  form?: 'loose' | 'native'
}

/** For one agent and part: the files in the agent's places for the part holding the v1 and the v2 marker. */
export type Seen = Record<string, Partial<Record<Part, {v1: string[]; v2: string[]}>>>

export interface Observation {
  roots: Roots
  /** the parts in the plugin every agent of the batch installs, and those no agent of it holds */
  parts: Part[]
  noneParts: Part[]
  trees: Partial<Record<Stage, Map<string, string>>>
  seen: Partial<Record<Stage, Seen>>
  installed?: {plans: Array<{target: string; skipped: Array<{component: string}>; notes: Array<{component: string; note: string}>}>}
  noneError?: {code?: string; exitStatus?: number; details?: {plans?: Array<{target: string; skipped: Array<{component: string}>}>}}
  listed?: Array<{target: string; components: string[]; enabled: boolean}>
  outdated?: OutdatedResult
  clone?: {root: string; fresh: Map<string, string>; installed: Map<string, string>; uninstalled: Map<string, string>; seen: Seen}
  failure?: {stage: string; error: unknown}
}

export type Stage = 'before' | 'none' | 'installed' | 'disabled' | 'enabled' | 'updated' | 'uninstalled' | 'cleaned'

const quiet = (env: Environment): CommandIo => ({env, json: true, log: () => {}})

const envFor = (sb: Sandbox, cwd: string): Environment => ({vars: {...sb.env}, home: sb.home, cwd, platform: process.platform, interactive: false})

/** Canaries: a file in every agent's own folders, and in each project folder an agent reads under. */
export const plantCanaries = (agents: readonly Agent[], roots: Roots, deep: readonly string[]): void => {
  const plant = (folder: string) => {
    mkdirSync(folder, {recursive: true})
    writeFileSync(join(folder, '.canary'), `canary of ${folder}\n`)
  }
  for (const agent of agents) {
    for (const folder of baseFolders(agent, roots)) plant(folder)
    for (const place of locations(agent, 'skills', 'project', roots).concat(locations(agent, 'subagents', 'project', roots))) {
      const top = relative(roots.project, place).split(sep)[0]!
      if (top.startsWith('.')) plant(join(roots.project, top))
    }
  }
  for (const folder of deep) plant(folder)
}

/** Where the agent reads a part: its own plugins' folders when the plugin went in natively, else its loose places. */
const seeAll = (agents: readonly Agent[], scope: Scope, roots: Roots, native = false): Seen =>
  Object.fromEntries(
    agents.map((agent) => [
      agent.id,
      Object.fromEntries(
        PARTS.map((part) => {
          const places = native ? claudePluginDirs(agent, scope, roots) : locations(agent, SECTION[part], scope, roots)
          return [part, {v1: filesHolding(places, marker(part, 'v1')), v2: filesHolding(places, marker(part, 'v2'))}]
        }),
      ),
    ]),
  )

/** The sandbox tree without the plugin sources the test writes. */
const treeOf = (sb: Sandbox): Map<string, string> => {
  const tree = snapshot(sb.dir)
  for (const key of tree.keys()) if (key.startsWith(`project/${SOURCES}`) || key.startsWith(ELSEWHERE)) tree.delete(key)
  return tree
}

const projectTree = (root: string): Map<string, string> => {
  const tree = snapshot(root)
  for (const key of tree.keys()) if (key === SOURCES || key.startsWith(`${SOURCES}/`)) tree.delete(key)
  return tree
}

export const runLifecycle = async (sb: Sandbox, batch: Batch, allAgents: readonly Agent[]): Promise<Observation> => {
  const roots = {home: sb.home, project: sb.project}
  const {scope, agents} = batch
  const parts = PARTS.filter((p) => agents.some((a) => supports(a, p, scope)))
  const noneParts = PARTS.filter((p) => !parts.includes(p))
  const obs: Observation = {roots, parts, noneParts, trees: {}, seen: {}}
  const deep = batch.group ? agents.flatMap((a) => (['skills', 'subagents', 'commands'] as const).flatMap((s) => locations(a, s, scope, roots))) : []
  plantCanaries(allAgents, roots, deep)
  const source = join(sb.project, SOURCES, PLUGIN)
  if (parts.length > 0) writePlugin(source, PLUGIN, parts, 'v1')
  const env = envFor(sb, sb.project)
  const context = () => resolveScope(scope, env)
  const ids = agents.map((a) => a.id).join(',')
  const native = batch.form === 'native'
  const flags = {agent: ids, scope, yes: true, ...(batch.form === 'loose' ? {loose: true} : {})}
  const note = (stage: Stage) => {
    obs.trees[stage] = treeOf(sb)
    obs.seen[stage] = seeAll(agents, scope, roots, native)
  }
  let stage = 'before'
  try {
    note('before')
    if (noneParts.length > 0) {
      stage = 'install of the parts no agent holds'
      const none = join(sb.project, SOURCES, NONE_PLUGIN)
      writePlugin(none, NONE_PLUGIN, noneParts, 'v1')
      obs.noneError = await installCommand.run({flags, argv: [`./${SOURCES}/${NONE_PLUGIN}`]}, quiet(env)).then(
        () => ({}),
        (error: unknown) => error as Observation['noneError'] & object,
      )
      note('none')
    }
    if (parts.length === 0) return obs
    stage = 'install'
    obs.installed = (await installCommand.run({flags, argv: [`./${SOURCES}/${PLUGIN}`]}, quiet(env))) as unknown as Observation['installed']
    note('installed')
    stage = 'list'
    obs.listed = (await listCommand.run({flags: {scope}, argv: []}, quiet(env))).installs.filter((r) => r.plugin === `${PLUGIN}@direct`)
    stage = 'verify after install'
    await verifyCommand.run({flags: {scope}, argv: []}, quiet(env))
    stage = 'disable'
    await removeInstalled(PLUGIN, env, context(), {force: false, dryRun: false, keepRecord: true})
    note('disabled')
    stage = 'enable'
    await enablePlugin(PLUGIN, {env, context: context(), yes: true, dryRun: false})
    note('enabled')
    stage = 'outdated after a content change'
    writePlugin(source, PLUGIN, parts, 'v2')
    obs.outdated = await findOutdated(env, resolveScope(undefined, env))
    stage = 'update'
    const updated = await updatePlugins([], {env, context: context(), dryRun: false, prefix: false, offline: false, yes: true, allowHiddenText: false})
    const failed = updated.updates.filter((u) => u.status === 'failed')
    if (failed.length > 0) throw new Error(`update failed: ${JSON.stringify(failed)}`)
    note('updated')
    stage = 'verify after update'
    await verifyCommand.run({flags: {scope}, argv: []}, quiet(env))
    if (scope === 'project') {
      stage = 'install --frozen in a clone at another path'
      obs.clone = await frozenClone(sb, agents, obs, native)
    }
    stage = 'uninstall'
    await removeInstalled(PLUGIN, env, context(), {force: false, dryRun: false})
    note('uninstalled')
    stage = 'cache clean'
    await cleanCache(env, resolveScope(undefined, env), {dryRun: false})
    note('cleaned')
  } catch (error) {
    obs.failure = {stage, error}
  }
  return obs
}

/**
 * A teammate's checkout at another path: what the project held before the install, the committed
 * loadout.json and loadout.lock, and the plugin sources. `install --frozen` writes what the lock
 * says there; its uninstall takes it out again.
 */
const frozenClone = async (sb: Sandbox, agents: readonly Agent[], obs: Observation, native: boolean): Promise<NonNullable<Observation['clone']>> => {
  const root = join(sb.dir, ELSEWHERE, 'checkout')
  const committed = new Set([...obs.trees.before!.keys()].filter((k) => k.startsWith('project/')).map((k) => k.slice('project/'.length)))
  cpSync(sb.project, root, {
    recursive: true,
    filter: (from) => {
      const rel = relative(sb.project, from)
      return rel === '' || committed.has(rel) || rel === 'loadout.json' || rel === 'loadout.lock' || rel === SOURCES || rel.startsWith(`${SOURCES}${sep}`)
    },
  })
  const fresh = projectTree(root)
  const env = envFor(sb, root)
  await installCommand.run({flags: {frozen: true, yes: true}, argv: []}, quiet(env))
  const installed = projectTree(root)
  const seen = seeAll(agents, 'project', {home: sb.home, project: root}, native)
  await removeInstalled(PLUGIN, env, resolveScope('project', env), {force: false, dryRun: false})
  return {root, fresh, installed, uninstalled: projectTree(root), seen}
}

/** The project part of a sandbox tree, keyed relative to the project. */
export const projectPart = (tree: Map<string, string>): Map<string, string> =>
  new Map([...tree].filter(([k]) => k.startsWith('project/')).map(([k, v]) => [k.slice('project/'.length), v]))
