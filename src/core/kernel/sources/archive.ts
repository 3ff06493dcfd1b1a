/**
 * `archive` sources: an https .tar.gz, checked against its sha256 when one is given and extracted
 * into a fresh private folder. An archive is untrusted input, so extraction is ours, not tar's:
 * tar's streaming Parser reads the headers and each entry is checked before anything is written for
 * it (no absolute path, no `..`, no link, no device), written only as a new file or folder below the
 * destination, and the total size and the number of entries are bounded while the data streams, so a
 * bomb is stopped at the first header that would break a limit instead of being inflated.
 */
import {createHash, randomBytes} from '../crypto/node-crypto.js'
import {constants, createReadStream, createWriteStream, mkdirSync, openSync, type WriteStream} from 'node:fs'
import {chmod, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, rmdir, writeFile} from 'node:fs/promises'
import {dirname, join, resolve} from 'node:path'
import {createGunzip} from 'node:zlib'
import type {ReadEntry} from 'tar'
import type {Environment} from '../env/environment.js'
import {errnoCode, EXIT, LoadoutError, usageError} from '../../model/errors.js'
import {isInside} from '../fs/contain.js'
import {removeEntries, staleWithPrefix} from '../fs/write.js'
import {treeIntegrity} from '../fs/integrity.js'
import {hasCredentials, redactUrl} from './redact.js'
import {httpGet} from './http.js'

/** Default bound on the uncompressed size of all files in an archive. */
/** Top-level folders that belong to a plugin, never to a wrapper around one. */
const PLUGIN_PART_FOLDERS = new Set(['skills', 'agents', 'commands', 'hooks', '.claude-plugin', '.codex-plugin', 'bin', 'scripts'])

export const DEFAULT_MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
/** Default bound on the number of entries (files and folders) in an archive. */
export const DEFAULT_MAX_ARCHIVE_ENTRIES = 10_000
/** Default bound on the size of the downloaded (compressed) archive. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024

export interface ExtractOptions {
  /** bound on the total uncompressed bytes of the files; default 256 MB */
  maxBytes?: number
  /** bound on the number of entries (files and folders); default 10,000 */
  maxEntries?: number
  /** when every entry lies below one folder (GitHub-style `repo-sha/...`), extract its contents instead */
  stripSingleRoot?: boolean
  /** how messages name the archive (a redacted URL); default the file's path */
  label?: string
}

export interface Extracted {
  /** files and folders extracted (entries the archive held, folders included) */
  entries: number
  /** bytes of file content written */
  bytes: number
}

/** Tar headers, padding, pax records and end blocks allowed on top of the file bytes, per entry. */
const OVERHEAD_PER_ENTRY = 4096
const OVERHEAD_FIXED = 1024 * 1024

const quote = (text: string): string => JSON.stringify(text)

/** Why an entry's path is unsafe, or the path's segments (`.` and empty ones dropped). */
export const checkEntryPath = (path: string): {segments: string[]} | {rule: string} => {
  if (path.includes('\0')) return {rule: 'its name holds a NUL character'}
  if (/[\x01-\x1f\x7f]/.test(path)) return {rule: 'its name holds a control character'}
  if (path.includes('\\')) return {rule: 'its name holds a backslash (a Windows path separator)'}
  if (path.startsWith('/')) return {rule: 'its path is absolute'}
  if (/^[A-Za-z]:/.test(path)) return {rule: 'its path starts with a Windows drive'}
  const segments = path.split('/').filter((s) => s !== '' && s !== '.')
  if (segments.includes('..')) return {rule: 'its path has a ".." segment, which would lead out of the destination'}
  return {segments}
}

/** Why an entry of this type is refused, or undefined for a file or a folder. */
const typeProblem = (entry: ReadEntry): string | undefined => {
  switch (entry.type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
    case 'Directory':
      return undefined
    case 'SymbolicLink':
      return `it is a symbolic link (to ${quote(entry.linkpath ?? '')}); links are refused`
    case 'Link':
      return `it is a hard link (to ${quote(entry.linkpath ?? '')}); links are refused`
    case 'CharacterDevice':
    case 'BlockDevice':
      return 'it is a device; only files and folders are extracted'
    case 'FIFO':
      return 'it is a FIFO; only files and folders are extracted'
    default:
      return `its type (${entry.type}) is not supported; only files and folders are extracted`
  }
}

