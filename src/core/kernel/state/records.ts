import {closeSync, fstatSync, openSync, readSync, rmSync, statSync, type BigIntStats} from 'node:fs'
import {dirname, isAbsolute, join, relative, resolve, sep} from 'node:path'
import type {JsonEditUndo} from '../agent-config/json-edit.js'
import type {TomlEditUndo} from '../agent-config/toml-edit.js'
import type {Environment} from '../env/environment.js'
import {loadoutPaths} from '../env/environment.js'
import {validationFailed} from '../../model/errors.js'
import {sortedJsonAfter, writeJsonFile} from '../fs/json.js'
import {HeldLines, heldInOrder, heldOf, heldRecord, jsonText, mayHold, skimLines, writtenAsLoadout} from './held-lines.js'
import {writePiecesAtomic} from '../fs/write.js'
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
  /** a native plugin in a project: the name its marketplace is registered under (ops/install/native-name.ts), kept while it is disabled */
  marketplace?: string
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

/**
 * The fields a record may lack, added in place (the record was just parsed: nothing else holds it)
 * after the ones it has: a record read back keeps the sorted key order it was written in, which spares
 * stableStringify a copy of the whole state, and 1,000 records are not copied on every read. One
 * property at a time, by name: a loop over the names costs 1,000 records several milliseconds more.
 */
const withDefaults = (parsed: Record<string, unknown>): InstallRecord => {
  const r = parsed as {-readonly [K in keyof InstallRecord]?: InstallRecord[K]}
  if (r.enabled === undefined) r.enabled = true
  if (r.components === undefined) r.components = []
  if (r.skipped === undefined) r.skipped = []
  if (r.dirs === undefined) r.dirs = []
  if (r.config === undefined) r.config = []
  if (r.files === undefined) r.files = []
  if (r.integrity === undefined) r.integrity = ''
  if (r.source === undefined) r.source = ''
  return r as InstallRecord
}

/**
 * The user state is written one record per line, its plugin and target first, the other keys sorted:
 *
 *   {"installs":[
 *   {"plugin":"…","target":"codex","commit":"…","components":[…],…},
 *   {…}
 *   ],"version":1}
 *
 * still one JSON document (what older loadout, `jq` and people read), so that each record's line can be
 * kept with the record read from it or written as it: a change that leaves most records as they were
 * (one plugin uninstalled among 1,000) writes their lines again as they were, and serialises only the
 * records it made anew. A line read is kept as its place in the bytes read, held unparsed until more
 * than its record's plugin and target is asked (held-lines.ts): the file is never decoded whole (1 MB
 * for 1,000 records, a page fault every 4 KB of it), and the lines of records left as they were are
 * written back from those bytes, neighbours in one piece.
 * Records are never changed in place (a changed record is a new object), so a record holding a line is
 * the record that line says. A state written otherwise (indented, as before issue 27, or by hand) is
 * read whole and written in lines from then on.
 */
const HEAD = '{"installs":[\n'
const TAIL = '\n],"version":1}\n'
const BETWEEN = ',\n'
const HEAD_BYTES = Buffer.from(HEAD)
const TAIL_BYTES = Buffer.from(TAIL)
const NEWLINE = 0x0a
const COMMA = 0x2c

/** A record's line: where it lies in the bytes of the file it was read from, or the text it was written as. */
type Line = string | {readonly bytes: Buffer; readonly start: number; readonly end: number}

/** One reading of a state file (or what was written to it): its records in the file's order. */
interface Reading {
  readonly identity: string
  readonly installs: readonly InstallRecord[]
  /** which folders its records list as created, asked folder by folder */
  created?: {has(dir: string): boolean}
}

/**
 * The line each record of the user state was read from or written as, and the reading that holds it;
 * a record held as its line (held-lines.ts) holds both itself.
 */
const lineOf = new WeakMap<InstallRecord, {line: Line; reading: Reading}>()

/** The reading whose records a record is among with its line, if it has one. */
const readingOf = (record: InstallRecord): Reading | undefined => {
  const held = heldOf(record)
  return held && held.index >= 0 ? (held.reading as Reading) : lineOf.get(record)?.reading
}

