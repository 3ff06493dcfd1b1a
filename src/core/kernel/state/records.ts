import {readFileSync, rmSync} from 'node:fs'
import {dirname, isAbsolute, join, relative, resolve, sep} from 'node:path'
import type {JsonEditUndo} from '../agent-config/json-edit.js'
import type {TomlEditUndo} from '../agent-config/toml-edit.js'
import type {Environment} from '../env/environment.js'
import {loadoutPaths} from '../env/environment.js'
import {validationFailed} from '../../model/errors.js'
import {writeJsonFile} from '../fs/json.js'
import type {DisabledParts, HookEvents} from '../../model/plugin.js'
import type {Scope} from '../env/scope.js'
import {checkLockRecords} from './lockfile-check.js'

/** One file loadout wrote for a plugin into a target. */
export interface RecordedFile {
  /** absolute in memory and in the user state; relative to the project root in loadout.lock */
  path: string
  sha256: string
  /** the component it belongs to: plugin@marketplace/kind/name */
  component?: string
}

/** One entry loadout added to an agent's config file (an MCP server, or hooks merged into a key). */
export interface RecordedConfigEdit {
  component: string
  file: string
  format: 'json' | 'toml'
  /** json: the objects leading to the member; toml: the table path */
  path: string[]
  /** json: the member's key; toml: '' */
  key: string
  /** the value as written */
  value: unknown
  /** hooks only: the events loadout added, and the event keys it created */
  addedHooks?: HookEvents
  createdEvents?: string[]
  undo: JsonEditUndo | TomlEditUndo
  createdFile: boolean
}

/** What was written for one plugin into one target: the install record. */
export interface InstallRecord {
  plugin: string
  target: string
  scope: Scope
  version?: string
  /** where it came from, redacted */
  source: string
  commit?: string
  /** the fingerprint of the key that signed `commit` (SSH `SHA256:…` or OpenPGP), when its marketplace declares keys */
  signer?: string
  archiveSha256?: string
  /**
   * an npm package: the version it resolved to and the registry's tarball integrity; an OCI artifact:
   * its version (annotation, else tag) and its manifest digest `sha256:<hex>` (the lock pins both)
   */
  artifact?: {version: string; integrity: string}
  integrity: string
  /** installed because these plugins depend on it (ids in the same scope) */
  dependencyOf?: string[]
  /** installed only as a dependency: `prune` removes it once nothing needs it */
  autoInstalled?: boolean
  /** the semver range it was installed for (asked for, or its dependents'): `update` stays inside it */
  range?: string
  /** the installed copy `${CLAUDE_PLUGIN_ROOT}` points at */
  pluginRoot?: string
  /** integrity of that copy's files when it was made: `verify` re-hashes the copy against it */
  pluginRootIntegrity?: string
  enabled: boolean
  /** an agent with a native plugin form: whether the plugin went in as the agent's own plugin or as loose parts */
  form?: 'native' | 'loose'
  /** parts of the plugin turned off in this agent (`disable --skill`): not written, not in consent */
  disabledParts?: DisabledParts
  /** sha256 fingerprint of the executable parts the user approved */
  consent?: string
  components: string[]
  skipped: Array<{component: string; reason: string}>
  files: RecordedFile[]
  /** folders loadout created (skill folders, subagent folders), removed when empty */
  dirs: string[]
  /** folders loadout wrote whole (skills, cst-agent plugins) */
  trees?: string[]
  config: RecordedConfigEdit[]
}

export interface InstallState {
  installs: InstallRecord[]
}

export const userStateFile = (env: Environment): string => join(loadoutPaths(env).config, 'state.json')
export const projectLockFile = (projectRoot: string): string => join(projectRoot, 'loadout.lock')

const toRelative = (base: string, path: string) =>
  isAbsolute(path) && (path === base || path.startsWith(base + sep)) ? relative(base, path).split(sep).join('/') || '.' : path
const toAbsolute = (base: string, path: string) => (isAbsolute(path) ? path : resolve(base, path))

/** Rewrites every path of a record: made relative to the project root for the lock, back on reading. */
const mapPaths = (record: InstallRecord, map: (p: string) => string): InstallRecord => ({
  ...record,
  files: record.files.map((f) => ({...f, path: map(f.path)})),
  dirs: record.dirs.map(map),
  ...(record.trees ? {trees: record.trees.map(map)} : {}),
  ...(record.pluginRoot ? {pluginRoot: map(record.pluginRoot)} : {}),
  config: record.config.map((c) => ({...c, file: map(c.file)})),
})

const RECORD_DEFAULTS = () => ({enabled: true, components: [], skipped: [], dirs: [], config: [], files: [], integrity: '', source: ''})

const missingDefaults = (record: object): Partial<InstallRecord> =>
  Object.fromEntries(Object.entries(RECORD_DEFAULTS()).filter(([key]) => !(key in record) || (record as Record<string, unknown>)[key] === undefined))

