import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

/**
 * The installed package's root: the nearest folder above this module that holds the shipped
 * registry beside package.json. Walked up rather than counted, because this module runs both from
 * dist/core/kernel/env/ and from a chunk of the fast-path bundle in dist/fast/.
 */
const findPackageRoot = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'registry', 'agents'))) return dir
    if (dirname(dir) === dir) throw new Error(`loadout: no package root above ${from}`)
  }
}

export const PACKAGE_ROOT = findPackageRoot(import.meta.dirname)
export const REGISTRY_DIR = join(PACKAGE_ROOT, 'registry')
export const TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates')

/** loadout's own version, from its package.json ("0.0.0" when that cannot be read). */
export const packageVersion = (): string => {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version?: string}).version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
}
