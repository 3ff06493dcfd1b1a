import {readFileSync} from 'node:fs'
import {errnoCode, validationFailed} from '../../model/errors.js'
import {writeFileAtomic} from './write.js'

/** JSON with object keys sorted at every level, two-space indented, ending in a newline. */
export const stableStringify = (value: unknown): string => {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort)
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      )
    }
    return v
  }
  return `${JSON.stringify(sort(value), null, 2)}\n`
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
