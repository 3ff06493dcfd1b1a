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

const local: EntrySourceKind<Of<'local'>> = {kind: 'local', folderAt: 'source.path', ...folderParts}

const github: EntrySourceKind<Of<'github'>> = {
  kind: 'github',
  describe: (source) => `github:${source.repo}${at(source)}`,
  remote: (source, githubUrl) => ({url: githubCloneUrl(source.repo, githubUrl), ...pinned(source)}),
  supported: true,
  fetch: (source, {githubUrl}) => ({kind: 'git', url: githubCloneUrl(source.repo, githubUrl), ...pinned(source), label: `github:${source.repo}`}),
}

const url: EntrySourceKind<Of<'url'>> = {
  kind: 'url',
  describe: (source) => `${source.url}${at(source)}`,
  remote: (source) => ({url: source.url, ...pinned(source)}),
  supported: true,
  fetch: (source) => ({kind: 'git', url: source.url, ...pinned(source), label: source.url}),
}

const gitSubdir: EntrySourceKind<Of<'git-subdir'>> = {
  kind: 'git-subdir',
  describe: (source) => `${source.url} (${source.path})${at(source)}`,
  remote: (source) => ({url: source.url, ...pinned(source)}),
  supported: true,
  fetch: (source) => ({kind: 'git', url: source.url, path: source.path, ...pinned(source), label: `${source.url} (${source.path})`}),
}

const archive: EntrySourceKind<Of<'archive'>> = {
  kind: 'archive',
  describe: (source) => source.url,
  supported: true,
  fetch: (source, {tokenOrigin}) => ({
    kind: 'archive',
    url: source.url,
    ...(source.sha256 ? {sha256: source.sha256} : {}),
    label: source.url,
    ...(tokenOrigin ? {tokenOrigin} : {}),
  }),
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

/** The record of an entry source's kind, typed for that source. */
export const entryKindOf = <S extends PluginSource>(source: S): EntrySourceKind<S> => entrySourceKinds[source.kind] as unknown as EntrySourceKind<S>
