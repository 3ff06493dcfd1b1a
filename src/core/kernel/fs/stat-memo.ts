/**
 * What loadout derived from a file's bytes (its sha256, a SKILL.md read and checked), remembered
 * across runs against the file's metadata, as git's index remembers what a working-tree file held: a
 * file whose device, inode, size, modification time and change time (in nanoseconds) are those it
 * had when it was read is taken to hold what it held then; any other file is read again.
 *
 * - Racy files are not remembered: only a file last changed more than SETTLE_NS before the memo was
 *   opened (before any of its reads began). A later change then gets a later change time, so it can
 *   never look like the file remembered, even within the coarse ticks file systems keep time in (or
 *   FAT's two seconds). Nothing a user does sets the change time back: `touch -d` moves it to now.
 * - Untrusted on read: the file opens with a header naming the memo, its format, loadout's version
 *   and build, and the length of the rest. A header that does not match, a body that does not parse,
 *   an entry not of the expected shape: each is passed over, so a damaged memo costs reading the files
 *   again, never a change unseen: a file is taken as unchanged only when the sha256 remembered for it
 *   is the one recorded at install, which no damage makes by chance. No digest of the memo itself:
 *   node:crypto costs more to load than the memo saves, and a checksum in JavaScript ~10 ms a 200 KB
 *   before the engine optimises it; whoever can write the memo can write the files it describes.
 * - Best effort on write: only when something changed, to a temporary sibling renamed over the memo
 *   (two runs at once: the last rename wins, both whole); a memo that cannot be written is left.
 *   Never under the state's mutex and never read by a change: a memo only ever saves reads.
 * - SKILL.md summaries only for many files: below MEMO_MIN_FILES, reading and parsing them costs
 *   about what reading the memo would. Hashes always: hashing even one file loads node:crypto.
 */
import {closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, type BigIntStats} from 'node:fs'
import {dirname, join} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {PACKAGE_ROOT, packageVersion} from '../env/package-root.js'
import {tmpName} from './write.js'
import {surelyMissing} from './exists.js'
import {fileSha256Sync} from './integrity.js'

/** Fewer SKILL.md files than this are read without a memo. */
export const MEMO_MIN_FILES = 64

const SETTLE_NS = 3_000_000_000n
/** past this, the entries this run did not look at are dropped when the memo is written */
const MAX_ENTRIES = 50_000
/** a memo larger than MAX_ENTRIES can make is not one loadout wrote: not read */
const MAX_MEMO_BYTES = 64 * 1024 * 1024
const FORMAT = 2

/** dev, ino, size, mtimeNs, ctimeNs as decimal text, then the value */
type Entry = [string, string, string, string, string, unknown]

export interface StatMemo<T> {
  /** the value remembered for `key` when `stat` (taken with `{bigint: true}`) is the metadata it was remembered with */
  recall(key: string, stat: BigIntStats): T | undefined
  /** remembers `value`, read from a file whose metadata, taken before reading (on its path or its open descriptor), is `stat` */
  remember(key: string, stat: BigIntStats, value: T): void
  /** writes the memo back when this run changed it; never throws */
  save(): void
}

let build: string | undefined
/** loadout's version and its build (the bundle a build makes anew), so a memo of another build is not read */
const buildStamp = (): string => {
  if (build === undefined) {
    let made = 'source'
    // the fast path's entry, written by every build
    try {
      const s = statSync(join(PACKAGE_ROOT, 'dist', 'fast', 'run.cjs'), {throwIfNoEntry: false})
      if (s) made = `${s.ino}-${s.size}-${s.mtimeMs}`
    } catch {
      // unreadable: the version alone
    }
    build = `${packageVersion()} ${made}`
  }
  return build
}

const identity = (s: BigIntStats): [string, string, string, string, string] => [`${s.dev}`, `${s.ino}`, `${s.size}`, `${s.mtimeNs}`, `${s.ctimeNs}`]

