import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../environment.js'
import {writeFileAtomic} from '../fs/write.js'
import {PACKAGE_ROOT} from '../package-root.js'
import type {Problem} from '../problems.js'
import type {KnownMarketplace} from './known.js'

/**
 * A compact, already-validated copy of one cached catalog for `search`: the summary of each plugin,
 * in catalog order. It is keyed by the catalog file's identity (path, size, mtime, inode), the
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

interface IndexFile {
  key: string
  plugins: IndexedPlugin[]
}

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
    return JSON.stringify([2, versionOf(), m.catalogFile, m.root ?? '', m.source.kind, s.size, s.mtimeMs, s.ino, s.ctimeMs])
  } catch {
    return undefined
  }
}

const indexPath = (m: KnownMarketplace, env: Environment): string =>
  join(loadoutPaths(env).cache, 'search-index', `${createHash('sha256').update(m.catalogFile).digest('hex').slice(0, 32)}.json`)

const isString = (v: unknown): v is string => typeof v === 'string'
const optionalString = (v: unknown): boolean => v === undefined || isString(v)

const wellFormed = (p: unknown): p is IndexedPlugin => {
  if (typeof p !== 'object' || p === null) return false
  const e = p as Record<string, unknown>
  return (
    isString(e.name) && isString(e.source) && typeof e.supported === 'boolean' &&
    optionalString(e.description) && optionalString(e.version) && optionalString(e.category) &&
    Array.isArray(e.keywords) && e.keywords.every(isString) &&
    Array.isArray(e.problems) && e.problems.every((x) => typeof x === 'object' && x !== null && ((x as {severity?: unknown}).severity === 'error' || (x as {severity?: unknown}).severity === 'warning') && isString((x as {code?: unknown}).code) && isString((x as {message?: unknown}).message))
  )
}

/** The index of this marketplace's catalog when it is there and matches the catalog file; else undefined. */
export const readSearchIndex = (m: KnownMarketplace, env: Environment): IndexedPlugin[] | undefined => {
  const key = keyOf(m)
  if (!key) return undefined
  try {
    const data = JSON.parse(readFileSync(indexPath(m, env), 'utf8')) as Partial<IndexFile>
    if (data?.key !== key || !Array.isArray(data.plugins) || !data.plugins.every(wellFormed)) return undefined
    return data.plugins
  } catch {
    return undefined
  }
}

/** Writes the index of a catalog just read; a cache that cannot be written is skipped silently. */
export const writeSearchIndex = (m: KnownMarketplace, env: Environment, plugins: IndexedPlugin[]): void => {
  const key = keyOf(m)
  if (!key) return
  try {
    const file = indexPath(m, env)
    mkdirSync(join(loadoutPaths(env).cache, 'search-index'), {recursive: true})
    writeFileAtomic(file, JSON.stringify({key, plugins} satisfies IndexFile))
  } catch {
    // only slower next time
  }
}
