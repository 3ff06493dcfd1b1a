/**
 * `join`, `resolve`, `relative` and `normalize` as node:path computes them, answered without its
 * character-by-character normalisation when the text is already normal: an install makes ~500 path
 * calls on paths of ~150 characters, each ~10 µs in the interpreter, and the hottest get optimised on
 * the way (memory touched by the compiler, a stall when the code is installed). The fast bundle's build
 * (bin/build.mjs) gives every `import … from 'node:path'` these four; anything they do not answer goes
 * to node:path, and on Windows everything does.
 *
 * A POSIX path is normal when it is not empty, has no empty segment (`//`) and no `.` or `..` segment:
 * node:path's normalisation returns such a text unchanged (a trailing `/` included).
 */
import * as nodePath from 'node:path'

const POSIX = nodePath.sep === '/'
const NOT_NORMAL = /(?:^|\/)\.\.?(?:\/|$)|\/\//

const isNormal = (path: string): boolean => path.length > 0 && !NOT_NORMAL.test(path)

/** `resolve` drops a trailing separator, but keeps the root. */
const withoutTrailingSlash = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)

export const normalize = (path: string): string => (POSIX && typeof path === 'string' && isNormal(path) ? path : nodePath.normalize(path))

export const join = (...parts: string[]): string => {
  if (POSIX && parts.length > 0 && parts.every((p) => typeof p === 'string' && p.length > 0)) {
    const joined = parts.length === 1 ? parts[0]! : parts.join('/')
    if (isNormal(joined)) return joined
  }
  return nodePath.join(...parts)
}

export const resolve = (...parts: string[]): string => {
  if (POSIX && parts.every((p) => typeof p === 'string')) {
    const last = parts.at(-1)
    // the last absolute part is where resolving starts; a relative one after it is appended
    if (last !== undefined && last.startsWith('/') && isNormal(last)) return withoutTrailingSlash(last)
    const base = parts.at(-2)
    if (parts.length >= 2 && base !== undefined && last !== undefined && base.startsWith('/') && last.length > 0) {
      const joined = base === '/' ? `/${last}` : `${base}/${last}`
      if (isNormal(joined)) return withoutTrailingSlash(joined)
    }
  }
  return nodePath.resolve(...parts)
}

export const relative = (from: string, to: string): string => {
  if (POSIX && typeof from === 'string' && typeof to === 'string' && from.startsWith('/') && to.startsWith('/') && isNormal(from) && isNormal(to)) {
    const a = withoutTrailingSlash(from)
    const b = withoutTrailingSlash(to)
    if (a === b) return ''
    if (a === '/') return b.slice(1)
    if (b.startsWith(a) && b.charCodeAt(a.length) === 47) return b.slice(a.length + 1)
  }
  return nodePath.relative(from, to)
}
