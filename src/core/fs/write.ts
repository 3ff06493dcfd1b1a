import {randomBytes} from 'node:crypto'
import {mkdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {errnoCode, EXIT, LoadoutError} from '../errors.js'
import {assertNoLinksBelow} from './contain.js'

const tmpName = (path: string, tag: string) => join(dirname(path), `.${basename(path)}.loadout-${tag}-${randomBytes(4).toString('hex')}`)

/** Creates `path` and its missing parents below `root` as real folders, refusing links on the way. */
export const ensureDirBelow = (root: string, path: string): void => {
  assertNoLinksBelow(root, path)
  mkdirSync(path, {recursive: true})
}

/** Writes a file by writing a temporary sibling and renaming it over the destination. */
export const writeFileAtomic = (path: string, data: string | Uint8Array, mode = 0o644): void => {
  const tmp = tmpName(path, 'tmp')
  try {
    writeFileSync(tmp, data, {mode, flag: 'wx'})
    renameSync(tmp, path)
  } catch (error) {
    rmSync(tmp, {force: true})
    throw error
  }
}

/** A fresh, empty folder beside `destination`, to be filled and then swapped in. */
export const stagingDirFor = (destination: string): string => {
  const staging = tmpName(destination, 'stage')
  mkdirSync(staging, {mode: 0o755})
  return staging
}

/**
 * Moves a filled staging folder into place. An existing destination is renamed aside first and
 * removed last, so a crash leaves either the old folder or the new one, never half of each.
 */
export const swapDirectoryIn = (staging: string, destination: string, replace: boolean): void => {
  let aside: string | undefined
  if (replace) {
    aside = tmpName(destination, 'old')
    try {
      renameSync(destination, aside)
    } catch {
      aside = undefined
    }
  }
  try {
    renameSync(staging, destination)
  } catch (error) {
    if (aside) renameSync(aside, destination)
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
  if (aside) rmSync(aside, {recursive: true, force: true})
}

/** Removes a folder by renaming it aside (one atomic step for the agent) and then deleting it. */
export const removeDirectory = (path: string): void => {
  const aside = tmpName(path, 'del')
  renameSync(path, aside)
  rmSync(aside, {recursive: true, force: true})
}

/**
 * A folder the user may not change is theirs to fix, not a bug in loadout: EACCES, EPERM and EROFS
 * become an error naming the path. Anything else passes through unchanged.
 */
export const explainWriteError = (error: unknown): unknown => {
  const code = errnoCode(error)
  if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return error
  const path = typeof error === 'object' && error !== null && 'path' in error && typeof error.path === 'string' ? error.path : 'a folder'
  const why = code === 'EROFS' ? 'the file system is read-only' : 'permission denied'
  return new LoadoutError('permission-denied', EXIT.conflict, `cannot change ${path}: ${why}`, {
    suggestions: ['check the owner and permissions of that folder, or choose another --scope or --agent'],
  })
}
