import {createHash, randomBytes} from '../crypto/node-crypto.js'
import {existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join, relative, sep} from 'node:path'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {failpoint} from '../env/failpoint.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {cachedTree, gitCacheDir, resolveCommit, updateMirror} from '../sources/git.js'
import {gitContext} from '../sources/git-process.js'
import {httpGet, secretsOf} from '../sources/http.js'
import {resolvesInside} from '../fs/contain.js'
import {readJsonFile, writeJsonFile} from '../fs/json.js'
import {removeAside} from '../fs/write.js'
import {cloneUrl} from '../sources/parse.js'
import {kindOf} from '../sources/kinds/index.js'
import {entryKindOf} from '../sources/kinds/entries.js'
import {redactSecrets, redactUrl} from '../sources/redact.js'
import type {Source} from '../../model/source.js'
import {problem} from '../../model/problems.js'
import {MAX_CATALOG_BYTES, readCatalogFile, type FetchedCatalog} from './catalog-file.js'
import type {CatalogRead} from '../../model/marketplace.js'
import {sigstoreSigner, type SignerSeen, type SigstoreIdentity} from '../../model/signing.js'

export const CATALOG_PATHS = ['.claude-plugin/marketplace.json', '.agents/plugins/marketplace.json'] as const
export {readCatalogFile} from './catalog-file.js'

export interface FetchOptions {
  env: Environment
  offline: boolean
  ref?: string
  sparse?: readonly string[]
  /** what was fetched last time, for conditional requests and "keep the last good copy" */
  previous?: {commit?: string; etag?: string; lastModified?: string; catalogFile: string; root?: string}
  onProgress?: (message: string) => void
  /**
   * the Sigstore identities the marketplace pins (`--signed-by-identity`): a catalog pushed to an OCI
   * registry must carry a bundle, attached to its manifest, that verifies to one of them
   */
  identities?: readonly SigstoreIdentity[]
}

export type {FetchedCatalog} from './catalog-file.js'

/** The cache key of a source: a hash of its normalized location. */
export const sourceKey = (source: Source, env: Environment): string => {
  const id = kindOf(source).cacheId(source, env.vars.LOADOUT_GITHUB_URL || 'https://github.com')
  return createHash('sha256').update(id).digest('hex').slice(0, 24)
}

export const gitUrlOf = (source: Source, env: Environment): string => cloneUrl(source, env.vars.LOADOUT_GITHUB_URL || 'https://github.com') ?? ''

const offlineMiss = (what: string) =>
  new LoadoutError('offline-not-cached', EXIT.network, `offline, and ${what} is not in the cache`, {
    suggestions: ['run once without --offline (and LOADOUT_OFFLINE unset) to fetch it'],
  })

/** The catalog inside a checked-out or local folder: the Claude file, else the Codex one. */
export const findCatalogFile = (root: string): string | undefined => catalogCandidates(root)[0]

/**
 * Catalog files in a folder, the Claude one first; failing both, those one folder down (a
 * repository that keeps its marketplace in `plugins/.claude-plugin/marketplace.json`). Linked
 * folders are not followed.
 */
export const catalogCandidates = (root: string): string[] => {
  const at = (dir: string) => CATALOG_PATHS.map((rel) => join(dir, rel)).filter((file) => existsSync(file))
  const direct = at(root)
  if (direct.length > 0) return direct
  let folders: string[]
  try {
    folders = readdirSync(root, {withFileTypes: true})
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      .map((e) => e.name)
      .sort()
  } catch {
    return []
  }
  return folders.flatMap((name) => at(join(root, name)))
}

/** The marketplace root of a catalog file: the folder holding its `.claude-plugin` or `.agents`. */
export const catalogRootOf = (file: string): string => {
  const rel = CATALOG_PATHS.find((p) => file.endsWith(join(p)))
  return rel ? file.slice(0, file.length - join(rel).length - 1) : dirname(file)
}

