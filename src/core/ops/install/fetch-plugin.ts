import {existsSync, statSync} from 'node:fs'
import {basename, join} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {cachedTree, gitCacheDir, hasCommit, resolveCommit, updateMirror} from '../../kernel/sources/git.js'
import {gitContext} from '../../kernel/sources/git-process.js'
import {resolvesInside} from '../../kernel/fs/contain.js'
import {intactCopy, pluginFiles, type PluginFiles} from './plugin-copy.js'
import {redactUrl} from '../../kernel/sources/redact.js'
import {localGitCommit} from './local-commit.js'
import type {PluginFetchSpec} from '../../kernel/resolve/resolve.js'
import type {SignerSeen} from '../../model/signing.js'
import type {NpmCoolDown, NpmProvenance} from '../../kernel/sources/npm.js'
import {findGitRoot} from '../../kernel/env/scope.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {heldOf, releaseCutoff, releaseTooYoung} from '../../kernel/policy/release-age.js'
import type {Policy} from '../../model/policy.js'
import {ANNOTATION} from '../../kernel/oci/media-types.js'

export interface FetchedPlugin {
  /** the folder holding the plugin (inside the cache, or the local folder itself) */
  root: string
  commit?: string
  archiveSha256?: string
  /** a package fetched from a registry: the version it resolved to and the registry's integrity */
  artifact?: {version: string; integrity: string}
  integrity: string
  /** an npm package: what the registry's signing keys proved about it */
  provenance?: NpmProvenance
  /** who signed `commit` (or the archive), when its marketplace declares keys or identities (the lock records it) */
  signer?: SignerSeen
  /** the files of `root`, when they were hashed file by file here (their integrity is `integrity`) */
  files?: PluginFiles
  /**
   * what `root` holds, named by where it comes from, when that fixes its files: a repository (by its
   * cache folder's hash of the URL, no credentials), the commit and the folder in it. A copy made of
   * `root` keeps it, to be read again for the same origin (plugin-copy.ts `intactCopy`)
   */
  origin?: string
}

const offlineMiss = (label: string) =>
  new LoadoutError('offline-not-cached', EXIT.network, `offline, and ${label} is not in the cache`, {suggestions: ['run once without --offline to fetch it']})

export interface FetchOptions {
  /** where the installed copy of this plugin at `commit` would be: read instead of the cache while made from the same origin and intact (plugin-copy.ts `intactCopy`) */
  keptCopyAt?: (commit: string) => string
}

const fetchGitPlugin = async (spec: Spec<'git'>, env: Environment, offline: boolean, options: FetchOptions): Promise<FetchedPlugin> => {
  const cache = loadoutPaths(env).cache
  const base = gitCacheDir(cache, spec.url)
  const mirror = join(base, 'mirror')
  const context = gitContext(env, cache, false, spec.url)
  // A pinned commit already in the mirror needs no network at all.
  const pinnedAndPresent = async () => Boolean(spec.sha && existsSync(mirror) && (await hasCommit(context, mirror, spec.sha)))
  if (offline) {
    if (!existsSync(mirror)) throw offlineMiss(redactUrl(spec.url))
  } else if (!(await pinnedAndPresent())) {
    await updateMirror(context, spec.url, mirror, {partial: Boolean(spec.path)})
  }
  const commit = await resolveCommit(context, mirror, spec.sha ?? spec.ref, spec.url)
  const origin = `git:${basename(base)}@${commit}:${spec.path ?? ''}`
  const kept = options.keptCopyAt?.(commit)
  const intact = kept === undefined ? undefined : await intactCopy(kept, origin)
  if (kept !== undefined && intact) return {root: kept, commit, integrity: intact.integrity, files: intact, origin}
  const tree = await cachedTree(context, base, commit, spec.path ? [spec.path] : undefined)
  const root = spec.path ? join(tree, spec.path) : tree
  if (!existsSync(root) || !resolvesInside(tree, root))
    throw notFound('path-not-found', `${spec.path} is not a folder of ${redactUrl(spec.url)} at ${commit.slice(0, 12)}`)
  const files = await pluginFiles(root)
  return {root, commit, integrity: files.integrity, files, origin}
}

type Spec<K extends PluginFetchSpec['kind']> = Extract<PluginFetchSpec, {kind: K}>

const fetchFolder = async (spec: Spec<'folder'>, env: Environment): Promise<FetchedPlugin> => {
  let isDir = false
  try {
    isDir = statSync(spec.path).isDirectory()
  } catch {
    // reported below
  }
  if (!isDir) throw notFound('plugin-folder-missing', `${spec.path} is not a folder`)
  const commit = spec.commit ?? (await localGitCommit(spec.path, env))
  const files = await pluginFiles(spec.path)
  return {root: spec.path, ...(commit ? {commit} : {}), integrity: files.integrity, files}
}

