/**
 * Where the values of plugins' `userConfig` options live on this machine: plain values in
 * `user-config.json` under loadout's config folder; sensitive ones in `secrets.json` beside it,
 * mode 0600 in a 0700 folder. This Linux box has no OS keychain loadout can use without a native
 * module (no Secret Service session in a headless shell), so the 0600 file is the store; no file
 * loadout writes for an agent ever holds a sensitive value (see substitute.ts).
 */
import {chmodSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {readJsonFile, stableStringify} from '../fs/json.js'
import {writeFileAtomic} from '../fs/write.js'

export type StoredValue = string | number | boolean
type StoreFile = {version: 1; plugins: Record<string, Record<string, StoredValue>>}

export const userConfigFile = (env: Environment): string => join(loadoutPaths(env).config, 'user-config.json')
export const secretsFile = (env: Environment): string => join(loadoutPaths(env).config, 'secrets.json')

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A map with no prototype: `constructor`, `toString` or `__proto__` is a key like any other, never Object's. */
export const emptyMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>

const copyMap = <T>(from: Record<string, T> | undefined): Record<string, T> => Object.assign(emptyMap<T>(), from)

const readStore = (file: string): Record<string, Record<string, StoredValue>> => {
  const data = readJsonFile<unknown>(file, {})
  const plugins = isRecord(data) && isRecord(data.plugins) ? data.plugins : {}
  const out = emptyMap<Record<string, StoredValue>>()
  for (const [id, values] of Object.entries(plugins)) {
    if (!isRecord(values)) continue
    const kept = emptyMap<StoredValue>()
    for (const [key, value] of Object.entries(values)) if (['string', 'number', 'boolean'].includes(typeof value)) kept[key] = value as StoredValue
    out[id] = kept
  }
  return out
}

/** What a map holds at `key` itself, never what its prototype has there. */
export const own = <T>(map: Record<string, T>, key: string): T | undefined => (Object.hasOwn(map, key) ? map[key] : undefined)

const writeStore = (file: string, plugins: Record<string, Record<string, StoredValue>>, secret: boolean): void => {
  const dir = join(file, '..')
  mkdirSync(dir, {recursive: true, ...(secret ? {mode: 0o700} : {})})
  const body: StoreFile = {version: 1, plugins}
  writeFileAtomic(file, stableStringify(body), secret ? 0o600 : 0o644)
  if (secret) chmodSync(file, 0o600)
}

/** The stored values of one plugin: plain and sensitive, by key. */
export const storedValues = (env: Environment, id: string): {plain: Record<string, StoredValue>; secret: Record<string, StoredValue>} => ({
  plain: own(readStore(userConfigFile(env)), id) ?? emptyMap(),
  secret: own(readStore(secretsFile(env)), id) ?? emptyMap(),
})

/** Stores values for one plugin, each in the file its sensitivity says (and out of the other one). */
export const storeValues = (env: Environment, id: string, values: ReadonlyArray<{key: string; value: StoredValue; sensitive: boolean}>): void => {
  if (values.length === 0) return
  const plain = readStore(userConfigFile(env))
  const secret = readStore(secretsFile(env))
  plain[id] = copyMap(own(plain, id))
  secret[id] = copyMap(own(secret, id))
  for (const {key, value, sensitive} of values) {
    delete plain[id]![key]
    delete secret[id]![key]
    ;(sensitive ? secret : plain)[id]![key] = value
  }
  if (values.some((v) => v.sensitive)) writeStore(secretsFile(env), secret, true)
  writeStore(userConfigFile(env), plain, false)
}
