import {chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readlinkSync, symlinkSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {isInside, unsafePath} from './contain.js'

export interface CopiedFile {
  /** path relative to the copy's root, `/`-separated */
  path: string
  mode: number
}

/**
 * Copies a tree without following links: regular files keep their executable bit, a symbolic link
 * is recreated only when its target stays inside `boundary` (else the copy is refused), anything
 * else (devices, sockets) is refused; `.git` is left out.
 */
export const copyTree = (from: string, to: string, boundary: string = from): CopiedFile[] => {
  const copied: CopiedFile[] = []
  const walk = (src: string, dest: string) => {
    mkdirSync(dest, {recursive: true})
    for (const entry of readdirSync(src, {withFileTypes: true})) {
      if (entry.name === '.git') continue
      const s = join(src, entry.name)
      const d = join(dest, entry.name)
      const stat = lstatSync(s)
      if (stat.isDirectory()) walk(s, d)
      else if (stat.isFile()) {
        copyFileSync(s, d)
        const mode = stat.mode & 0o100 ? 0o755 : 0o644
        chmodSync(d, mode)
        copied.push({path: relative(to, d).split('\\').join('/'), mode})
      } else if (stat.isSymbolicLink()) {
        const target = readlinkSync(s)
        if (!isInside(boundary, resolve(dirname(s), target))) throw unsafePath(`refusing to copy ${s}: it links outside the plugin (to ${target})`)
        symlinkSync(target, d)
        copied.push({path: relative(to, d).split('\\').join('/'), mode: 0o120000})
      } else {
        throw unsafePath(`refusing to copy ${s}: not a regular file, folder or link`)
      }
    }
  }
  walk(from, to)
  return copied
}
