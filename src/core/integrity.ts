/**
 * Content hashes: of one file (`fileSha256`) and of a whole fetched tree (`treeIntegrity`), the
 * value recorded with a commit or an archive so that a changed tree is noticed even when its version
 * string is not.
 */
import {createHash} from 'node:crypto'
import {constants, createReadStream} from 'node:fs'
import {open, readdir, readlink} from 'node:fs/promises'
import {join} from 'node:path'
import {errnoCode, EXIT, LoadoutError} from './errors.js'

/** Git's file modes: the only modes the tree hash knows, so umask and group bits never matter. */
export const MODE_FILE = '100644'
export const MODE_EXECUTABLE = '100755'
export const MODE_SYMLINK = '120000'

/** Files up to this size are read whole; larger ones are streamed through the hash. */
const READ_WHOLE_LIMIT = 8 * 1024 * 1024
/** Files hashed at once (enough to keep the disk busy, few enough to stay far below fd limits). */
const CONCURRENCY = 32

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex')

/** The sha256 of a file's bytes, as lower-case hex. Follows no link: a symbolic link is refused. */
export const fileSha256 = async (path: string): Promise<string> => {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    return (await hashHandle(handle, path)).hash
  } finally {
    await handle.close()
  }
}

type Handle = Awaited<ReturnType<typeof open>>

/** Hashes an open file; returns its hash and whether its owner may execute it (git's rule). */
const hashHandle = async (handle: Handle, path: string): Promise<{hash: string; executable: boolean}> => {
  const stat = await handle.stat()
  if (!stat.isFile()) throw new LoadoutError('not-a-file', EXIT.validation, `${path} is not a regular file`)
  const executable = (stat.mode & 0o100) !== 0
  if (stat.size <= READ_WHOLE_LIMIT) return {hash: sha256Hex(await handle.readFile()), executable}
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path, {fd: handle.fd, autoClose: false, start: 0})) hash.update(chunk as Buffer)
  return {hash: hash.digest('hex'), executable}
}

/** One hashed entry of a tree: its `/`-separated path, git mode and content (or link target) hash. */
export interface TreeEntry {
  path: string
  mode: typeof MODE_FILE | typeof MODE_EXECUTABLE | typeof MODE_SYMLINK
  hash: string
}

/** Names never part of a tree: git's own data, at any depth (a nested `.git` is a submodule's). */
const EXCLUDED = new Set(['.git'])

/**
 * Every file and symbolic link below `root` (links are listed, never followed; folders are not
 * listed, so an empty folder changes nothing), sorted by the UTF-8 bytes of their paths.
 */
export const treeEntries = async (root: string): Promise<TreeEntry[]> => {
  const files: string[] = []
  const entries: TreeEntry[] = []
  const pendingLinks: Promise<void>[] = []
  const walk = async (rel: string): Promise<void> => {
    const dirents = await readdir(rel === '' ? root : join(root, rel), {withFileTypes: true})
    const subfolders: string[] = []
    for (const dirent of dirents) {
      if (EXCLUDED.has(dirent.name)) continue
      const path = rel === '' ? dirent.name : `${rel}/${dirent.name}`
      if (dirent.isDirectory()) subfolders.push(path)
      else if (dirent.isFile()) files.push(path)
      else if (dirent.isSymbolicLink()) {
        pendingLinks.push(
          readlink(join(root, path), {encoding: 'buffer'}).then((target) => {
            entries.push({path, mode: MODE_SYMLINK, hash: sha256Hex(target)})
          }),
        )
      } else {
        throw new LoadoutError('unsupported-file-type', EXIT.validation, `${join(root, path)} is neither a file, a folder nor a symbolic link`, {
          suggestions: ['a plugin may hold only files, folders and symbolic links'],
        })
      }
    }
    await Promise.all(subfolders.map(walk))
  }
  await walk('')
  await Promise.all(pendingLinks)

  let next = 0
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const path = files[next++]!
      const full = join(root, path)
      let handle: Handle
      try {
        handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW)
      } catch (error) {
        // replaced by a link (or removed) while we walked: the tree is changing under us
        if (errnoCode(error) === 'ELOOP' || errnoCode(error) === 'ENOENT') {
          throw new LoadoutError('tree-changed', EXIT.integrity, `${full} changed while its folder was being hashed`, {cause: error})
        }
        throw error
      }
      try {
        const {hash, executable} = await hashHandle(handle, full)
        entries.push({path, mode: executable ? MODE_EXECUTABLE : MODE_FILE, hash})
      } finally {
        await handle.close()
      }
    }
  }
  await Promise.all(Array.from({length: Math.min(CONCURRENCY, files.length)}, worker))

  const keyed = entries.map((entry) => ({entry, key: Buffer.from(entry.path, 'utf8')}))
  keyed.sort((a, b) => Buffer.compare(a.key, b.key))
  return keyed.map(({entry}) => entry)
}

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
