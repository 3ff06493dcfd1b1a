import {usageError} from '../../../model/errors.js'
import type {PluginSource} from '../../../model/marketplace.js'
import type {PluginFetchSpec} from '../../../model/source.js'
import {DEFAULT_GITHUB_URL} from '../git-url.js'
import {ociEntry} from './oci.js'

/** What turning a catalog entry's source into a plugin location needs from its marketplace. */
export interface EntryContext {
  /** `plugin@marketplace` */
  label: string
  githubUrl: string | undefined
  /** where LOADOUT_TOKEN may go for an archive the catalog lists (a catalog URL's origin) */
  tokenOrigin: string | undefined
  /** a folder of the marketplace, as the marketplace resolves it */
  folder: (path: string) => PluginFetchSpec
}

/** What a source object check found wrong: the rule, and the field of the source it is about. */
export interface BrokenSource {
  code: string
  message: string
  field?: string
}

type Pinnable = Extract<PluginSource, {kind: 'github' | 'url' | 'git-subdir'}>

/**
 * The checks the catalog reader (`kernel/marketplace/catalog.ts`) lends a kind to read its JSON
 * object (`{"source": "<kind>", ...}`): each returns the value or a BrokenSource naming the field.
 */
export interface EntryChecks {
  /** `value[field]` when it is a string, else missing or of the wrong type */
  string: (value: Record<string, unknown>, field: string, what: string) => string | BrokenSource
  /** an https URL with no user name or password, at `url` */
  remoteUrl: (value: unknown) => string | BrokenSource
  /** the entry's optional `ref` and `sha`, checked and added */
  pinned: (source: Pinnable, value: Record<string, unknown>) => PluginSource | BrokenSource
  /** a string source (`"./path"`), as the catalog reads one */
  pathSource: (path: string) => PluginSource | BrokenSource
  /** a path that stays inside the repository, from `field`, as `./a/b` */
  insidePath: (path: string, field: string) => string | BrokenSource
  githubRepo: (repo: string) => BrokenSource | undefined
  sha256: (digest: string) => BrokenSource | undefined
  npm: (value: Record<string, unknown>) => PluginSource | BrokenSource
  /** the catalog was fetched by URL: no folder of the marketplace exists beside it */
  fetchedByUrl: boolean
  relativeUnderUrl: (path: string, field: string) => BrokenSource
  quoted: (text: string) => string
}

const isBroken = (value: unknown): value is BrokenSource => typeof value === 'object' && value !== null && 'code' in value

/** A repository an entry names: what `outdated` asks for its head. */
export interface EntryRemote {
  url: string
  ref?: string
  sha?: string
}

/**
 * One kind of source a catalog entry names (`plugins[].source` in marketplace.json). The catalog
 * reader (`kernel/marketplace/catalog.ts`) checks the JSON; this says what each kind means.
 */
export interface EntrySourceKind<S extends PluginSource> {
  kind: S['kind']
  describe: (source: S) => string
  /** a folder of the marketplace (`./path`), relative to its root */
  folder?: (source: S) => string
  /** where the folder is written in the entry: the source itself (`"./path"`) or its `path` field */
  folderAt?: 'source' | 'source.path'
  /** a git repository and where in its history */
  remote?: (source: S, githubUrl: string | undefined) => EntryRemote
  /** whether loadout can install it at all (an unknown type is listed, with a warning) */
  supported: boolean
  fetch: (source: S, context: EntryContext) => PluginFetchSpec
  /** reads `{"source": "<kind>", ...}` from a catalog; a kind without it is never written as an object */
  read?: (value: Record<string, unknown>, checks: EntryChecks) => PluginSource | BrokenSource
}

type Of<K extends PluginSource['kind']> = Extract<PluginSource, {kind: K}>

const at = (source: {ref?: string; sha?: string}): string => `${source.ref ? `#${source.ref}` : ''}${source.sha ? `@${source.sha.slice(0, 12)}` : ''}`
const pinned = (source: {ref?: string; sha?: string}) => ({...(source.ref ? {ref: source.ref} : {}), ...(source.sha ? {sha: source.sha} : {})})
const githubCloneUrl = (repo: string, githubUrl: string | undefined): string => `${(githubUrl || DEFAULT_GITHUB_URL).replace(/\/+$/, '')}/${repo}.git`

/** A folder of the marketplace: `"./path"` (relative) or `{"source": "local", "path": "./path"}`. */
const folderParts = {
  describe: (source: {path: string}) => source.path,
  folder: (source: {path: string}) => source.path,
  supported: true,
  fetch: (source: {path: string}, {folder}: EntryContext) => folder(source.path),
}

const relative: EntrySourceKind<Of<'relative'>> = {kind: 'relative', folderAt: 'source', ...folderParts}

const local: EntrySourceKind<Of<'local'>> = {
  kind: 'local',
  folderAt: 'source.path',
  ...folderParts,
  read: (value, checks) => {
    const path = checks.string(value, 'path', 'a "./path" inside the marketplace')
    if (isBroken(path)) return path
    const inside = checks.insidePath(path, 'path')
    if (isBroken(inside)) return inside
    if (path !== '.' && !path.startsWith('./')) return {code: 'source-not-relative', message: `path ${checks.quoted(path)} must start with "./"`, field: 'path'}
    if (checks.fetchedByUrl) return checks.relativeUnderUrl(path, 'path')
    return {kind: 'local', path: inside}
  },
}

