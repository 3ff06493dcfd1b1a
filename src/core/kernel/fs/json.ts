import {readFileSync} from 'node:fs'
import {errnoCode, validationFailed} from '../../model/errors.js'
import {writeFileAtomic} from './write.js'
import {surelyMissing} from './exists.js'

/** JSON with object keys sorted at every level, two-space indented, ending in a newline. */
export const stableStringify = (value: unknown): string => `${JSON.stringify(inOrder(value), null, 2)}\n`

/** `first`'s keys in its order, then `rest`'s sorted at every level (`rest` holds none of `first`'s keys), on one line. */
export const sortedJsonAfter = (first: Record<string, unknown>, rest: object): string => JSON.stringify({...first, ...(inOrder(rest) as object)})

// An array index ("0", "10"): a plain object holds those first, ascending, whatever order they were added in.
const isIndex = (key: string): boolean => String(Number(key) >>> 0) === key && key !== '4294967295'

const keysSorted = (keys: readonly string[]): boolean => {
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!) && !isIndex(keys[i - 1]!)) return false
  return true
}

/**
 * `v` with its object keys sorted at every level: `v` itself when JSON.stringify of it already gives
 * that text (every object a plain one whose other keys follow its indices in sorted order), else a copy
 * of only the parts that are not, the rest shared. What loadout reads back from a file it wrote is in
 * order, so the ~3 MB user state of 1,000 installs is not copied on every change, nor when one new
 * record is not.
 */
const inOrder = (v: unknown): unknown => {
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i]
      const sorted = item !== null && typeof item === 'object' ? inOrder(item) : item
      if (sorted !== item) (copy ??= v.slice())[i] = sorted
    }
    return copy ?? v
  }
  if (!v || typeof v !== 'object') return v
  const plain = Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null
  const keys = Object.keys(v)
  const record = v as Record<string, unknown>
  let changed = !plain || !keysSorted(keys)
  const values = new Array<unknown>(keys.length)
  for (let i = 0; i < keys.length; i++) {
    const item = record[keys[i]!]
    const sorted = item !== null && typeof item === 'object' ? inOrder(item) : item
    values[i] = sorted
    if (sorted !== item) changed = true
  }
  if (!changed) return v
  const byKey = new Map(keys.map((k, i) => [k, values[i]]))
  return Object.fromEntries([...keys].sort().map((k) => [k, byKey.get(k)]))
}

/** Reads a JSON file of loadout's own; a missing file is `fallback`, a broken one a clear error. */
export const readJsonFile = <T>(path: string, fallback: T): T => {
  if (surelyMissing(path)) return fallback
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return fallback
    throw error
  }
  try {
    return JSON.parse(text) as T
  } catch (error) {
    throw validationFailed('state-not-json', `${path} is not valid JSON (${(error as Error).message}); fix or remove it`)
  }
}

export const writeJsonFile = (path: string, value: unknown): void => writeFileAtomic(path, stableStringify(value))