const refused = (label: string, entry: string, rule: string): LoadoutError =>
  new LoadoutError('archive-unsafe-entry', EXIT.validation, `archive ${label}: refused entry ${quote(entry)}: ${rule}`, {
    details: {archive: label, entry, rule},
    suggestions: ['nothing was extracted; the archive must hold only files and folders with relative paths inside it'],
  })

const tooLarge = (label: string, entry: string | undefined, limit: number): LoadoutError => {
  const rule = `the uncompressed size would exceed the limit of ${limit} bytes`
  return new LoadoutError(
    'archive-too-large',
    EXIT.validation,
    entry === undefined ? `archive ${label}: ${rule}` : `archive ${label}: refused entry ${quote(entry)}: ${rule}`,
    {details: {archive: label, entry, rule, limit}, suggestions: ['nothing was extracted; this may be a decompression bomb']},
  )
}

const tooManyEntries = (label: string, entry: string, limit: number): LoadoutError => {
  const rule = `the archive has more than ${limit} entries`
  return new LoadoutError('archive-too-many-entries', EXIT.validation, `archive ${label}: refused entry ${quote(entry)}: ${rule}`, {
    details: {archive: label, entry, rule, limit},
    suggestions: ['nothing was extracted'],
  })
}

const corrupt = (label: string, why: string, cause?: unknown): LoadoutError =>
  new LoadoutError('archive-corrupt', EXIT.validation, `archive ${label} is not a valid .tar.gz: ${why}`, {
    details: {archive: label, rule: why},
    suggestions: ['nothing was extracted; check that the URL points at a .tar.gz file'],
    cause,
  })

/** A write that failed because of what the archive holds (a name given twice, a file where a folder is). */
const writeFailed = (label: string, entry: string, error: unknown): LoadoutError => {
  const code = errnoCode(error)
  if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP') {
    return refused(label, entry, 'it collides with an earlier entry of the same name (or a file where a folder should be)')
  }
  if (code === 'ENAMETOOLONG') return refused(label, entry, 'its name is too long for this file system')
  return new LoadoutError('archive-write-failed', EXIT.unexpected, `archive ${label}: could not write ${quote(entry)}: ${(error as Error).message}`, {
    details: {archive: label, entry},
    cause: error,
  })
}

/** Makes `dest` a private (0700), empty, real folder: created fresh, or an existing empty one. */
const prepareDestination = async (dest: string): Promise<void> => {
  let stat
  try {
    stat = await lstat(dest)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
    await mkdir(dirname(dest), {recursive: true})
    await mkdir(dest, {mode: 0o700})
    await chmod(dest, 0o700)
    return
  }
  if (!stat.isDirectory() || (await readdir(dest)).length > 0) {
    throw new LoadoutError('archive-destination-exists', EXIT.conflict, `cannot extract into ${dest}: it exists and is not an empty folder`, {
      suggestions: ['extract into a new folder'],
    })
  }
  await chmod(dest, 0o700)
}

/** Moves the contents of `dest/name` up into `dest` (which holds nothing else), then removes it. */
const stripRoot = async (dest: string, name: string): Promise<void> => {
  const inner = join(dest, name)
  const children = await readdir(inner)
  let aside: string
  do aside = `.loadout-strip-${randomBytes(8).toString('hex')}`
  while (aside === name || children.includes(aside))
  await rename(inner, join(dest, aside))
  for (const child of children) await rename(join(dest, aside, child), join(dest, child))
  await rmdir(join(dest, aside))
}

interface Unpacked extends Extracted {
  /** the one first segment every entry shares, when there is one and it is a folder */
  singleRoot?: string
}

type TarParser = InstanceType<typeof import('tar').Parser>

