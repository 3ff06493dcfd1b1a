import {lstatSync, readdirSync, realpathSync, type Dirent, type Stats} from 'node:fs'
import {basename, dirname, isAbsolute, join, relative, resolve, sep} from 'node:path'
import {errnoCode, EXIT, LoadoutError} from '../../model/errors.js'
import {entryPath} from './entry-path.js'

// An absolute POSIX path with no empty, `.` or `..` segment and no trailing `/`: what resolve() returns.
const RESOLVED_POSIX = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/

/** Whether `path` is such a path on a POSIX system: what resolve() would give back unchanged. */
const isResolved = (path: string): boolean => sep === '/' && RESOLVED_POSIX.test(path)

/** True when `path` is `root` or lies below it (lexically; no links are followed). */
export const isInside = (root: string, path: string): boolean => {
  // both resolved already (real paths, and joins below them): the same answer without resolving them
  // again; a first segment starting with `..` is outside, as the relative path's test below has it
  if (isResolved(root) && isResolved(path)) return path === root || (path.startsWith(`${root}/`) && !path.startsWith('..', root.length + 1))
  const rel = relative(resolve(root), resolve(path))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..')
}

/** `resolve(path)`, which a path already resolved is without resolving it again. */
const resolvedOnce = (path: string): string => (isResolved(path) ? path : resolve(path))

/** `relative(root, path)`, without resolving either again when both are resolved and `path` is `root` or below it. */
export const relativeBelow = (root: string, path: string): string => {
  if (isResolved(root) && isResolved(path)) {
    if (path === root) return ''
    if (path.startsWith(`${root}/`)) return path.slice(root.length + 1)
  }
  return relative(root, path)
}

export const unsafePath = (message: string, suggestion?: string): LoadoutError =>
  new LoadoutError('unsafe-path', EXIT.validation, message, {suggestions: suggestion ? [suggestion] : []})

/**
 * Refuses a destination when any existing component from just below `root` down to `path` is a
 * symbolic link, so nothing is ever written or removed through a link. Components that do not
 * exist yet are fine: loadout creates them as real folders.
 */
export const assertNoLinksBelow = (root: string, path: string): void => {
  if (!isInside(root, path)) throw unsafePath(`${path} is outside ${root}`)
  const base = resolvedOnce(root)
  const parts = relativeBelow(base, resolvedOnce(path)).split(sep).filter(Boolean)
  let current = base
  for (const part of parts) {
    current = entryPath(current, part)
    let found: Stats | undefined
    try {
      found = lstatSync(current, {throwIfNoEntry: false})
    } catch (error) {
      if (errnoCode(error) === 'ENOTDIR') throw unsafePath(`${dirname(current)} is not a folder`, 'move that file away, or choose another --scope or --agent')
      throw error
    }
    if (found === undefined) return
    if (found.isSymbolicLink()) {
      throw unsafePath(
        `refusing to write through the symbolic link ${current} (it points to ${safeRealpath(current) ?? 'a missing target'})`,
        'replace the link with a real folder, or choose another --scope or --agent',
      )
    }
  }
}

/**
 * The first existing component from just below `root` down to `path` that is a symbolic link, or
 * undefined. A plugin folder of a marketplace, and every folder on its way, must be a real folder:
 * a committed link could point anywhere on the machine that reads it.
 */
export const linkOnTheWay = (root: string, path: string): string | undefined => {
  let current = resolve(root)
  for (const part of relative(current, resolve(path)).split(sep).filter(Boolean)) {
    current = join(current, part)
    try {
      if (lstatSync(current).isSymbolicLink()) return current
    } catch {
      return undefined
    }
  }
  return undefined
}

/**
 * A folder below `root`, every symbolic link on its way followed when where it leads stays inside
 * the real `root` (`plugins/x -> ../shared/x`, `plugins/x -> ..`, as the agents read a checkout).
 * A cycle, a link to nothing and a link (or a link through a link) that leads out are refused.
 */
