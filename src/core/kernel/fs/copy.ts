import {createHash} from '../crypto/node-crypto.js'
import {closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, symlinkSync, writeSync} from 'node:fs'
import {dirname, normalize, resolve} from 'node:path'
import {errnoCode} from '../../model/errors.js'
import {isInside, unsafePath} from './contain.js'
import {entryPath} from './entry-path.js'
import {rememberRead, readingOnceNow, readOnceBytes, type ReadOnceFile} from './read-once.js'

export interface CopiedFile {
  /** path relative to the copy's root, `/`-separated */
  path: string
  /** 0o755 or 0o644 for a file, 0o120000 for a symbolic link */
  mode: number
  /** sha256 (hex) of the bytes written, or of the link's target for a link */
  sha256: string
}

// One buffer for every copy: files are read and written through it in chunks, so memory stays flat
// whatever their size, and each byte is read once for both the copy and its hash.
const CHUNK = 1024 * 1024
let chunk: Buffer | undefined

/**
 * Copies one regular file (never through a link) to a new file `dest`, with `mode`, hashing the
 * bytes as they are written. Returns the sha256 and whether the source was executable by its owner.
 */
const copyHashed = (src: string, dest: string, umask: number): {sha256: string; mode: number} => {
  const known = readOnceBytes(src)
  if (known) return writeKept(known, dest, umask)
  let input: number
  try {
    input = openSync(src, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw unsafePath(`refusing to copy ${src}: it became a link while it was being copied`)
    throw error
  }
  try {
    const stat = fstatSync(input)
    if (!stat.isFile()) throw unsafePath(`refusing to copy ${src}: not a regular file, folder or link`)
    const mode = stat.mode & 0o100 ? 0o755 : 0o644
    const output = openSync(dest, 'wx', mode)
    try {
      const hash = createHash('sha256')
      const buffer = (chunk ??= Buffer.allocUnsafe(CHUNK))
      // a file read in one go is kept for the rest of the install (see kept-reads)
      let whole: Buffer | undefined = stat.size === 0 && readingOnceNow() ? Buffer.alloc(0) : undefined
      for (let total = 0; ;) {
        const n = readSync(input, buffer, 0, CHUNK, null)
        if (n === 0) break
        const bytes = buffer.subarray(0, n)
        total += n
        whole = total === n && n === stat.size && readingOnceNow() ? Buffer.from(bytes) : undefined
        hash.update(bytes)
        for (let written = 0; written < n;) written += writeSync(output, bytes, written, n - written)
      }
      // the umask strips bits from a new file's mode: only then is it set again
      if ((mode & umask) !== 0) fchmodSync(output, mode)
      const sha256 = hash.digest('hex')
      if (whole) {
        rememberRead(src, whole, stat, sha256)
        rememberRead(dest, whole, fstatSync(output), sha256)
      }
      return {sha256, mode}
    } finally {
      closeSync(output)
    }
  } finally {
    closeSync(input)
  }
}

/** Writes a file read earlier in this install to a new file `dest`, keeping it under that path too. */
const writeKept = (known: ReadOnceFile, dest: string, umask: number): {sha256: string; mode: number} => {
  const mode = known.mode & 0o100 ? 0o755 : 0o644
  const sha256 = known.sha256 ?? createHash('sha256').update(known.bytes).digest('hex')
  const output = openSync(dest, 'wx', mode)
  try {
    for (let written = 0; written < known.bytes.length;) written += writeSync(output, known.bytes, written, known.bytes.length - written)
    if ((mode & umask) !== 0) fchmodSync(output, mode)
    rememberRead(dest, known.bytes, fstatSync(output), sha256)
  } finally {
    closeSync(output)
  }
  return {sha256, mode}
}

/**
 * Copies a tree without following links: regular files keep their executable bit, a symbolic link
 * is recreated only when its target stays inside `boundary` (else the copy is refused), anything
 * else (devices, sockets) is refused; `.git` is left out. `to` must not exist or be an empty folder.
 * Each file is read once: the list returned holds the sha256 of the bytes written. An entry whose
 * path (relative, `/`-separated) `leaveOut` names is not copied, nor anything below it.
 */
export const copyTree = (from: string, to: string, boundary: string = from, leaveOut?: (path: string) => boolean): CopiedFile[] => {
  const copied: CopiedFile[] = []
  const umask = process.umask()
  const walk = (src: string, dest: string, rel: string) => {
    for (const entry of readdirSync(src, {withFileTypes: true})) {
      if (entry.name === '.git') continue
      const s = entryPath(src, entry.name)
      const d = entryPath(dest, entry.name)
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (leaveOut?.(path)) continue
      if (entry.isDirectory()) {
        mkdirSync(d)
        walk(s, d, path)
      } else if (entry.isFile()) {
        copied.push({path, ...copyHashed(s, d, umask)})
      } else if (entry.isSymbolicLink()) {
        const target = readlinkSync(s, {encoding: 'buffer'})
        if (!isInside(boundary, resolve(dirname(s), target.toString('utf8'))))
          throw unsafePath(`refusing to copy ${s}: it links outside the plugin (to ${target.toString('utf8')})`)
        symlinkSync(target, d)
        copied.push({path, mode: 0o120000, sha256: createHash('sha256').update(target).digest('hex')})
      } else {
        throw unsafePath(`refusing to copy ${s}: not a regular file, folder or link`)
      }
    }
  }
  mkdirSync(to, {recursive: true})
  walk(normalize(from), normalize(to), '')
  return copied
}