const readState = (file: string): InstallState => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return {installs: []}
  }
  let data: {installs?: Array<Partial<InstallRecord> & {plugin: string; target: string; scope: Scope}>}
  try {
    data = JSON.parse(text) as typeof data
  } catch (error) {
    throw validationFailed('state-not-json', `${file} is not valid JSON (${(error as Error).message}); fix or remove it`)
  }
  const installs = Array.isArray(data.installs) ? data.installs : []
  return {
    // the fields a record may lack are added after the ones it has: a record read back keeps the
    // sorted key order it was written in, which spares stableStringify a copy of the whole state
    installs: installs.map((r): InstallRecord => ({...r, ...missingDefaults(r)}) as InstallRecord),
  }
}

/** Every install record of the user state and of the project's lock, paths absolute. */
export const readInstallRecords = (env: Environment, projectRoot: string): InstallRecord[] => {
  const locked = readState(projectLockFile(projectRoot)).installs
  checkLockRecords(projectRoot, locked)
  return [
    ...readState(userStateFile(env)).installs.map((r) => ({...r, scope: 'user' as const})),
    ...locked.map((r) => mapPaths({...r, scope: 'project' as const}, (p) => toAbsolute(projectRoot, p))),
  ]
}

// the order String#localeCompare gives, from one collator rather than one per comparison
const collator = new Intl.Collator()
const sortRecords = (records: readonly InstallRecord[]) =>
  [...records].sort((a, b) => collator.compare(a.plugin, b.plugin) || collator.compare(a.target, b.target))

/**
 * A folder loadout created (`.claude/skills`) is listed by every record with something below it, not
 * only by whichever install happened to create it: the records then do not depend on the order of
 * the installs (a fresh clone installs in another order and gets the same lock), and the folder stays
 * until the last install below it is removed.
 */
const shareCreatedDirs = (records: InstallRecord[]): InstallRecord[] => {
  const created = new Set(records.flatMap((r) => r.dirs))
  // the created folders at or above each folder, remembered: the files of one skill share their parents
  const above = new Map<string, readonly string[]>()
  const createdAtOrAbove = (dir: string): readonly string[] => {
    let found = above.get(dir)
    if (found) return found
    const up = dirname(dir)
    const higher = up === dir ? [] : createdAtOrAbove(up)
    found = created.has(dir) ? [dir, ...higher] : higher
    above.set(dir, found)
    return found
  }
  return records.map((r) => {
    const dirs = new Set(r.dirs)
    for (const path of [...r.files.map((f) => f.path), ...r.dirs, ...r.config.map((c) => c.file)]) for (const d of createdAtOrAbove(dirname(path))) dirs.add(d)
    return {...r, dirs: [...dirs].sort()}
  })
}

/**
 * Writes the records of one scope: the user state file, or loadout.lock with project-relative paths
 * (sorted keys, no timestamps, so the lock is deterministic and diffable).
 */
export const writeInstallRecords = (env: Environment, projectRoot: string, scope: Scope, records: InstallRecord[]): void => {
  const user = records.filter((r) => r.scope === 'user')
  // no install left: no state file or lock, as before the first one (a missing file reads as no installs)
  if (scope === 'user' && user.length === 0) rmSync(userStateFile(env), {force: true})
  else if (scope === 'user') writeJsonFile(userStateFile(env), {version: 1, installs: shareCreatedDirs(sortRecords(user))})
  else if (!records.some((r) => r.scope === 'project')) rmSync(projectLockFile(projectRoot), {force: true})
  else writeJsonFile(projectLockFile(projectRoot), lockContent(projectRoot, records))
}

/** What loadout.lock holds for these records (the project-scope ones), as it would be written. */
export const lockContent = (projectRoot: string, records: readonly InstallRecord[]): {version: 1; installs: InstallRecord[]} => ({
  version: 1,
  installs: shareCreatedDirs(sortRecords(records.filter((r) => r.scope === 'project'))).map((r) => mapPaths(r, (p) => toRelative(projectRoot, p))),
})

/** Answers "which plugin installed this path?" from the user state and the project's lock. */
export interface Ownership {
  ownerOf(path: string): string | undefined
}

export const ownershipFrom = (records: readonly InstallRecord[]): Ownership => {
  const owners = new Map<string, string>()
  for (const record of records) {
    for (const file of record.files) owners.set(resolve(file.path), record.plugin)
    for (const dir of record.dirs) owners.set(resolve(dir), record.plugin)
  }
  // every owned path and each of its folders, to the owner of the first owned path at or below it
  // (in record order): one lookup per question instead of a scan of every recorded path
  let below: Map<string, string> | undefined
  const index = (): Map<string, string> => {
    below = new Map()
    for (const [path, plugin] of owners) {
      for (let p = path; ;) {
        if (!below.has(p)) below.set(p, plugin)
        const up = dirname(p)
        if (up === p || dirname(up) === up) break
        p = up
      }
    }
    return below
  }
  return {
    ownerOf: (path: string) => (below ?? index()).get(resolve(path)),
  }
}

/** Paths other installs still record, which removing one install must leave alone. */
export const pathsRecordedBy = (records: readonly InstallRecord[]): Set<string> => new Set(records.flatMap((r) => [...r.files.map((f) => f.path), ...r.dirs]))

export const loadOwnership = (env: Environment, projectRoot: string): Ownership => ownershipFrom(readInstallRecords(env, projectRoot))