const memoFile = (env: Environment, name: string): string => join(loadoutPaths(env).cache, 'stat-memo', name)

const headerOf = (name: string, body: string): string => `${JSON.stringify({memo: name, format: FORMAT, build: buildStamp(), bytes: body.length})}\n`

/** The entries of a memo file, or none when it is missing, of another build or damaged. */
const readEntries = (file: string, name: string): Record<string, unknown> => {
  let fd: number | undefined
  if (surelyMissing(file)) return {}
  try {
    fd = openSync(file, 'r')
    if (fstatSync(fd).size > MAX_MEMO_BYTES) return {}
    const text = readFileSync(fd, 'utf8')
    const newline = text.indexOf('\n')
    const body = text.slice(newline + 1)
    if (newline < 0 || text.slice(0, newline + 1) !== headerOf(name, body)) return {}
    const entries = JSON.parse(body) as unknown
    return typeof entries === 'object' && entries !== null && !Array.isArray(entries) ? (entries as Record<string, unknown>) : {}
  } catch {
    return {}
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Opens the memo `name` in loadout's cache folder; `isValue` checks each value read back. */
export const openStatMemo = <T>(env: Environment, name: string, isValue: (value: unknown) => value is T): StatMemo<T> => {
  const file = memoFile(env, name)
  const settledBefore = BigInt(Date.now()) * 1_000_000n - SETTLE_NS
  const old = readEntries(file, name)
  const kept = new Map<string, Entry>()
  // entries of the file read that are out of date: not written back
  const stale = new Set<string>()
  let changed = false
  return {
    recall(key, stat) {
      const entry = kept.get(key) ?? (Object.hasOwn(old, key) && !stale.has(key) ? old[key] : undefined)
      if (entry === undefined) return undefined
      const now = identity(stat)
      if (!Array.isArray(entry) || entry.length !== 6 || now.some((field, i) => entry[i] !== field) || !isValue(entry[5])) {
        kept.delete(key)
        stale.add(key)
        return undefined
      }
      kept.set(key, entry as Entry)
      return entry[5]
    },
    remember(key, stat, value) {
      if (stat.ctimeNs >= settledBefore || stat.mtimeNs >= settledBefore) return
      kept.set(key, [...identity(stat), value])
      changed = true
    },
    save() {
      if (!changed) return
      const entries = Object.fromEntries(kept)
      const others = Object.keys(old).filter((k) => !kept.has(k) && !stale.has(k))
      if (kept.size + others.length <= MAX_ENTRIES) for (const k of others) entries[k] = old[k] as Entry
      const body = JSON.stringify(entries)
      const tmp = tmpName(file, 'tmp')
      try {
        mkdirSync(dirname(file), {recursive: true})
        writeFileSync(tmp, headerOf(name, body) + body, {flag: 'wx'})
        renameSync(tmp, file)
      } catch {
        rmSync(tmp, {force: true})
      }
    },
  }
}

const isSha256 = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value)

/** The memo of files' sha256, by path. */
export const openHashMemo = (env: Environment): StatMemo<string> => openStatMemo(env, 'file-sha256', isSha256)

/**
 * The sha256 of the file at `path`: the one remembered when its metadata is as remembered, else read
 * (and remembered); undefined when the file is not there. Other failures are thrown.
 */
export const fileSha256Remembered = (path: string, memo: StatMemo<string>): string | undefined => {
  const stat = statSync(path, {bigint: true, throwIfNoEntry: false})
  if (stat === undefined) return undefined
  const known = stat.isFile() ? memo.recall(path, stat) : undefined
  if (known !== undefined) return known
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    if (!existsSync(path)) return undefined
    throw error
  }
  try {
    const opened = fstatSync(fd, {bigint: true})
    const hash = fileSha256Sync(fd)
    if (opened.isFile()) memo.remember(path, opened, hash)
    return hash
  } finally {
    closeSync(fd)
  }
}