/**
 * One extraction: the archive streamed through gunzip and tar's Parser, each checked entry written
 * below `root`, and the counters the limits are judged on as the bytes stream. The first failure
 * stops every stream and rejects once nothing is still writing.
 */
class Unpacking {
  private readonly source: ReturnType<typeof createReadStream>
  private readonly gunzip = createGunzip()
  private readonly open = new Set<WriteStream>()
  private readonly closing: Promise<void>[] = []
  private readonly made: Set<string>
  private readonly firstSegments = new Set<string>()
  private readonly rawLimit: number
  private rootHoldsNonFolder = false
  private failure: unknown
  private rawBytes = 0
  /** the first inflated bytes, held until they show whether the archive is compressed twice */
  private head: Buffer | undefined = Buffer.alloc(0)
  private entries = 0
  private bytes = 0
  private declared = 0
  private inputEnded = false
  private sawEof = false

  constructor(
    private readonly file: string,
    private readonly root: string,
    private readonly label: string,
    private readonly maxBytes: number,
    private readonly maxEntries: number,
    private readonly parser: TarParser,
    private readonly settle: {resolve: (unpacked: Unpacked) => void; reject: (error: unknown) => void},
  ) {
    this.source = createReadStream(file)
    this.made = new Set([root])
    this.rawLimit = maxBytes + maxEntries * OVERHEAD_PER_ENTRY + OVERHEAD_FIXED
  }

  start(): void {
    const {source, gunzip, parser, label} = this
    source.on('error', (error) =>
      this.fail(new LoadoutError('archive-read-failed', EXIT.unexpected, `cannot read ${this.file}: ${error.message}`, {cause: error})),
    )
    gunzip.on('error', (error) => this.fail(corrupt(label, `gzip: ${error.message}`, error)))
    gunzip.on('data', (chunk: Buffer) => this.inflated(chunk))
    gunzip.on('end', () => this.inflateEnded())
    parser.on('drain', () => {
      if (this.failure === undefined && !this.inputEnded) gunzip.resume()
    })
    parser.on('eof', () => this.archiveEnded())
    parser.on('error', (error: Error) => this.fail(corrupt(label, error.message.replace(/^TAR_[A-Z_]+: /, ''), error)))
    // types tar does not know, and oversized pax headers, are skipped by the parser: refuse them
    parser.on('ignoredEntry', (entry: ReadEntry) => {
      this.fail(
        refused(label, entry.path, entry.meta ? 'its extended header is too large' : (typeProblem(entry) ?? `its type (${entry.type}) is not supported`)),
      )
    })
    parser.on('entry', (entry: ReadEntry) => this.entry(entry))
    parser.on('end', () => this.finished())
    source.pipe(gunzip)
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return
    this.failure = error
    this.source.destroy()
    this.gunzip.destroy()
    for (const out of this.open) out.destroy()
    // nothing may still be writing when the caller removes the destination
    void Promise.allSettled(this.closing).then(() => this.settle.reject(error))
  }

  private endInput(): void {
    if (this.inputEnded || this.failure !== undefined) return
    this.inputEnded = true
    this.parser.end()
  }

  private mkdirs(path: string): void {
    if (this.made.has(path)) return
    mkdirSync(path, {recursive: true, mode: 0o755})
    for (let p = path; p !== this.root && !this.made.has(p); p = dirname(p)) this.made.add(p)
  }

  /** Inflated bytes, counted against the raw limit and handed to the parser (which may ask to pause). */
  private inflated(chunk: Buffer): void {
    if (this.failure !== undefined || this.inputEnded || this.sawEof) return
    this.rawBytes += chunk.length
    if (this.rawBytes > this.rawLimit) return this.fail(tooLarge(this.label, undefined, this.maxBytes))
    if (this.head !== undefined) {
      this.head = Buffer.concat([this.head, chunk])
      if (this.head.length < 2) return
      if (this.head[0] === 0x1f && this.head[1] === 0x8b) return this.fail(corrupt(this.label, 'it is compressed twice'))
      chunk = this.head
      this.head = undefined
    }
    if (!this.parser.write(chunk)) this.gunzip.pause()
  }