/**
 * The records last read from each state file, kept while the file is the same one: one command asks
 * several times (the plan, the budget, the check under the lock, what an uninstall leaves), and 1,000
 * records are ~1-3 MB to read and parse each time. Every write of loadout's renames a new file in (a new
 * inode), and any other change moves the size or the change time; the records are handed out in a new
 * array, never changed in place by their readers.
 */
const lastRead = new Map<string, Reading>()

const identityOf = (s: BigIntStats): string => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`

/**
 * Where each record's line lies in `bytes` (its first byte, and the one after its last), or undefined
 * for any other text (then it is parsed whole). A line holds no raw newline, so the text is exactly
 * HEAD, the lines joined by BETWEEN, and TAIL: each line parsing as an object is the whole text parsing
 * as the same records. Those bytes (a comma, a newline) are never part of a longer UTF-8 sequence.
 */
const recordSpans = (bytes: Buffer): {starts: number[]; ends: number[]} | undefined => {
  const bodyEnd = bytes.length - TAIL_BYTES.length
  if (
    bodyEnd < HEAD_BYTES.length ||
    bytes.compare(HEAD_BYTES, 0, HEAD_BYTES.length, 0, HEAD_BYTES.length) !== 0 ||
    bytes.compare(TAIL_BYTES, 0, TAIL_BYTES.length, bodyEnd) !== 0
  )
    return undefined
  const starts: number[] = []
  const ends: number[] = []
  if (bodyEnd === HEAD_BYTES.length) return {starts, ends}
  for (let start = HEAD_BYTES.length; ;) {
    // the line ends at the comma before the next newline, or at the tail's newline for the last one
    const newline = bytes.indexOf(NEWLINE, start)
    const last = newline < 0 || newline >= bodyEnd
    const end = last ? bodyEnd : newline - 1
    if (!last && (end < start || bytes[end] !== COMMA)) return undefined
    starts.push(start)
    ends.push(end)
    if (last) return {starts, ends}
    start = newline + 1
  }
}

/** A record as parsed from the file: the fields it lacks filled, its scope the file's (set in place: nothing else holds it yet). */
const fileRecord = (parsed: Record<string, unknown>, scope: Scope | undefined): InstallRecord => {
  const record = withDefaults(parsed)
  if (scope) record.scope = scope
  return record
}

/** A line parsed: the object it holds, or undefined when it holds anything else. */
const parseLine = (bytes: Buffer, start: number, end: number): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8', start, end))
    return value === null || typeof value !== 'object' || Array.isArray(value) ? undefined : (value as Record<string, unknown>)
  } catch {
    return undefined
  }
}

/** The fields a record may lack with no default: a held line without the key has none (held-lines.ts). */
const OPTIONAL_FIELDS: ReadonlySet<string> = new Set([
  'version',
  'commit',
  'signer',
  'archiveSha256',
  'artifact',
  'dependencyOf',
  'autoInstalled',
  'range',
  'pluginRoot',
  'pluginRootIntegrity',
  'form',
  'marketplace',
  'disabledParts',
  'consent',
  'trees',
])

/**
 * The records of a state in lines, into `reading`: each line loadout wrote held unparsed
 * (held-lines.ts), any other parsed now; false when one is no object (the text is then parsed whole).
 * A line parsed now keeps its place when it begins as loadout writes them; a line of the order before
 * the plugin and target went first does not, and its record is written anew.
 */
const readLines = (
  file: string,
  bytes: Buffer,
  spans: {starts: number[]; ends: number[]},
  reading: Reading,
  scope: Scope | undefined,
  hold: boolean,
): boolean => {
  const {starts, ends} = spans
  const parseHeld = (index: number): InstallRecord => {
    const parsed = parseLine(bytes, starts[index]!, ends[index]!)
    const {plugin, target} = reading.installs[index]!
    if (!parsed || parsed.plugin !== plugin || parsed.target !== target)
      throw validationFailed('state-not-json', `${file} is not valid JSON (the record of ${plugin} for ${target}, line ${index + 2}); fix or remove it`)
    return fileRecord(parsed, scope)
  }
  const lines = new HeldLines(bytes, starts, ends, parseHeld, OPTIONAL_FIELDS)
  const {plugins, targets} = hold && scope ? skimLines(lines) : {plugins: [], targets: []}
  const installs = reading.installs as InstallRecord[]
  for (let i = 0; i < starts.length; i++) {
    const plugin = plugins[i]
    if (plugin !== undefined) {
      installs.push(heldRecord(plugin, targets[i]!, scope!, i, lines, reading))
      continue
    }
    const parsed = parseLine(bytes, starts[i]!, ends[i]!)
    if (!parsed) return false
    const record = fileRecord(parsed, scope)
    installs.push(record)
    if (writtenAsLoadout(lines, i)) lineOf.set(record, {line: {bytes, start: starts[i]!, end: ends[i]!}, reading})
  }
  return true
}

/**
 * The file's bytes, read into one buffer of its size (readFileSync reads 3 MB in 8 KB steps into a
 * buffer it grows, touching twice the memory); a file that grew since its size was taken is read on.
 */
const readBytes = (fd: number, size: number): Buffer => {
  let bytes = Buffer.allocUnsafe(size + 1)
  let length = 0
  for (;;) {
    if (length === bytes.length) bytes = Buffer.concat([bytes, Buffer.allocUnsafe(bytes.length)])
    const n = readSync(fd, bytes, length, bytes.length - length, null)
    if (n === 0) return bytes.subarray(0, length)
    length += n
  }
}

/** The file's metadata by its path: undefined when it is not there or cannot be asked (as an open that fails, it reads as no records). */
const statByPath = (file: string): BigIntStats | undefined => {
  try {
    return statSync(file, {bigint: true, throwIfNoEntry: false})
  } catch {
    return undefined
  }
}

/** The records of a state file; `hold`: the user state's lines held unparsed (Environment.holdRecordLines). */
const readState = (file: string, scope?: Scope, hold = false): InstallState => {
  // a missing file, or one as this run read it last, needs no open: an open of a missing file throws,
  // and an install asks for the user state and the project's lock several times
  const seen = statByPath(file)
  if (seen === undefined) {
    lastRead.delete(file)
    return {installs: []}
  }
  const unchanged = seen && lastRead.get(file)
  if (unchanged && unchanged.identity === identityOf(seen)) return {installs: [...unchanged.installs]}
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    lastRead.delete(file)
    return {installs: []}
  }
  let bytes: Buffer
  let identity: string
  try {
    const stat = fstatSync(fd, {bigint: true})
    identity = identityOf(stat)
    const known = lastRead.get(file)
    if (known?.identity === identity) return {installs: [...known.installs]}
    bytes = readBytes(fd, Number(stat.size))
  } catch {
    return {installs: []}
  } finally {
    closeSync(fd)
  }
  const spans = recordSpans(bytes)
  const reading: Reading = {identity, installs: []}
  if (!spans || !readLines(file, bytes, spans, reading, scope, hold)) {
    let data: {installs?: unknown}
    try {
      data = JSON.parse(bytes.toString('utf8')) as typeof data
    } catch (error) {
      throw validationFailed('state-not-json', `${file} is not valid JSON (${(error as Error).message}); fix or remove it`)
    }
    const parsed = Array.isArray(data?.installs) ? (data.installs as unknown[]) : []
    const installs = reading.installs as InstallRecord[]
    installs.length = 0
    for (const r of parsed) installs.push(fileRecord(r as Record<string, unknown>, scope))
  }
  lastRead.set(file, reading)
  return {installs: [...reading.installs]}
}

/** A record's line: its plugin and target first, where held-lines.ts reads them, the rest sorted. */
const recordJson = (record: InstallRecord): string => {
  const {plugin, target, ...rest} = record
  return sortedJsonAfter({plugin, target}, rest)
}

/** Writes the user state in lines (see HEAD): a record read back or written before keeps its line. */
const writeUserState = (file: string, records: readonly InstallRecord[]): void => {
  // the lines serialised anew, kept as the lines of their records once written
  const written = new Array<string | undefined>(records.length)
  const pieces: Array<string | Uint8Array> = [HEAD]
  // lines that lay next to each other in the bytes read go as one piece, the BETWEEN there with them
  let run: Buffer | undefined
  let runStart = 0
  let runEnd = 0
  const endRun = () => {
    if (run) pieces.push(run.subarray(runStart, runEnd))
    run = undefined
  }
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!
    const held = heldOf(record)
    let bytes: Buffer | undefined
    let start = 0
    let end = 0
    if (held && held.index >= 0) {
      bytes = held.lines.bytes
      start = held.lines.starts[held.index]!
      end = held.lines.ends[held.index]!
    } else {
      const line = lineOf.get(record)?.line
      if (typeof line === 'object') ({bytes, start, end} = line)
      else written[i] = line ?? recordJson(record)
    }
    if (bytes && run === bytes && start === runEnd + BETWEEN.length) {
      runEnd = end
      continue
    }
    endRun()
    if (i > 0) pieces.push(BETWEEN)
    if (bytes) [run, runStart, runEnd] = [bytes, start, end]
    else pieces.push(written[i]!)
  }
  endRun()
  pieces.push(TAIL)
  writePiecesAtomic(file, pieces)
  // read back, this file gives these records: kept as its reading (under the lock, no other run writes it)
  let identity: string
  try {
    identity = identityOf(statSync(file, {bigint: true}))
  } catch {
    return
  }
  const reading: Reading = {identity, installs: records}
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!
    const held = heldOf(record)
    if (held && held.index >= 0) held.reading = reading
    else lineOf.set(record, {line: written[i] ?? lineOf.get(record)!.line, reading})
  }
  lastRead.set(file, reading)
}

/** Every install record of the user state and of the project's lock, paths absolute. */
export const readInstallRecords = (env: Environment, projectRoot: string): InstallRecord[] => {
  const locked = readState(projectLockFile(projectRoot)).installs
  checkLockRecords(projectRoot, locked)
  return [
    ...readState(userStateFile(env), 'user', env.holdRecordLines === true).installs,
    ...locked.map((r) => mapPaths({...r, scope: 'project' as const}, (p) => toAbsolute(projectRoot, p))),
  ]
}

/**
 * The order String#localeCompare gives (ICU's root collation): for ids made of lower-case letters,
 * digits and `_-.@` alone, that is the order of each character's rank in RANK (punctuation first, then
 * digits, then letters; held equal to Intl.Collator by test/unit/state-read.test.ts), which spares
 * the collator: making one costs 10-20 ms of CPU, and comparing through it 1,000 records is as much again.
 * Any other character (upper case, non-ASCII) asks the collator, made on first need.
 */
const ORDER = '_-.@0123456789abcdefghijklmnopqrstuvwxyz'
const RANK = new Int8Array(128).fill(-1)
for (let i = 0; i < ORDER.length; i++) RANK[ORDER.charCodeAt(i)] = i
let collator: Intl.Collator | undefined

// wholly of ORDER's characters (a regular expression: a loop over the characters costs 1,000 records milliseconds)
const RANKED = /^[-_.@0-9a-z]*$/

// both wholly of RANK's characters: each has one weight of its own, so the first difference decides, and a prefix goes first
const rankCompare = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const d = RANK[a.charCodeAt(i)]! - RANK[b.charCodeAt(i)]!
    if (d !== 0) return d
  }
  return a.length - b.length
}

/** String#localeCompare's order, by RANK where it decides, else by the collator. */
export const compareIds = (a: string, b: string): number => {
  if (a === b) return 0
  if (RANKED.test(a) && RANKED.test(b)) return Math.sign(rankCompare(a, b))
  return (collator ??= new Intl.Collator()).compare(a, b)
}

const byRecord = (a: InstallRecord, b: InstallRecord): number => compareIds(a.plugin, b.plugin) || compareIds(a.target, b.target)

const sortRecords = (records: readonly InstallRecord[]): readonly InstallRecord[] => {
  // records read back are in order already (a change removes some or adds a few): one pass says so,
  // where two held lines that lay in this order in the file they were read from are taken as they lay
  for (let i = 1; i < records.length; i++)
    if (!heldInOrder(records[i - 1]!, records[i]!) && byRecord(records[i - 1]!, records[i]!) > 0) return [...records].sort(byRecord)
  return records
}

const isSorted = (list: readonly string[]): boolean => {
  for (let i = 1; i < list.length; i++) if (list[i - 1]! > list[i]!) return false
  return true
}

/**
 * A folder loadout created (`.claude/skills`) is listed by every record with something below it, not
 * only by whichever install happened to create it: the records then do not depend on the order of
 * the installs (a fresh clone installs in another order and gets the same lock), and the folder stays
 * until the last install below it is removed.
 */
const shareCreatedDirs = (records: readonly InstallRecord[]): readonly InstallRecord[] => {
  const settled = settledRecords(records)
  if (settled === 'all') return records
  const created = createdAmong(records)
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
    if (settled(r)) return r
    const dirs = new Set(r.dirs)
    const share = (path: string) => {
      for (const d of createdAtOrAbove(dirname(path))) dirs.add(d)
    }
    for (const f of r.files) share(f.path)
    for (const d of r.dirs) share(d)
    for (const c of r.config) share(c.file)
    // as it was (the usual case once written): the record itself, not a copy
    if (dirs.size === r.dirs.length && isSorted(r.dirs)) return r
    return {...r, dirs: [...dirs].sort()}
  })
}

/**
 * The records that need no share of created folders: those of one reading of the user state, written
 * with theirs shared among all its records, when every other record (new, or changed since) brings no
 * folder anew above one of their paths (a new skill's own folder lies above nothing recorded before).
 * Such a record lists every created folder above its paths already, and no new one is above them.
 */
const settledRecords = (records: readonly InstallRecord[]): 'all' | ((r: InstallRecord) => boolean) => {
  let reading: Reading | undefined
  const fresh: InstallRecord[] = []
  // by index: a for-of makes an iterator result a step until V8 optimises the loop (see below)
  for (let i = 0; i < records.length; i++) {
    const of = readingOf(records[i]!)
    if (!of) fresh.push(records[i]!)
    else if (!reading) reading = of
    else if (of !== reading) return () => false
  }
  if (!reading) return () => false
  if (fresh.length === 0) return 'all'
  const held = (reading.created ??= createdAmong(reading.installs))
  const anew = new Set<string>()
  for (const r of fresh) for (const d of r.dirs) if (!held.has(d)) anew.add(d)
  if (anew.size > 0) {
    const prefixes = [...anew].map((d) => (d.endsWith(sep) ? d : `${d}${sep}`))
    const texts = prefixes.map((p) => jsonText(p, true))
    if (records.some((r) => readingOf(r) !== undefined && sharesBelow(r, prefixes, texts))) return () => false
  }
  return (r) => readingOf(r) !== undefined
}

// The two walks below run over every record of a write (1,000 records, 3,000 folders) and are indexed
// loops: until V8 optimises a loop, a for-of or a callback allocates an iterator result or a closure
// per step, ~1 MB over 1,000 records, which costs an install among them a scavenge of the young heap.

/** Whether a path the record shares folders for (a file, a folder, a config file) lies below a folder of `prefixes` (each ending in a separator). */
const sharesBelow = (record: InstallRecord, prefixes: readonly string[], texts: readonly string[]): boolean => {
  // a record held unparsed whose line holds no string beginning with a prefix (`texts`, as JSON) has no path below it
  if (!texts.some((text) => mayHold(record, text))) return false
  const {files, dirs, config} = record
  for (let i = 0; i < files.length; i++) if (startsWithAny(files[i]!.path, prefixes)) return true
  for (let i = 0; i < dirs.length; i++) if (startsWithAny(dirs[i]!, prefixes)) return true
  for (let i = 0; i < config.length; i++) if (startsWithAny(config[i]!.file, prefixes)) return true
  return false
}

const startsWithAny = (path: string, prefixes: readonly string[]): boolean => {
  for (let i = 0; i < prefixes.length; i++) if (path.startsWith(prefixes[i]!)) return true
  return false
}

/** Whether any of the records lists `dir` as created; a record held unparsed whose line does not hold it is passed over. */
const createdBy = (records: readonly InstallRecord[], dir: string): boolean => {
  const text = jsonText(dir)
  for (let i = 0; i < records.length; i++) if (mayHold(records[i]!, text) && records[i]!.dirs.includes(dir)) return true
  return false
}

/** Which folders the records list as created, asked folder by folder (memoised): not every record's folders walked. */
const createdAmong = (records: readonly InstallRecord[]): {has(dir: string): boolean} => {
  const known = new Map<string, boolean>()
  return {
    has: (dir) => {
      let found = known.get(dir)
      if (found === undefined) known.set(dir, (found = createdBy(records, dir)))
      return found
    },
  }
}

/**
 * Writes the records of one scope: the user state file, or loadout.lock with project-relative paths
 * (sorted keys, no timestamps, so the lock is deterministic and diffable).
 */
export const writeInstallRecords = (env: Environment, projectRoot: string, scope: Scope, records: InstallRecord[]): void => {
  const user = records.filter((r) => r.scope === 'user')
  // forgotten first: a lock written is read again from the file, a removed file's inode may be the next
  // one's; the user state written becomes its own reading (writeUserState)
  lastRead.delete(scope === 'user' ? userStateFile(env) : projectLockFile(projectRoot))
  // no install left: no state file or lock, as before the first one (a missing file reads as no installs)
  if (scope === 'user' && user.length === 0) rmSync(userStateFile(env), {force: true})
  else if (scope === 'user') writeUserState(userStateFile(env), shareCreatedDirs(sortRecords(user)))
  else if (!records.some((r) => r.scope === 'project')) rmSync(projectLockFile(projectRoot), {force: true})
  else writeJsonFile(projectLockFile(projectRoot), lockContent(projectRoot, records))
}

/** What loadout.lock holds for these records (the project-scope ones), as it would be written. */
// keys in sorted order (installs, version), as stableStringify writes them: then it need not copy the records to sort them
export const lockContent = (projectRoot: string, records: readonly InstallRecord[]): {installs: InstallRecord[]; version: 1} => ({
  installs: shareCreatedDirs(sortRecords(records.filter((r) => r.scope === 'project'))).map((r) => mapPaths(r, (p) => toRelative(projectRoot, p))),
  version: 1,
})

/** Answers "which plugin installed this path?" from the user state and the project's lock. */
export interface Ownership {
  ownerOf(path: string): string | undefined
}

// an absolute path with no empty, `.` or `..` segment and no trailing slash: what resolve() gives back unchanged
const NOT_RESOLVED = /\/\/|\/\.\.?(?:\/|$)|.\/$/
const resolved = (path: string): string => (sep === '/' && path.startsWith('/') && !NOT_RESOLVED.test(path) ? path : resolve(path))

/** Questions answered by a walk of the owned paths before the index is built. */
const SCANNED_QUESTIONS = 4

export const ownershipFrom = (records: readonly InstallRecord[]): Ownership => {
  // made on the first question: many commands that take an Ownership ask none. Every owned path once,
  // in the order first recorded, with the owner that recorded it last (what a Map set record by record
  // holds), as two arrays walked by index (see sharesBelow on the loops)
  let owned: {paths: string[]; plugins: string[]} | undefined
  const ownedPaths = (): {paths: string[]; plugins: string[]} => {
    const owners = new Map<string, string>()
    // the recorded paths are loadout's own, absolute and normal: resolved only when they are not (1,000 installs hold thousands)
    for (let i = 0; i < records.length; i++) {
      const {files, dirs, plugin} = records[i]!
      for (let j = 0; j < files.length; j++) owners.set(resolved(files[j]!.path), plugin)
      for (let j = 0; j < dirs.length; j++) owners.set(resolved(dirs[j]!), plugin)
    }
    owned = {paths: Array.from(owners.keys()), plugins: Array.from(owners.values())}
    return owned
  }
  // the owner of the first owned path at or below `path` (in record order), by a walk of the owned
  // paths: for the few questions most commands ask, cheaper than the index below (~30,000 entries
  // for 1,000 installs)
  const scan = (path: string): string | undefined => {
    // a root's prefix (`//`) is no normal path's: no owner, as the index has none
    const prefix = `${path}${sep}`
    const {paths, plugins} = owned ?? ownedPaths()
    for (let i = 0; i < paths.length; i++) if (paths[i] === path || paths[i]!.startsWith(prefix)) return plugins[i]
    return undefined
  }
  let asked = 0
  // every owned path and each of its folders, to the owner of the first owned path at or below it
  // (in record order): one lookup per question instead of a scan of every recorded path
  let below: Map<string, string> | undefined
  const index = (): Map<string, string> => {
    below = new Map()
    const {paths, plugins} = owned ?? ownedPaths()
    for (let i = 0; i < paths.length; i++) {
      for (let p = paths[i]!; ;) {
        // a folder already there came with its own folders, from a path before this one
        if (below.has(p)) break
        below.set(p, plugins[i]!)
        const up = dirname(p)
        if (up === p || dirname(up) === up) break
        p = up
      }
    }
    return below
  }
  return {
    ownerOf: (path: string) => {
      const at = resolved(path)
      if (below) return below.get(at)
      return ++asked <= SCANNED_QUESTIONS ? scan(at) : index().get(at)
    },
  }
}

