import {randomBytes} from '../crypto/node-crypto.js'
import {closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {removeEntry} from './exists.js'
import {errnoCode, EXIT, explainIoError, LoadoutError} from '../../model/errors.js'
import {assertNoLinksBelow} from './contain.js'
import {failpoint} from '../env/failpoint.js'

/** The name of a temporary sibling of `path`: `.<name>.loadout-<tag>-<8 hex>`, which recovery knows to sweep. */
export const tmpName = (path: string, tag: string, id = randomBytes(4).toString('hex')) => join(dirname(path), `.${basename(path)}.loadout-${tag}-${id}`)

/** Matches the names `tmpName` makes. */
export const TEMP_NAME = /^\..+\.loadout-(tmp|stage|old|del)-[0-9a-f]{8}$/

/** Creates `path` and its missing parents below `root` as real folders, refusing links on the way. */
export const ensureDirBelow = (root: string, path: string): void => {
  assertNoLinksBelow(root, path)
  mkdirSync(path, {recursive: true})
}

/** Writes a file by writing a temporary sibling and renaming it over the destination. */
export const writeFileAtomic = (path: string, data: string | Uint8Array, mode = 0o644): void =>
  stagedRename(path, (tmp) => writeFileSync(tmp, data, {mode, flag: 'wx'}))

/**
 * writeFileAtomic for a file made of many pieces (the user state's lines, ~1 MB for 1,000 installs):
 * text is encoded into one 64 KB block at a time, so it is never joined nor encoded whole (each whole
 * copy is memory the process touches for the first time, a page fault every 4 KB); bytes (lines kept
 * as read) go into the block when they fit and are written as they are when they do not.
 */
export const writePiecesAtomic = (path: string, pieces: ReadonlyArray<string | Uint8Array>, mode = 0o644): void =>
  stagedRename(path, (tmp) => {
    const fd = openSync(tmp, 'wx', mode)
    try {
      const block = Buffer.allocUnsafe(BLOCK)
      let used = 0
      const flush = () => {
        writeBytes(fd, block, used)
        used = 0
      }
      for (const piece of pieces) {
        if (typeof piece !== 'string') {
          if (used + piece.length > BLOCK) flush()
          if (piece.length > BLOCK) writeBytes(fd, piece, piece.length)
          else {
            block.set(piece, used)
            used += piece.length
          }
          continue
        }
        // a UTF-16 unit is at most 3 bytes of UTF-8: a piece that may not fit goes after a flush, or alone
        if (used + piece.length * 3 > BLOCK) flush()
        if (piece.length * 3 > BLOCK) {
          const bytes = Buffer.from(piece)
          writeBytes(fd, bytes, bytes.length)
        } else used += block.write(piece, used)
      }
      flush()
    } finally {
      closeSync(fd)
    }
  })

const BLOCK = 64 * 1024

/** The first `length` bytes of `bytes`, however many writes the system takes for them. */
const writeBytes = (fd: number, bytes: Uint8Array, length: number): void => {
  for (let done = 0; done < length;) done += writeSync(fd, bytes, done, length - done)
}

/** Writes `path`'s temporary sibling with `write`, then renames it over `path`; on failure the sibling goes. */
const stagedRename = (path: string, write: (tmp: string) => void): void => {
  const tmp = tmpName(path, 'tmp')
  try {
    write(tmp)
    failpoint('write.staged')
    renameSync(tmp, path)
    failpoint('write.renamed')
  } catch (error) {
    removeEntry(tmp)
    throw explainIoError(error, path)
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
      failpoint('swap.aside')
    } catch {
      aside = undefined
    }
  }
  try {
    renameSync(staging, destination)
    failpoint('swap.in')
  } catch (error) {
    if (aside) renameSync(aside, destination)
    removeEntry(staging)
    throw error
  }
  if (aside) removeEntry(aside)
}

/**
 * Removes a file or folder, if it is there, by renaming it aside (one atomic step) and then deleting
 * it: a run killed mid-way leaves a `.loadout-del-` name, which is garbage, never half of the folder
 * under its own name for the next run to take for whole.
 */
export const removeAside = (path: string): void => {
  const aside = tmpName(path, 'del')
  try {
    renameSync(path, aside)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return
    throw error
  }
  failpoint('remove.aside')
  rmSync(aside, {recursive: true, force: true})
}

/**
 * Removes the entries of `dir` that `doomed` picks by name (and path): the leftovers of killed runs.
 * A folder that cannot be read is left alone.
 */
export const removeEntries = (dir: string, doomed: (name: string, path: string) => boolean): void => {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const path = join(dir, name)
    if (doomed(name, path)) rmSync(path, {recursive: true, force: true})
  }
}

/** A name `removeAside` gave what it was deleting: garbage whenever it is seen. */
export const isRemovedLeftover = (name: string): boolean => TEMP_NAME.test(name) && name.includes('.loadout-del-')

/** Kept for the authoring commands: the same as `explainIoError`. */
export const explainWriteError = (error: unknown, path?: string): unknown => explainIoError(error, path)

/**
 * A config file the user took the write bit off is theirs to keep as it is: renaming a new file over
 * it would succeed (the folder is writable) and silently undo their choice, so it is refused.
 */
export const assertWritableFile = (path: string): void => {
  let mode: number
  try {
    mode = statSync(path).mode
  } catch {
    return
  }
  if ((mode & 0o222) === 0) {
    throw new LoadoutError(
      'file-read-only',
      EXIT.io,
      `cannot change ${path}: it is read-only (mode ${(mode & 0o777).toString(8)}); loadout will not replace it`,
      {
        suggestions: [`make it writable (chmod u+w ${path}) if loadout may change it, or choose another --agent`],
      },
    )
  }
}

const STALE_MS = 60 * 60 * 1000

/**
 * Picks the entries named `prefix…` that have not changed for an hour: the staging or download
 * folder of a run that was killed (a live run's is younger, and its name is its own).
 */
export const staleWithPrefix =
  (prefix: string) =>
  (name: string, path: string): boolean => {
    if (!name.startsWith(prefix)) return false
    try {
      return Date.now() - statSync(path).mtimeMs > STALE_MS
    } catch {
      return false
    }
  }