const github: EntrySourceKind<Of<'github'>> = {
  kind: 'github',
  describe: (source) => `github:${source.repo}${at(source)}`,
  remote: (source, githubUrl) => ({url: githubCloneUrl(source.repo, githubUrl), ...pinned(source)}),
  supported: true,
  fetch: (source, {githubUrl}) => ({kind: 'git', url: githubCloneUrl(source.repo, githubUrl), ...pinned(source), label: `github:${source.repo}`}),
  read: (value, checks) => {
    const repo = checks.string(value, 'repo', 'the GitHub repository as "owner/repo"')
    if (isBroken(repo)) return repo
    return checks.githubRepo(repo) ?? checks.pinned({kind: 'github', repo}, value)
  },
}

const url: EntrySourceKind<Of<'url'>> = {
  kind: 'url',
  describe: (source) => `${source.url}${at(source)}`,
  remote: (source) => ({url: source.url, ...pinned(source)}),
  supported: true,
  fetch: (source) => ({kind: 'git', url: source.url, ...pinned(source), label: source.url}),
  read: (value, checks) => {
    // Codex writes the repository itself as {"source": "url", "url": "./"}: a path, not a remote
    if (typeof value.url === 'string' && (value.url === '.' || value.url.startsWith('./'))) return checks.pathSource(value.url)
    const url = checks.remoteUrl(value.url)
    return isBroken(url) ? url : checks.pinned({kind: 'url', url}, value)
  },
}

const gitSubdir: EntrySourceKind<Of<'git-subdir'>> = {
  kind: 'git-subdir',
  describe: (source) => `${source.url} (${source.path})${at(source)}`,
  remote: (source) => ({url: source.url, ...pinned(source)}),
  supported: true,
  fetch: (source) => ({kind: 'git', url: source.url, path: source.path, ...pinned(source), label: `${source.url} (${source.path})`}),
  read: (value, checks) => {
    const url = checks.remoteUrl(value.url)
    if (isBroken(url)) return url
    const path = checks.string(value, 'path', 'the plugin folder inside the repository')
    if (isBroken(path)) return path
    const inside = checks.insidePath(path, 'path')
    if (isBroken(inside)) return inside
    if (inside === './')
      return {
        code: 'source-path-root',
        message: `path ${checks.quoted(path)} names the repository root; use {"source": "url"} for a whole repository`,
        field: 'path',
      }
    return checks.pinned({kind: 'git-subdir', url, path: inside.slice(2)}, value)
  },
}

const archive: EntrySourceKind<Of<'archive'>> = {
  kind: 'archive',
  describe: (source) => source.url,
  supported: true,
  fetch: (source, {tokenOrigin}) => ({
    kind: 'archive',
    url: source.url,
    ...(source.sha256 ? {sha256: source.sha256} : {}),
    ...(source.sigstore ? {sigstore: source.sigstore} : {}),
    label: source.url,
    ...(tokenOrigin ? {tokenOrigin} : {}),
  }),
  read: (value, checks) => {
    const url = checks.remoteUrl(value.url)
    if (isBroken(url)) return url
    // a Sigstore bundle for the archive, by URL: checked against the marketplace's --signed-by-identity
    const sigstore = value.sigstore === undefined ? undefined : checks.remoteUrl(value.sigstore)
    if (isBroken(sigstore)) return sigstore
    const withBundle = sigstore ? {sigstore} : {}
    if (value.sha256 === undefined) return {kind: 'archive', url, ...withBundle}
    const sha256 = checks.string(value, 'sha256', "the archive's sha256 (64 hexadecimal characters)")
    if (isBroken(sha256)) return sha256
    return checks.sha256(sha256) ?? {kind: 'archive', url, sha256: sha256.toLowerCase(), ...withBundle}
  },
}

const npm: EntrySourceKind<Of<'npm'>> = {
  kind: 'npm',
  describe: (source) => `npm:${source.package}${source.version ? `@${source.version}` : ''}${source.registry ? ` (${source.registry})` : ''}`,
  supported: true,
  fetch: (source) => ({
    kind: 'npm',
    package: source.package,
    ...(source.version ? {version: source.version} : {}),
    ...(source.registry ? {registry: source.registry} : {}),
    label: `npm:${source.package}${source.version ? `@${source.version}` : ''}`,
  }),
  read: (value, checks) => checks.npm(value),
}

const unsupported: EntrySourceKind<Of<'unsupported'>> = {
  kind: 'unsupported',
  describe: (source) => `unsupported source (${source.type})`,
  supported: false,
  fetch: (source, {label}) => {
    throw usageError('unsupported-source', `${label} has an unsupported source type (${source.type}); loadout cannot install it`)
  },
}

/** Every kind of catalog entry source: adding one is one record and one line here. */
export const entrySourceKinds: {[K in PluginSource['kind']]: EntrySourceKind<Of<K>>} = {
  relative,
  local,
  github,
  url,
  'git-subdir': gitSubdir,
  archive,
  npm,
  oci: ociEntry,
  unsupported,
}

/** The kind a catalog's `{"source": "<type>"}` names, when loadout reads that type; undefined for pip and the rest. */
export const entryKindReading = (type: string): EntrySourceKind<PluginSource> | undefined => {
  if (!Object.hasOwn(entrySourceKinds, type)) return undefined
  const kind = entrySourceKinds[type as PluginSource['kind']] as unknown as EntrySourceKind<PluginSource>
  return kind.read ? kind : undefined
}

/** The record of an entry source's kind, typed for that source. */
export const entryKindOf = <S extends PluginSource>(source: S): EntrySourceKind<S> => entrySourceKinds[source.kind] as unknown as EntrySourceKind<S>