  private inflateEnded(): void {
    if (this.head !== undefined && this.head.length > 0 && this.failure === undefined && !this.inputEnded) {
      this.parser.write(this.head)
      this.head = undefined
    }
    this.endInput()
  }

  /** The end-of-archive blocks: whatever follows (padding, or a bomb of zeros) is never inflated. */
  private archiveEnded(): void {
    this.sawEof = true
    queueMicrotask(() => {
      if (this.failure !== undefined) return
      this.endInput()
      this.source.destroy()
      this.gunzip.destroy()
    })
  }

  /** One entry: every rule checked on its header before anything is written for it. */
  private entry(entry: ReadEntry): void {
    if (this.failure !== undefined) return void entry.resume()
    const {label} = this
    const name = entry.path
    const refuse = (error: LoadoutError): void => {
      entry.resume()
      this.fail(error)
    }
    const checked = checkEntryPath(name)
    if ('rule' in checked) return refuse(refused(label, name, checked.rule))
    const problem = typeProblem(entry)
    if (problem) return refuse(refused(label, name, problem))
    if (++this.entries > this.maxEntries) return refuse(tooManyEntries(label, name, this.maxEntries))
    if (entry.size > this.maxBytes - this.declared) return refuse(tooLarge(label, name, this.maxBytes))
    this.declared += entry.size
    const isFolder = entry.type === 'Directory'
    const {segments} = checked
    if (segments.length === 0) {
      // `./` itself: the destination
      if (!isFolder) return refuse(refused(label, name, 'a file without a name'))
      return void entry.resume()
    }
    this.firstSegments.add(segments[0]!)
    if (segments.length === 1 && !isFolder) this.rootHoldsNonFolder = true
    const target = join(this.root, ...segments)
    // the checks above make this impossible; it stays as the last line of defence
    if (!isInside(this.root, target) || target === this.root) return refuse(refused(label, name, 'it resolves outside the destination'))
    try {
      if (isFolder) {
        this.mkdirs(target)
        return void entry.resume()
      }
      this.mkdirs(dirname(target))
      this.writeFile(entry, target, name)
    } catch (error) {
      refuse(writeFailed(label, name, error))
    }
  }

  /** A new file only (O_EXCL, never through a link or over an earlier entry), its bytes counted as they stream. */
  private writeFile(entry: ReadEntry, target: string, name: string): void {
    const mode = (entry.mode ?? 0) & 0o100 ? 0o755 : 0o644
    const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode)
    const out = createWriteStream(target, {fd})
    this.open.add(out)
    this.closing.push(new Promise((done) => out.on('close', () => (this.open.delete(out), done()))))
    out.on('error', (error) => this.fail(writeFailed(this.label, name, error)))
    entry.on('end', () => {
      if (this.failure === undefined) out.end()
    })
    // counted as the data streams, whatever the header said
    entry.on('data', (chunk: Buffer) => {
      if (this.failure !== undefined) return
      this.bytes += chunk.length
      if (this.bytes > this.maxBytes) return this.fail(tooLarge(this.label, name, this.maxBytes))
      if (!out.write(chunk)) {
        entry.pause()
        out.once('drain', () => entry.resume())
      }
    })
  }

  private finished(): void {
    void Promise.allSettled(this.closing).then(() => {
      if (this.failure !== undefined) return
      const [only] = this.firstSegments
      const single = this.firstSegments.size === 1 && !this.rootHoldsNonFolder
      this.settle.resolve({entries: this.entries, bytes: this.bytes, ...(single ? {singleRoot: only} : {})})
    })
  }
}

/** Streams the archive through gunzip and tar's Parser, writing each checked entry below `root`. */
const unpack = async (file: string, root: string, label: string, maxBytes: number, maxEntries: number): Promise<Unpacked> => {
  const {Parser} = await import('tar')
  // zstd: false and brotli: false, and the gzip check in Unpacking: the parser must not decompress a
  // second time behind our counters
  const parser = new Parser({strict: true, zstd: false, brotli: false})
  return new Promise<Unpacked>((resolve, reject) => new Unpacking(file, root, label, maxBytes, maxEntries, parser, {resolve, reject}).start())
}