const fetchGit = async (source: Extract<Source, {kind: 'git' | 'github'}>, options: FetchOptions): Promise<FetchedCatalog> => {
  const {env} = options
  const cache = loadoutPaths(env).cache
  const url = gitUrlOf(source, env)
  const base = gitCacheDir(cache, url)
  const mirror = join(base, 'mirror')
  const context = gitContext(env, cache, false, url)
  let action: FetchedCatalog['action'] = 'cached'
  if (options.offline) {
    if (!existsSync(mirror)) throw offlineMiss(redactUrl(url))
  } else {
    options.onProgress?.(`fetching ${redactUrl(url)}`)
    action = await updateMirror(context, url, mirror, {partial: Boolean(options.sparse && options.sparse.length > 0)})
  }
  const commit = await resolveCommit(context, mirror, options.ref ?? source.ref, url)
  const sparse = options.sparse && options.sparse.length > 0 ? [...CATALOG_PATHS.map((p) => dirname(p)), ...options.sparse] : undefined
  const tree = await cachedTree(context, base, commit, sparse)
  const root = source.path ? join(tree, source.path) : tree
  if (source.path && !resolvesInside(tree, root))
    throw notFound('path-not-found', `${source.path} is not a folder of ${redactUrl(url)} at ${commit.slice(0, 12)}`)
  const candidates = catalogCandidates(root)
  if (candidates.length === 0) {
    throw notFound('catalog-not-found', `${redactUrl(url)} has no marketplace catalog (looked for ${CATALOG_PATHS.join(' and ')}, and in each folder)`, {
      suggestions: [
        'is this a plugin rather than a marketplace? try: loadout install <source>',
        'if the catalog is deeper, name its folder: owner/repo with --path <folder>',
      ],
    })
  }
  const found = catalogRootOf(candidates[0]!)
  const subdir = found === root ? undefined : relative(root, found).split(sep).join('/')
  return {origin: 'git', catalogFile: candidates[0]!, candidates, root: found, commit, action, ...(subdir ? {subdir} : {})}
}

const fetchUrl = async (source: Extract<Source, {kind: 'catalog-url'}>, options: FetchOptions): Promise<FetchedCatalog> => {
  const {env} = options
  const dir = join(loadoutPaths(env).cache, 'catalogs', sourceKey(source, env))
  const file = join(dir, 'catalog.json')
  const metaFile = join(dir, 'meta.json')
  const meta = readJsonFile<{etag?: string; lastModified?: string}>(metaFile, {})
  if (options.offline) {
    if (!existsSync(file)) throw offlineMiss(redactUrl(source.url))
    return {origin: 'url', label: redactUrl(source.url), catalogFile: file, action: 'cached', ...meta}
  }
  options.onProgress?.(`downloading ${redactUrl(source.url)}`)
  const cached = existsSync(file)
  const result = await httpGet(source.url, {
    env,
    maxBytes: MAX_CATALOG_BYTES,
    ...(cached && meta.etag ? {etag: meta.etag} : {}),
    ...(cached && meta.lastModified ? {lastModified: meta.lastModified} : {}),
    tokenOrigin: new URL(source.url).origin,
    ...(env.vars.LOADOUT_GITHUB_URL ? {githubHosts: [new URL(env.vars.LOADOUT_GITHUB_URL).hostname]} : {}),
  })
  if (result.status === 'not-modified') return {origin: 'url', label: redactUrl(source.url), catalogFile: file, action: 'not-modified', ...meta}
  // Stage the download; it replaces the cached copy only once it has been read successfully (see commit).
  mkdirSync(dir, {recursive: true})
  const staged = join(dir, `.catalog-${randomBytes(4).toString('hex')}.json`)
  writeFileSync(staged, result.body)
  const newMeta = {...(result.etag ? {etag: result.etag} : {}), ...(result.lastModified ? {lastModified: result.lastModified} : {})}
  return {origin: 'url', label: redactUrl(source.url), catalogFile: staged, action: 'downloaded', ...newMeta}
}

