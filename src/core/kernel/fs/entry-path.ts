import {sep} from 'node:path'

const HERE = `.${sep}`

/**
 * `join(dir, name)` for a name read from the folder `dir` (no separator in it, never `.` or `..`),
 * where `dir` is already normalized (it came out of join, resolve or normalize): the same path without
 * normalizing it again, which is most of what join costs in a walk that makes one per file.
 */
export const entryPath = (dir: string, name: string): string =>
  dir === '.' || dir === HERE ? name : dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`
