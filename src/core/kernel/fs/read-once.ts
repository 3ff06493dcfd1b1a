/**
 * The bytes of files an install has read or written, kept for the rest of it, so that each file of
 * a plugin is read from disk once: the hidden-text scan, the hash shown for consent, the installed
 * copy and the agents' copies then all see the same bytes. Files are kept only inside
 * {@link readingOnce}, up to a budget, and a kept file is used only while `lstat` still shows the
 * same file: same inode, size, modification and change times (else it is read again). A change
 * those cannot show (the same size, within the file system clock's tick of the read) goes unseen;
 * what is used is then the bytes that were hashed and shown for consent.
 */
import {lstatSync, type Stats} from 'node:fs'
import {sep} from 'node:path'

/** What an install may hold in memory of its files; past it, files are read from disk as before. */
const BUDGET_BYTES = 32 * 1024 * 1024

export interface ReadOnceFile {
  bytes: Buffer
  /** the mode bits as stat gave them */
  mode: number
  /** sha256 (hex) of `bytes`, once someone computed it (set it when you do) */
  sha256?: string
}

interface Entry extends ReadOnceFile {
  ino: number
  size: number
  mtimeMs: number
  ctimeMs: number
}

let kept: Map<string, Entry> | undefined
let depth = 0
let spent = 0

/** Runs `fn` with reads kept; the files are let go when the outermost scope ends. */
export const readingOnce = async <T>(fn: () => Promise<T>): Promise<T> => {
  kept ??= new Map()
  depth++
  try {
    return await fn()
  } finally {
    if (--depth === 0) {
      kept = undefined
      spent = 0
    }
  }
}

/** Keeps `bytes` as the content of the file at `path`, whose stat (taken on the open file) is `stat`. */
export const rememberRead = (path: string, bytes: Buffer, stat: Stats, sha256?: string): void => {
  if (!kept) return
  const before = kept.get(path)
  if (before?.bytes !== bytes) {
    if (spent + bytes.length > BUDGET_BYTES) return
    spent += bytes.length
  }
  kept.set(path, {
    bytes,
    mode: stat.mode,
    ino: stat.ino,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ...(sha256 !== undefined ? {sha256} : {}),
  })
}

/** The kept content of `path` while it is still the same regular file, else undefined. */
export const readOnceBytes = (path: string): ReadOnceFile | undefined => {
  const entry = kept?.get(path)
  if (!entry) return undefined
  let now: Stats
  try {
    now = lstatSync(path)
  } catch {
    return undefined
  }
  if (now.isFile() && now.ino === entry.ino && now.size === entry.size && now.mtimeMs === entry.mtimeMs && now.ctimeMs === entry.ctimeMs) return entry
  kept!.delete(path)
  return undefined
}

/** Whether reads are being kept (a reader may then copy a shared buffer to keep it). */
export const readingOnceNow = (): boolean => kept !== undefined && spent < BUDGET_BYTES

/** A folder of kept files was renamed (the inodes are the same): they are kept under the new path. */
export const readOnceTreeMoved = (from: string, to: string): void => {
  if (!kept) return
  const prefix = `${from}${sep}`
  for (const [path, entry] of [...kept]) {
    if (!path.startsWith(prefix)) continue
    kept.delete(path)
    kept.set(`${to}${sep}${path.slice(prefix.length)}`, entry)
  }
}