/** Who signed the catalog artifact at `digest`: a bundle attached to it must verify to one of `identities` (exit 7 otherwise). */
const catalogSigner = async (ref: string, digest: string, identities: readonly SigstoreIdentity[], env: Environment): Promise<SignerSeen> => {
  const {verifyOciSignature} = await import('../sources/oci-signature.js')
  return sigstoreSigner(await verifyOciSignature(ref, digest, identities, {env, cacheDir: loadoutPaths(env).cache, label: `marketplace ${ref}`}))
}

/** A catalog pushed to an OCI registry (`marketplace push`): its JSON layer, staged like a downloaded catalog. */
const fetchOciCatalogSource = async (source: Extract<Source, {kind: 'oci'}>, options: FetchOptions): Promise<FetchedCatalog> => {
  const {env} = options
  const dir = join(loadoutPaths(env).cache, 'catalogs', sourceKey(source, env))
  const file = join(dir, 'catalog.json')
  if (options.offline) {
    if (!existsSync(file)) throw offlineMiss(source.ref)
    return {origin: 'url', label: source.ref, catalogFile: file, action: 'cached'}
  }
  options.onProgress?.(`pulling ${source.ref}`)
  const {fetchOciCatalog} = await import('../sources/kinds/oci.js')
  const {bytes, digest} = await fetchOciCatalog(source.ref, env, MAX_CATALOG_BYTES)
  // checked before anything is written: the bundle signs the manifest the catalog's layer was read through
  const signer = options.identities?.length ? await catalogSigner(source.ref, digest, options.identities, env) : undefined
  mkdirSync(dir, {recursive: true})
  const staged = join(dir, `.catalog-${randomBytes(4).toString('hex')}.json`)
  writeFileSync(staged, bytes)
  return {origin: 'url', label: source.ref, catalogFile: staged, action: 'downloaded', ...(signer ? {signer} : {})}
}

const fetchLocal = (source: Extract<Source, {kind: 'local'}>): FetchedCatalog => {
  let stat
  try {
    stat = statSync(source.path)
  } catch {
    throw notFound('path-not-found', `${source.path} does not exist`)
  }
  // a catalog file given by path: its relative plugins are relative to the marketplace root (above `.claude-plugin/`), as Claude Code reads it
  if (stat.isFile()) return {origin: 'local', catalogFile: source.path, root: catalogRootOf(source.path), action: 'local'}
  const candidates = catalogCandidates(source.path)
  if (candidates.length === 0) {
    throw notFound('catalog-not-found', `${source.path} has no marketplace catalog (looked for ${CATALOG_PATHS.join(' and ')}, and in each folder)`, {
      suggestions: ['create one with: loadout marketplace create <name>'],
    })
  }
  return {origin: 'local', catalogFile: candidates[0]!, candidates, root: catalogRootOf(candidates[0]!), action: 'local'}
}

const catalogFetchers = {git: fetchGit, url: fetchUrl, local: fetchLocal, oci: fetchOciCatalogSource} as const

/** Brings a marketplace source's catalog into the cache (or finds it locally) without reading it. */
export const fetchCatalogSource = async (source: Source, options: FetchOptions): Promise<FetchedCatalog> => {
  try {
    const how = kindOf(source).catalog
    if (typeof how !== 'string')
      throw new LoadoutError(how.code, EXIT.usage, how.why, {suggestions: ['add the marketplace that lists it, or install it directly']})
    return await catalogFetchers[how](source as never, options)
  } catch (error) {
    // Whatever a failure says, it must not carry a token from the environment.
    if (error instanceof LoadoutError) {
      const scrubbed = redactSecrets(error.message, secretsOf(options.env))
      if (scrubbed !== error.message) throw new LoadoutError(error.code, error.exitStatus, scrubbed, {suggestions: error.suggestions})
    }
    throw error
  }
}

