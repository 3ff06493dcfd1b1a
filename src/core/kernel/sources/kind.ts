import type {PluginFetchSpec, Source} from '../../model/source.js'
import type {SourceHost} from './hosts.js'
import type {Environment} from '../env/environment.js'

/** The environment variables a kind reads ($LOADOUT_GITHUB_URL, $LOADOUT_NPM_REGISTRY). */
export type Vars = Readonly<Record<string, string | undefined>>

/** How a marketplace catalog comes from a source: a git checkout, one URL, a local folder, an OCI artifact, or refused. */
export type CatalogFetch = 'git' | 'url' | 'local' | 'oci' | {code: string; why: string}

/** What a direct install (`loadout install <source>`) needs besides the source. */
export interface DirectContext {
  vars: Vars
  projectRoot: string
  /** the source as a person reads it */
  label: string
}

/** A plugin fetched straight from a source: the name to use when it names itself nowhere, and where its files are. */
export interface DirectPlugin {
  name: string
  fetch: PluginFetchSpec
}

/**
 * Everything loadout knows about one kind of source, in one module under `kinds/`. Operations ask
 * `sourceKinds[source.kind]` instead of switching on the kind. What the user typed is parsed once
 * (`parseSource`, from the forms in `parse.ts`, each naming its kind).
 */
export interface SourceKind<S extends Source> {
  kind: S['kind']
  /** how a person reads it: credentials redacted; github and git labels parse back */
  describe: (source: S) => string
  /** the host policy judges for it (every hop after a redirect is judged again by the request policy) */
  host: (source: S, vars: Vars) => SourceHost
  /** the URL git clones, for a repository */
  gitUrl: (source: S, githubUrl: string) => string | undefined
  /** what its cache key is made of: one spelling per location */
  cacheId: (source: S, githubUrl: string) => string
  /** how a marketplace catalog is fetched from it */
  catalog: CatalogFetch
  /** what `marketplace remove` drops from the cache: a git mirror, a downloaded catalog, or nothing */
  cached?: 'git' | 'catalog'
  /** the folder or file on this machine it is read from in place (nothing cached, no request) */
  localPath: (source: S) => string | undefined
  /** the folder inside a repository it names ('' for the root); undefined for a kind that is no repository */
  repositoryPath: (source: S) => string | undefined
  /** a copy of it naming a folder inside its repository (for a kind that is a repository) */
  withRepositoryPath: (source: S, path: string) => S
  /** whether $LOADOUT_GITHUB_URL decides where it is (so a marketplace records it) */
  onGithub: boolean
  /** where LOADOUT_TOKEN may go for an archive a catalog from this source lists */
  tokenOrigin: (source: S) => string | undefined
  /** a plugin installed straight from it (throws for a kind that cannot hold a plugin) */
  direct: (source: S, context: DirectContext) => DirectPlugin
}

/** What a registry says now about an artifact installed from it (`outdated`): the versions and whether it moved. */
export interface ArtifactNews {
  wanted: {version?: string}
  latest: {version?: string}
  outdated: boolean
  reason?: string
  /** the range it was installed for */
  range?: string
}

/** One kind of resolved plugin location (`PluginFetchSpec`): what policy judges and whether it is pinned. */
export interface FetchSpecKind<S extends PluginFetchSpec> {
  kind: S['kind']
  host: (spec: S) => SourceHost
  /** a commit or a digest named by the spec itself */
  pinned: (spec: S) => boolean
  /** the same plugin at a commit (a git source, or a folder of a git marketplace), or undefined */
  atCommit: (spec: S, commit: string) => PluginFetchSpec | undefined
  /** a folder of a git marketplace: its repository and the folder in it */
  marketplaceRepository: (spec: S) => {url: string; path: string} | undefined
  /** a git repository and the ref it follows, for `outdated` */
  remote: (spec: S) => {url: string; ref?: string} | undefined
  /** a folder on this machine read in place, whose content `outdated` compares with what was installed */
  localFolder: (spec: S) => string | undefined
  /** fetched as a registry artifact whose version and integrity the lock records */
  artifact: boolean
  /**
   * An artifact installed straight from its registry (`outdated`): what the registry names now for
   * the spec's tag or range, given the version and digest installed; undefined when it is pinned to
   * a digest (nothing to ask). A kind without it is judged by `remote` or `localFolder`.
   */
  news?: (spec: S, installed: {version?: string; integrity?: string}, env: Environment) => Promise<ArtifactNews | undefined>
}