/**
 * Paths other installs still record, which removing one install must leave alone: of `records`' files
 * and folders, those that the installs `among` (the ones going) record too, when given, which is all
 * removing them asks about.
 */
export const pathsRecordedBy = (records: readonly InstallRecord[], among?: readonly InstallRecord[]): Set<string> => {
  const paths = new Set<string>()
  if (among) {
    for (const [folder, group] of byFolder(pathsOf(among))) {
      // a folder below which no record holds a path passes its paths over, records held unparsed unparsed
      // a folder below which no record holds a path: its paths passed over at once (a plugin's files lie
      // in a few folders of its own), the records held unparsed unparsed
      const below = folder && jsonText(folder.endsWith(sep) ? folder : `${folder}${sep}`, true)
      if (below && !records.some((r) => mayHold(r, below))) continue
      for (const path of group) {
        const text = jsonText(path)
        if (records.some((r) => mayHold(r, text) && recordsPath(r, path))) paths.add(path)
      }
    }
    return paths
  }
  // by index, as sharesBelow: every record's paths
  for (let i = 0; i < records.length; i++) {
    const {files, dirs} = records[i]!
    for (let j = 0; j < files.length; j++) paths.add(files[j]!.path)
    for (let j = 0; j < dirs.length; j++) paths.add(dirs[j]!)
  }
  return paths
}

const recordsPath = (record: InstallRecord, path: string): boolean => record.dirs.includes(path) || record.files.some((f) => f.path === path)

const byFolder = (paths: Iterable<string>): Map<string, string[]> => {
  const groups = new Map<string, string[]>()
  for (const path of paths) {
    // a relative path (a state edited by hand) is asked of every record
    const folder = isAbsolute(path) ? dirname(path) : ''
    const group = groups.get(folder)
    if (group) group.push(path)
    else groups.set(folder, [path])
  }
  return groups
}

/** Every path a removal of these records looks up in pathsRecordedBy's answer: files, folders and trees. */
const pathsOf = (records: readonly InstallRecord[]): Set<string> => {
  const paths = new Set<string>()
  for (const r of records) {
    for (const f of r.files) paths.add(f.path)
    for (const d of r.dirs) paths.add(d)
    for (const t of r.trees ?? []) paths.add(t)
  }
  return paths
}

export const loadOwnership = (env: Environment, projectRoot: string): Ownership => ownershipFrom(readInstallRecords(env, projectRoot))