const fetchArchivePlugin = async (spec: Spec<'archive'>, env: Environment, offline: boolean): Promise<FetchedPlugin> => {
  const {cachedArchive, fetchArchive} = await import('../../kernel/sources/archive.js')
  const options = {
    env,
    cacheDir: loadoutPaths(env).cache,
    ...(spec.sha256 ? {sha256: spec.sha256} : {}),
    ...(spec.tokenOrigin ? {tokenOrigin: spec.tokenOrigin} : {}),
  }
  // offline, only bytes checked against a known sha256 may stand in for the download
  const fetched = offline ? await cachedArchive(spec.url, options) : await fetchArchive(spec.url, options)
  if (!fetched) throw offlineMiss(`${redactUrl(spec.url)}${spec.sha256 ? '' : ' (without a sha256 there is nothing to check a cached copy against)'}`)
  return {root: fetched.dir, archiveSha256: fetched.sha256, integrity: fetched.integrity}
}

/**
 * Policy `minimumReleaseAge` for a version the registry is asked to choose: a lock's pinned integrity
 * was chosen when it was locked (as pnpm reads its lockfile), and offline nothing new is chosen.
 */
const coolDownFor = (spec: {integrity?: string}, env: Environment, offline: boolean): {policy: Policy; cutoff: number} | undefined => {
  if (spec.integrity || offline) return undefined
  const policy = loadPolicy(env, findGitRoot(env.cwd) ?? env.cwd)
  const cutoff = releaseCutoff(policy)
  return cutoff === undefined ? undefined : {policy, cutoff}
}

const npmCoolDown = (spec: Spec<'npm'>, env: Environment, offline: boolean): NpmCoolDown | undefined => {
  const rule = coolDownFor(spec, env, offline)
  return rule && {cutoff: rule.cutoff, minimumReleaseAge: rule.policy.minimumReleaseAge!.text, file: rule.policy.minimumReleaseAge!.from}
}

const fetchNpmPlugin = async (spec: Spec<'npm'>, env: Environment, offline: boolean): Promise<FetchedPlugin> => {
  const {fetchNpm} = await import('../../kernel/sources/npm.js')
  const coolDown = npmCoolDown(spec, env, offline)
  const fetched = await fetchNpm(spec, {env, cacheDir: loadoutPaths(env).cache, offline, ...(coolDown ? {coolDown} : {})})
  return {
    root: fetched.root,
    artifact: {version: fetched.version, integrity: fetched.artifactIntegrity},
    integrity: fetched.integrity,
    provenance: fetched.provenance,
  }
}

const fetchOciPlugin = async (spec: Spec<'oci'>, env: Environment, offline: boolean): Promise<FetchedPlugin> => {
  const {fetchOci} = await import('../../kernel/sources/kinds/oci.js')
  const fetched = await fetchOci(spec.ref, {env, cacheDir: loadoutPaths(env).cache, offline, ...(spec.integrity ? {digest: spec.integrity} : {})})
  // the date a publisher may stamp (`org.opencontainers.image.created`); without it there is none to judge
  const rule = coolDownFor(spec, env, offline)
  const created = Date.parse(fetched.annotations[ANNOTATION.created] ?? '')
  if (rule && created > rule.cutoff)
    throw releaseTooYoung(spec.ref, heldOf(rule.policy, {commit: fetched.digest, at: new Date(created)}, fetched.version, Date.now()))
  return {root: fetched.dir, artifact: {version: fetched.version ?? fetched.digest, integrity: fetched.digest}, integrity: fetched.integrity}
}

/** One fetcher per kind of plugin location (the table's keys are `PluginFetchSpec`'s kinds). */
const fetchers: {[K in PluginFetchSpec['kind']]: (spec: Spec<K>, env: Environment, offline: boolean, options: FetchOptions) => Promise<FetchedPlugin>} = {
  folder: fetchFolder,
  git: fetchGitPlugin,
  archive: fetchArchivePlugin,
  npm: fetchNpmPlugin,
  oci: fetchOciPlugin,
}

/** Brings a plugin's files to a local folder: a cached git tree, an extracted archive, or a folder. */
export const fetchPlugin = async (spec: PluginFetchSpec, env: Environment, offline: boolean, options: FetchOptions = {}): Promise<FetchedPlugin> =>
  (fetchers[spec.kind] as (spec: PluginFetchSpec, env: Environment, offline: boolean, options: FetchOptions) => Promise<FetchedPlugin>)(
    spec,
    env,
    offline,
    options,
  )
