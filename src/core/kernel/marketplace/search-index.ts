import {closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {writeFileAtomic} from '../fs/write.js'
import {PACKAGE_ROOT} from '../env/package-root.js'
import {isProblem, type Problem} from '../../model/problems.js'
import {checksum} from '../text/checksum.js'
import type {KnownMarketplace} from './known.js'

/**
 * A compact, already-validated copy of one cached catalog for `search`: the summary of each plugin,
 * in catalog order, and the text it is searched by. It is keyed by the catalog file's identity (path, size, mtime, inode), the
 * marketplace's source kind and loadout's version, so a catalog fetched again, edited by hand or read
 * by another loadout is read afresh. It is a cache: unreadable, malformed or stale means "read the
 * catalog", never an error.
 */
export interface IndexedPlugin {
  name: string
  description?: string
  version?: string
  category?: string
  keywords: string[]
  source: string
  supported: boolean
  problems: Problem[]
}

/** One plugin as search and info show it: the indexed fields and its id (`name@marketplace`). */
export interface PluginSummary extends IndexedPlugin {
  id: string
}

/** The summary with the id second, where it has always been in the JSON. */
export const withId = ({name, ...rest}: IndexedPlugin, marketplace: string): PluginSummary => ({name, id: `${name}@${marketplace}`, ...rest})

/**
 * The file: a fixed-width first line naming the header's length, the header (one JSON line: the key,
 * and per plugin its searchable text in lower case, its category in lower case and where its entry
 * starts), then one JSON line per plugin. A search parses the header and reads only the entries
 * whose text holds every word, so it costs little more than one pass over the lower-cased text.
 */
interface IndexHeader {
  key: string
  text: string[]
  categories: string[]
  offsets: number[]
}

const MAGIC = 'loadout-search-index 3 '
const LENGTH_DIGITS = 12
const PREFIX_BYTES = MAGIC.length + LENGTH_DIGITS + 1
/** no entry of a catalog under MAX_CATALOG_BYTES needs more; a larger one means a damaged file */
const MAX_ENTRY_BYTES = 4 * 1024 * 1024

let loadoutVersion: string | undefined
const versionOf = (): string => {
  if (loadoutVersion === undefined) {
    try {
      loadoutVersion = String((JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version?: unknown}).version)
    } catch {
      loadoutVersion = 'unknown'
    }
  }
  return loadoutVersion
}

const keyOf = (m: KnownMarketplace): string | undefined => {
  try {
    const s = statSync(m.catalogFile)
    return JSON.stringify([3, versionOf(), m.catalogFile, m.root ?? '', m.source.kind, s.size, s.mtimeMs, s.ino, s.ctimeMs])
  } catch {
    return undefined
  }
}

/** Named by a checksum of the catalog's path: two catalogs that share a name only take turns (the key holds the path). */
const indexPath = (m: KnownMarketplace, env: Environment): string => join(loadoutPaths(env).cache, 'search-index', `${checksum(m.catalogFile)}.idx`)

const isString = (v: unknown): v is string => typeof v === 'string'
const optionalString = (v: unknown): boolean => v === undefined || isString(v)

const wellFormed = (p: unknown): p is IndexedPlugin => {
  if (typeof p !== 'object' || p === null) return false
  const e = p as Record<string, unknown>
  return (
    isString(e.name) &&
    isString(e.source) &&
    typeof e.supported === 'boolean' &&
    optionalString(e.description) &&
    optionalString(e.version) &&
    optionalString(e.category) &&
    Array.isArray(e.keywords) &&
    e.keywords.every(isString) &&
    Array.isArray(e.problems) &&
    e.problems.every(isProblem)
  )
}

/** What a plugin is searched by: the fields scoring looks at, lower-cased, one per line (no word holds a line break). */
export const searchText = (p: IndexedPlugin): string => [p.name, ...p.keywords, p.category ?? '', p.description ?? ''].map((f) => f.toLowerCase()).join('\n')