export const followInsideRoot = (root: string, path: string): {root: string; path: string} | {code: string; why: string} => {
  const realRoot = safeRealpath(root) ?? resolve(root)
  const link = linkOnTheWay(root, path)
  if (!link) return {root: realRoot, path}
  const at = relative(root, link).split(sep).join('/')
  let real: string
  try {
    real = realpathSync.native(path)
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') return {code: 'source-link-cycle', why: `symbolic links that lead round in a cycle, at ${at}`}
    return {code: 'source-through-link', why: `the symbolic link ${at} (to ${safeRealpath(link) ?? 'a missing target'}), which leads to no folder`}
  }
  if (!isInside(realRoot, real)) {
    return {
      code: 'source-through-link',
      why: `the symbolic link ${at} (to ${real}), outside the marketplace; a link is followed only to a folder inside the marketplace`,
    }
  }
  return {root: realRoot, path: real}
}

const realpathOrUndefined = (path: string): string | undefined => {
  try {
    return realpathSync.native(path)
  } catch {
    return undefined
  }
}

let reading: {realpaths: Map<string, string | undefined>; lstats: Map<string, Stats | undefined>; folders: Map<string, Dirent[]>} | undefined

/**
 * Runs `read`, a synchronous read of one tree (a plugin's), with each real path and each `lstat`
 * asked of the system once: every entry's check resolves the root again, and most paths are looked
 * at two to six times (checked, then read, then named), and each folder listed once (a skill folder is
 * walked for the plugin and again for the skill). Nothing else runs in this process meanwhile.
 */
export const withTreeReadOnce = <T>(read: () => T): T => {
  if (reading) return read()
  reading = {realpaths: new Map(), lstats: new Map(), folders: new Map()}
  try {
    return read()
  } finally {
    reading = undefined
  }
}

/** The real path of `path`, or undefined when it (or its target) does not exist. */
export const safeRealpath = (path: string): string | undefined => {
  const known = reading?.realpaths
  if (!known) return realpathOrUndefined(path)
  if (known.has(path)) return known.get(path)
  const real = realpathBelowKnown(path, known)
  known.set(path, real)
  return real
}

/**
 * Within a tree read: the real path of an entry that is no link is its folder's real path and its
 * name, so the system resolves each folder once instead of every component of every file's path.
 */
const realpathBelowKnown = (path: string, known: Map<string, string | undefined>): string | undefined => {
  const parent = dirname(path)
  if (parent === path || !isResolved(path)) return realpathOrUndefined(path)
  let stat: Stats | undefined
  try {
    stat = lstatIfAny(path)
  } catch {
    return undefined
  }
  if (stat === undefined) return undefined
  if (stat.isSymbolicLink()) return realpathOrUndefined(path)
  if (!known.has(parent)) known.set(parent, realpathOrUndefined(parent))
  const realParent = known.get(parent)
  if (realParent === undefined) return realpathOrUndefined(path)
  return `${realParent === '/' ? '' : realParent}/${basename(path)}`
}

/** The entries of the folder `dir` (with their types; in the order the system gives them). Failures throw. */
export const listFolder = (dir: string): readonly Dirent[] => {
  const known = reading?.folders
  const listed = known?.get(dir)
  if (listed) return listed
  const entries = readdirSync(dir, {withFileTypes: true})
  known?.set(dir, entries)
  return entries
}

/** What `lstat` says of `path`, or undefined when there is nothing there (ENOENT, ENOTDIR); other failures throw. */
export const lstatIfAny = (path: string): Stats | undefined => {
  const known = reading?.lstats
  if (known?.has(path)) return known.get(path)
  let stat: Stats | undefined
  try {
    // a missing path answers undefined rather than throwing: an error's stack costs more than the call
    stat = lstatSync(path, {throwIfNoEntry: false})
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') throw error
  }
  known?.set(path, stat)
  return stat
}

/** True when `path` exists and its real path is inside the real path of `root`. */
export const resolvesInside = (root: string, path: string): boolean => {
  const realRoot = safeRealpath(root)
  const realPath = safeRealpath(path)
  return realRoot !== undefined && realPath !== undefined && isInside(realRoot, realPath)
}
