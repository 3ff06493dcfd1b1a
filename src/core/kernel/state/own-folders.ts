/**
 * The folders loadout made for its own config, cache and data (`~/.config`, `~/.local/share`, ... and
 * the `loadout` folders in them), so that once nothing of loadout's is left in them they go too, and
 * HOME is as it was before the first install.
 *
 * Before a change takes the lock, the folders on the way to each of loadout's roots that do not exist
 * yet are noted; under the lock, those that exist by then are added to `created-folders.json` in
 * loadout's config. After the
 * change, when loadout's data and cache hold nothing and its config holds only that record, the record
 * goes, and each folder it names is removed if it is empty (deepest first). The record is read as
 * untrusted: only a folder strictly inside HOME on the way to one of loadout's roots is ever removed,
 * and only when empty.
 */
import {existsSync, readdirSync, rmdirSync, rmSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {readJsonFile, writeJsonFile} from '../fs/json.js'
import {isInside} from '../fs/contain.js'

const RECORD = 'created-folders.json'

const recordFile = (env: Environment): string => join(loadoutPaths(env).config, RECORD)

const roots = (env: Environment): string[] => Object.values(loadoutPaths(env))

/** Each root and the folders above it, strictly inside HOME: the only folders this module ever removes. */
const ownChains = (env: Environment): Set<string> => {
  const home = resolve(env.home)
  const chain = new Set<string>()
  for (const root of roots(env)) for (let dir = root; dir !== home && isInside(home, dir) && dir !== dirname(dir); dir = dirname(dir)) chain.add(dir)
  return chain
}

/** The folders on the way to loadout's roots that do not exist now (called before the lock is taken). */
export const missingOwnFolders = (env: Environment): string[] => [...ownChains(env)].filter((dir) => !existsSync(dir))

const readRecord = (env: Environment): string[] => {
  const chain = ownChains(env)
  const listed = readJsonFile<unknown>(recordFile(env), [])
  return Array.isArray(listed) ? listed.filter((p): p is string => typeof p === 'string' && chain.has(p)) : []
}

/**
 * Under the lock: adds those of the folders missing before it was taken that exist now, so they were
 * made by loadout (the lock's own folder once it is taken, the cache and data ones when first used).
 * Called once the lock is taken and again before it is released: a command that made nothing (a
 * refusal) writes no record.
 */
export const noteCreatedFolders = (env: Environment, missing: readonly string[]): void => {
  const made = missing.filter((dir) => existsSync(dir))
  if (made.length === 0) return
  const known = readRecord(env)
  if (made.every((dir) => known.includes(dir))) return
  writeJsonFile(recordFile(env), [...new Set([...known, ...made])].sort())
}

const isEmptyOrAbsent = (dir: string): boolean => {
  try {
    return readdirSync(dir).length === 0
  } catch {
    return !existsSync(dir)
  }
}

/**
 * After a change (the lock released): when loadout keeps nothing (no data, no cache, a config folder
 * holding only the record), the record goes and every folder it names that is empty, deepest first.
 */
export const removeOwnFoldersIfUnused = (env: Environment): void => {
  const {config, cache, data} = loadoutPaths(env)
  if (!existsSync(recordFile(env))) return
  if (!isEmptyOrAbsent(cache) || !isEmptyOrAbsent(data)) return
  if (readdirSync(config).some((name) => name !== RECORD)) return
  const created = readRecord(env)
  rmSync(recordFile(env), {force: true})
  for (const dir of [...created, config, cache, data].sort((a, b) => b.length - a.length)) {
    if (!created.includes(dir)) continue
    try {
      rmdirSync(dir)
    } catch {
      // not empty (something else lives there) or already gone: it stays
    }
  }
}