const readAt = (fd: number, position: number, length: number): string => {
  const buffer = Buffer.alloc(length)
  let done = 0
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done)
    if (n === 0) throw new Error('index cut short')
    done += n
  }
  return buffer.toString('utf8')
}

const wellFormedHeader = (h: Partial<IndexHeader> | null, key: string): h is IndexHeader =>
  h?.key === key &&
  Array.isArray(h.text) &&
  Array.isArray(h.categories) &&
  Array.isArray(h.offsets) &&
  h.text.length === h.categories.length &&
  h.text.length === h.offsets.length

/**
 * From this marketplace's index, when it is there and matches the catalog file: the plugins whose
 * text holds every one of `terms` (and of `category`, when given), in catalog order; a superset of
 * what scoring keeps. Undefined when there is no usable index (missing, stale or damaged).
 */
export const searchIndex = (m: KnownMarketplace, env: Environment, terms: readonly string[], category?: string): IndexedPlugin[] | undefined => {
  const key = keyOf(m)
  if (!key) return undefined
  let fd: number | undefined
  try {
    fd = openSync(indexPath(m, env), 'r')
    const size = fstatSync(fd).size
    const prefix = readAt(fd, 0, PREFIX_BYTES)
    const headerBytes = Number(prefix.slice(MAGIC.length, MAGIC.length + LENGTH_DIGITS))
    if (!prefix.startsWith(MAGIC) || !Number.isSafeInteger(headerBytes) || PREFIX_BYTES + headerBytes > size) return undefined
    const header = JSON.parse(readAt(fd, PREFIX_BYTES, headerBytes)) as Partial<IndexHeader> | null
    if (!wellFormedHeader(header, key)) return undefined
    const body = PREFIX_BYTES + headerBytes
    const wanted = category?.toLowerCase()
    const found: IndexedPlugin[] = []
    for (let i = 0; i < header.text.length; i++) {
      const text = header.text[i]
      if (typeof text !== 'string') return undefined
      if (wanted !== undefined && header.categories[i] !== wanted) continue
      if (!terms.every((t) => text.includes(t))) continue
      const start = header.offsets[i]!
      const end = i + 1 < header.offsets.length ? header.offsets[i + 1]! : size - body
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start || end - start > MAX_ENTRY_BYTES || body + end > size)
        return undefined
      const entry = JSON.parse(readAt(fd, body + start, end - start)) as unknown
      // the entry must be what the text said, or the file was not written by writeSearchIndex
      if (!wellFormed(entry) || searchText(entry) !== text || (entry.category ?? '').toLowerCase() !== header.categories[i]) return undefined
      found.push(entry)
    }
    return found
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Writes the index of a catalog just read; a cache that cannot be written is skipped silently. */
export const writeSearchIndex = (m: KnownMarketplace, env: Environment, plugins: IndexedPlugin[]): void => {
  const key = keyOf(m)
  if (!key) return
  try {
    const entries = plugins.map((p) => `${JSON.stringify(p)}\n`)
    const offsets: number[] = []
    let at = 0
    for (const entry of entries) {
      offsets.push(at)
      at += Buffer.byteLength(entry)
    }
    const header = `${JSON.stringify({key, text: plugins.map(searchText), categories: plugins.map((p) => (p.category ?? '').toLowerCase()), offsets} satisfies IndexHeader)}\n`
    const prefix = `${MAGIC}${String(Buffer.byteLength(header)).padStart(LENGTH_DIGITS, '0')}\n`
    mkdirSync(join(loadoutPaths(env).cache, 'search-index'), {recursive: true})
    const file = indexPath(m, env)
    writeFileAtomic(file, prefix + header + entries.join(''))
    // the JSON index of loadout before this format, if one is left beside it
    rmSync(file.replace(/\.idx$/, '.json'), {force: true})
  } catch {
    // only slower next time
  }
}