/**
 * Extracts a .tar.gz into `dest`, which must not exist (it is created, mode 0700) or be an empty
 * folder. Only files and folders are written; an absolute path, a `..` segment, a symbolic or hard
 * link, a device or FIFO, a name with a NUL, control character or backslash, too many entries or
 * too many bytes is refused as soon as its header is read. On any failure `dest` is removed
 * entirely and a LoadoutError names the archive, the entry and the rule.
 */
export const extractTarGz = async (file: string, dest: string, options: ExtractOptions = {}): Promise<Extracted> => {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ARCHIVE_BYTES
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ARCHIVE_ENTRIES
  const label = options.label ?? file
  const root = resolve(dest)
  await prepareDestination(root)
  try {
    const {singleRoot, ...extracted} = await unpack(file, root, label, maxBytes, maxEntries)
    // A lone top folder is a wrapper (GitHub's `repo-sha/`) unless it is itself a part of a plugin.
    if (options.stripSingleRoot && singleRoot !== undefined && !PLUGIN_PART_FOLDERS.has(singleRoot)) await stripRoot(root, singleRoot)
    return extracted
  } catch (error) {
    await rm(root, {recursive: true, force: true})
    throw error
  }
}

export interface FetchArchiveOptions {
  env: Environment
  /** the expected sha256 of the downloaded file (hex, or `sha256-`/`sha256:` followed by hex) */
  sha256?: string
  /** where the private download folder and the extracted folder are made */
  cacheDir: string
  /** bound on the download; default 100 MB */
  maxDownloadBytes?: number
  /** bounds on the extracted tree (see ExtractOptions) */
  maxBytes?: number
  maxEntries?: number
  /** default true: a GitHub-style archive's one top folder is not part of the plugin */
  stripSingleRoot?: boolean
  timeoutMs?: number
  /** the origin LOADOUT_TOKEN was given for: the archive's own when the user named it, the catalog's when a catalog listed it */
  tokenOrigin?: string
  /** waits between tries of the download; tests shorten them */
  backoffMs?: readonly number[]
}

export interface FetchedArchive {
  /** the extracted tree, in the archive's private cache folder under cacheDir */
  dir: string
  /** the sha256 (hex) of the downloaded bytes */
  sha256: string
  /** treeIntegrity of `dir` */
  integrity: string
  entries: number
  bytes: number
}

/** The lower-case hex of an expected sha256, accepting `sha256-` / `sha256:` prefixes. */
export const normalizeSha256 = (value: string): string => {
  const hex = value
    .trim()
    .replace(/^sha256[-:]/i, '')
    .toLowerCase()
  if (!/^[0-9a-f]{64}$/.test(hex)) throw usageError('invalid-sha256', `${quote(value)} is not a sha256 (64 hexadecimal digits)`)
  return hex
}

/** One cache folder per archive URL and sha256: installing it again replaces that folder, never adds one. */
export const archiveCacheDir = (cacheDir: string, url: string, sha256: string): string =>
  join(cacheDir, `archive-${sha256.slice(0, 16)}-${createHash('sha256').update(url).digest('hex').slice(0, 16)}`)

/** The downloaded file kept in an archive's cache folder, so that `--offline` can extract it again. */
const ARCHIVE_FILE = 'archive.tar.gz'
const TREE = 'tree'

/** The downloaded bytes kept beside an extracted tree (`FetchedArchive.dir`): what a signature covers. */
export const keptArchiveFile = (tree: string): string => join(dirname(tree), ARCHIVE_FILE)

const integrityMismatch = (shown: string, expected: string, actual: string) =>
  new LoadoutError('integrity-mismatch', EXIT.integrity, `archive ${shown}: sha256 mismatch: expected ${expected}, got ${actual}`, {
    details: {url: shown, expected, actual},
    suggestions: [
      'the archive changed since its sha256 was recorded: nothing was extracted; ask its publisher, or update the recorded sha256 if you trust the new one',
    ],
  })

