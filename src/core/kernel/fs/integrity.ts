/**
 * Content hashes: of one file (`fileSha256`) and of a whole fetched tree (`treeIntegrity`), the
 * value recorded with a commit or an archive so that a changed tree is noticed even when its version
 * string is not.
 */
import {createHash} from '../crypto/node-crypto.js'
import {closeSync, constants, createReadStream, fstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync} from 'node:fs'
import {normalize} from 'node:path'
import {errnoCode, EXIT, LoadoutError} from '../../model/errors.js'
import {entryPath} from './entry-path.js'
import {rememberRead, readOnceBytes} from './read-once.js'

/** Git's file modes: the only modes the tree hash knows, so umask and group bits never matter. */
export const MODE_FILE = '100644'
export const MODE_EXECUTABLE = '100755'
export const MODE_SYMLINK = '120000'

/** Files up to this size are read whole; larger ones are streamed through the hash. */
const READ_WHOLE_LIMIT = 8 * 1024 * 1024

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex')

/** Opens a file for reading without following a link in its last component. */
const openNoFollow = (path: string): number => openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)

/**
 * The bytes of an open file whose fstat gave `size`, in one read that asks a byte more (a regular
 * file's read gives fewer than asked only at its end). Any other count, a file that grew or shrank
 * meanwhile (or a read that stopped short), is read again whole.
 */
const readAsSized = (fd: number, size: number): Buffer => {
  const buffer = Buffer.allocUnsafe(size + 1)
  return readSync(fd, buffer, 0, size + 1, 0) === size ? buffer.subarray(0, size) : readFileSync(fd)
}

/**
 * Hashes an open file; returns its hash and whether its owner may execute it (git's rule). A small
 * file is read with one synchronous call: for thousands of small files that is several times faster
 * than a round trip through the thread pool per call. A large one is streamed.
 */
const hashFd = async (fd: number, path: string): Promise<{hash: string; executable: boolean}> => {
  const stat = fstatSync(fd)
  if (!stat.isFile()) throw new LoadoutError('not-a-file', EXIT.validation, `${path} is not a regular file`)
  const executable = (stat.mode & 0o100) !== 0
  if (stat.size <= READ_WHOLE_LIMIT) {
    const bytes = readAsSized(fd, stat.size)
    const hash = sha256Hex(bytes)
    if (bytes.length === stat.size) rememberRead(path, bytes, stat, hash)
    return {hash, executable}
  }
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, {fd, autoClose: false, start: 0})) hash.update(chunk as Buffer)
  return {hash: hash.digest('hex'), executable}
}

/** The sha256 of a file's bytes, as lower-case hex. Follows no link: a symbolic link is refused. */
export const fileSha256 = async (path: string): Promise<string> => {
  const fd = openNoFollow(path)
  try {
    return (await hashFd(fd, path)).hash
  } finally {
    closeSync(fd)
  }
}

/**
 * One hashed entry of a tree: its `/`-separated path, git mode and content (or link target) hash. Made
 * with its keys in sorted order, as the kept file list holds them: stableStringify then copies none.
 */
export interface TreeEntry {
  hash: string
  mode: typeof MODE_FILE | typeof MODE_EXECUTABLE | typeof MODE_SYMLINK
  path: string
}

/** Names never part of a tree: git's own data, at any depth (a nested `.git` is a submodule's). */
const EXCLUDED = new Set(['.git'])

/**
 * Every file and symbolic link below `root` (links are listed, never followed; folders are not
 * listed, so an empty folder changes nothing), sorted by the UTF-8 bytes of their paths.
 */
export const treeEntries = async (root: string): Promise<TreeEntry[]> => {
  const entries: TreeEntry[] = []
  const walk = async (rel: string, dir: string): Promise<void> => {
    for (const dirent of readdirSync(dir, {withFileTypes: true})) {
      if (EXCLUDED.has(dirent.name)) continue
      const path = rel === '' ? dirent.name : `${rel}/${dirent.name}`
      const full = entryPath(dir, dirent.name)
      if (dirent.isDirectory()) await walk(path, full)
      else if (dirent.isSymbolicLink()) entries.push({hash: sha256Hex(readlinkSync(full, {encoding: 'buffer'})), mode: MODE_SYMLINK, path})
      else if (dirent.isFile()) {
        const known = readOnceBytes(full)
        if (known) {
          known.sha256 ??= sha256Hex(known.bytes)
          entries.push({hash: known.sha256, mode: known.mode & 0o100 ? MODE_EXECUTABLE : MODE_FILE, path})
          continue
        }
        let fd: number
        try {
          fd = openNoFollow(full)
        } catch (error) {
          // replaced by a link (or removed) since it was listed: the tree is changing under us
          if (errnoCode(error) === 'ELOOP' || errnoCode(error) === 'ENOENT') {
            throw new LoadoutError('tree-changed', EXIT.integrity, `${full} changed while its folder was being hashed`, {cause: error})
          }
          throw error
        }
        try {
          const {hash, executable} = await hashFd(fd, full)
          entries.push({hash, mode: executable ? MODE_EXECUTABLE : MODE_FILE, path})
        } finally {
          closeSync(fd)
        }
      } else {
        throw new LoadoutError('unsupported-file-type', EXIT.validation, `${full} is neither a file, a folder nor a symbolic link`, {
          suggestions: ['a plugin may hold only files, folders and symbolic links'],
        })
      }
    }
  }
  await walk('', normalize(root))
  return sortEntries(entries)
}

/** Entries in the order the integrity hashes them: by the UTF-8 bytes of their paths. */
export const sortEntries = <T extends {path: string}>(entries: readonly T[]): T[] =>
  entries
    .map((entry) => ({entry, key: Buffer.from(entry.path, 'utf8')}))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({entry}) => entry)

/** `<byte length>:<text>`, so that no two different lists concatenate to the same bytes. */
const field = (text: string): string => `${Buffer.byteLength(text, 'utf8')}:${text}`

/** The integrity of a list of entries (already sorted): see treeIntegrity. */
export const integrityOf = (entries: readonly TreeEntry[]): string => {
  const hash = createHash('sha256')
  for (const entry of entries) hash.update(field(entry.path) + field(entry.mode) + field(entry.hash), 'utf8')
  return `sha256-${hash.digest('hex')}`
}

/**
 * The integrity hash of a folder: `sha256-<hex>` of the sha256 over, for each file and symbolic
 * link in the byte order of its relative path, `<len>:<path><len>:<mode><len>:<content sha256>`.
 * The mode is git's (`100644`, `100755` by the owner's execute bit, `120000` for a link, whose
 * "content" is its target), so the hash is the same on every machine whatever the umask, owner,
 * mtime or readdir order. `.git` is left out, and so are folders themselves.
 */
export const treeIntegrity = async (dir: string): Promise<string> => integrityOf(await treeEntries(dir))

/** The sha256 of one file's bytes, as install records keep it. */
export const fileSha256Sync = (path: string | number): string => createHash('sha256').update(readFileSync(path)).digest('hex')