/** Reads and checks a catalog file: no link out of its folder, bounded size and depth, lenient entries. */

/**
 * Reads a fresh fetch; a download that cannot be read is thrown away, never cached. When the chosen
 * catalog cannot be read and the repository has another (a Codex one beside a broken Claude one),
 * that one is read, with a warning, and `fetched` is changed to name it.
 */
export const readFetchedCatalog = (fetched: FetchedCatalog): CatalogRead => withEntryFolders(readChosenCatalog(fetched), fetched.root)

/** An entry whose folder is not in the repository is listed, with a warning; the others are unaffected. */
const withEntryFolders = (read: CatalogRead, root: string | undefined): CatalogRead => {
  if (!root) return read
  read.catalog.plugins.forEach((entry, index) => {
    const folder = entryKindOf(entry.source).folder?.(entry.source as never)
    if (folder === undefined || existsSync(join(root, folder))) return
    const found = problem(
      'warning',
      'entry-folder-missing',
      `plugin "${entry.name}" points at ${folder}, which is not in the marketplace; it cannot be installed`,
      {path: `plugins[${index}].source`},
    )
    entry.problems.push(found)
    read.problems.push(found)
  })
  return read
}

const readChosenCatalog = (fetched: FetchedCatalog): CatalogRead => {
  try {
    return readCatalogFile(fetched)
  } catch (error) {
    discardDownload(fetched)
    const other = fetched.candidates?.find((file) => file !== fetched.catalogFile)
    if (!other || !(error instanceof LoadoutError) || error.exitStatus !== EXIT.validation) throw error
    const first = fetched.catalogFile
    fetched.catalogFile = other
    const read = readCatalogFile(fetched)
    const shown = (file: string) => (fetched.root ? relative(fetched.root, file) : file)
    read.problems.unshift(
      problem('warning', 'catalog-fallback', `${shown(first)} cannot be read (${error.message}); using ${shown(other)}`, {file: shown(first)}),
    )
    return read
  }
}

/** Moves a staged download into place as the cached catalog once it has been read successfully. */
export const commitDownload = (fetched: FetchedCatalog): FetchedCatalog => {
  if (fetched.action !== 'downloaded') return fetched
  const dir = dirname(fetched.catalogFile)
  const file = join(dir, 'catalog.json')
  renameSync(fetched.catalogFile, file)
  failpoint('catalog.committed')
  writeJsonFile(join(dir, 'meta.json'), {...(fetched.etag ? {etag: fetched.etag} : {}), ...(fetched.lastModified ? {lastModified: fetched.lastModified} : {})})
  return {...fetched, catalogFile: file}
}

export const discardDownload = (fetched: FetchedCatalog): void => {
  if (fetched.action === 'downloaded') rmSync(fetched.catalogFile, {force: true})
}

/** Whether a source is fetched into the cache (every kind but a folder or file on this machine). */
export const readFromCache = (source: Source): boolean => kindOf(source).localPath(source) === undefined

/** Removes the cached copies of a source (never a local folder). */
export const removeCached = (source: Source, env: Environment): void => {
  const cache = loadoutPaths(env).cache
  const cached = kindOf(source).cached
  if (cached === 'git') removeAside(gitCacheDir(cache, gitUrlOf(source, env)))
  if (cached === 'catalog') removeAside(join(cache, 'catalogs', sourceKey(source, env)))
}

/** Drops checked-out trees of a git source other than the one in use. */
export const pruneTrees = (source: Source, env: Environment, keep: string | undefined): void => {
  if (kindOf(source).cached !== 'git') return
  const trees = join(gitCacheDir(loadoutPaths(env).cache, gitUrlOf(source, env)), 'trees')
  if (!existsSync(trees)) return
  for (const name of readdirSync(trees)) {
    const path = join(trees, name)
    if (keep && (keep === path || keep.startsWith(path + '/'))) continue
    removeAside(path)
  }
}
