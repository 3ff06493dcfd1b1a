import {lstatSync, rmSync, statSync, unlinkSync} from 'node:fs'
import {errnoCode} from '../../model/errors.js'

/** Whether anything is at `path`, a link (even a dangling one) included: the name is looked at, never followed. */
export const entryExists = (path: string): boolean => {
  try {
    return lstatSync(path, {throwIfNoEntry: false}) !== undefined
  } catch {
    return false
  }
}

/**
 * Whether nothing is at `path` (ENOENT), following links: asked before reading a file that is often
 * absent, whose failed open would throw (an error's stack costs more than the question). Any other
 * failure answers false, so that the read itself says what is wrong.
 */
export const surelyMissing = (path: string): boolean => {
  try {
    return statSync(path, {throwIfNoEntry: false}) === undefined
  } catch {
    return false
  }
}

/**
 * Removes whatever is at `path`, a folder with all it holds, as `rmSync(path, {recursive: true,
 * force: true})` does; nothing there is no error. A file or link is unlinked and an absent path only
 * looked at: Node loads its recursive remover at a run's first rmSync, which most runs never need.
 */
export const removeEntry = (path: string): void => {
  const stat = lstatSync(path, {throwIfNoEntry: false})
  if (stat === undefined) return
  if (stat.isDirectory()) return rmSync(path, {recursive: true, force: true})
  try {
    unlinkSync(path)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
}
