import {readFileSync} from 'node:fs'
import {errnoCode, validationFailed} from '../../model/errors.js'
import {writeFileAtomic} from './write.js'

/** JSON with object keys sorted at every level, two-space indented, ending in a newline. */
export const stableStringify = (value: unknown): string => `${JSON.stringify(keysInOrder(value) ? value : sortedCopy(value), null, 2)}\n`

const sortedCopy = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(sortedCopy)
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortedCopy((v as Record<string, unknown>)[k])]),
    )
  }
  return v
}

// An array index ("0", "10"): a plain object holds those first, ascending, whatever order they were added in.
const isIndex = (key: string): boolean => String(Number(key) >>> 0) === key && key !== '4294967295'

/**
 * Whether JSON.stringify of `v` itself gives the text of its sorted copy: every object at every level
 * a plain one whose other keys follow its indices in sorted order. What loadout reads back from a file
 * it wrote is so, and then the ~3 MB user state of 1,000 installs is not copied on every change.
 */
const keysInOrder = (v: unknown): boolean => {
  if (Array.isArray(v)) return v.every(keysInOrder)
  if (!v || typeof v !== 'object') return true
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return false
  const keys = Object.keys(v)
  for (let i = 1; i < keys.length; i++) if (!(keys[i - 1]! < keys[i]!) && !isIndex(keys[i - 1]!)) return false
  for (const k of keys) if (!keysInOrder((v as Record<string, unknown>)[k])) return false
  return true
}

/** Reads a JSON file of loadout's own; a missing file is `fallback`, a broken one a clear error. */
export const readJsonFile = <T>(path: string, fallback: T): T => {
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