/**
 * Extracts verified bytes into the archive's cache folder: staged in a private sibling (the bytes kept
 * beside the tree), then swapped in whole, so a crash leaves the old folder or the new one.
 */
const extractIntoCache = async (body: Buffer, url: string, sha256: string, options: FetchArchiveOptions): Promise<FetchedArchive> => {
  await mkdir(options.cacheDir, {recursive: true})
  removeEntries(options.cacheDir, staleWithPrefix('.download-'))
  // mkdtemp makes 0700 folders: the download and the tree are private from the start
  const stage = await mkdtemp(join(options.cacheDir, '.download-'))
  const folder = archiveCacheDir(options.cacheDir, url, sha256)
  try {
    const file = join(stage, ARCHIVE_FILE)
    await writeFile(file, body, {mode: 0o600, flag: 'wx'})
    const extracted = await extractTarGz(file, join(stage, TREE), {
      label: redactUrl(url),
      stripSingleRoot: options.stripSingleRoot ?? true,
      ...(options.maxBytes === undefined ? {} : {maxBytes: options.maxBytes}),
      ...(options.maxEntries === undefined ? {} : {maxEntries: options.maxEntries}),
    })
    const integrity = await treeIntegrity(join(stage, TREE))
    const aside = `${stage}.old`
    const replacing = await rename(folder, aside).then(
      () => true,
      (error: unknown) => {
        if (errnoCode(error) === 'ENOENT') return false
        throw error
      },
    )
    await rename(stage, folder)
    if (replacing) await rm(aside, {recursive: true, force: true})
    return {dir: join(folder, TREE), sha256, integrity, ...extracted}
  } finally {
    await rm(stage, {recursive: true, force: true})
  }
}

/**
 * The archive from the cache, without the network: only with a sha256 to check the kept bytes against,
 * else undefined (nothing cached, or bytes that no longer match).
 */
export const cachedArchive = async (url: string, options: FetchArchiveOptions): Promise<FetchedArchive | undefined> => {
  if (options.sha256 === undefined) return undefined
  const expected = normalizeSha256(options.sha256)
  const body = await readFile(join(archiveCacheDir(options.cacheDir, url, expected), ARCHIVE_FILE)).catch(() => undefined)
  if (!body || createHash('sha256').update(body).digest('hex') !== expected) return undefined
  return extractIntoCache(body, url, expected, options)
}

/**
 * Downloads an https .tar.gz (size-capped, retried), checks its sha256 when one is expected, and
 * extracts it with extractTarGz into its cache folder under `cacheDir` (see archiveCacheDir). A mismatch
 * is a LoadoutError 'integrity-mismatch' (exit 7) naming both digests; nothing is extracted then.
 */
export const fetchArchive = async (url: string, options: FetchArchiveOptions): Promise<FetchedArchive> => {
  const shown = redactUrl(url)
  if (hasCredentials(url)) {
    throw usageError('credentials-in-url', `${shown}: a URL must not carry a user name or password`, {
      suggestions: ['put the token in LOADOUT_TOKEN instead'],
    })
  }
  const expected = options.sha256 === undefined ? undefined : normalizeSha256(options.sha256)
  const response = await httpGet(url, {
    env: options.env,
    maxBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
    accept: 'application/gzip, application/x-gzip, application/octet-stream;q=0.9, */*;q=0.5',
    ...(options.timeoutMs === undefined ? {} : {timeoutMs: options.timeoutMs}),
    ...(options.tokenOrigin === undefined ? {} : {tokenOrigin: options.tokenOrigin}),
    ...(options.backoffMs === undefined ? {} : {backoffMs: options.backoffMs}),
  })
  if (response.status !== 'ok') throw new LoadoutError('fetch-failed', EXIT.network, `${shown} answered 304 to a request that was not conditional`)
  const actual = createHash('sha256').update(response.body).digest('hex')
  if (expected !== undefined && actual !== expected) throw integrityMismatch(shown, expected, actual)
  return extractIntoCache(response.body, url, actual, options)
}
