/**
 * Versions of a plugin as its marketplace repository tags them: `{name}--v{version}` (Claude Code's
 * convention). A range picks the highest tagged version that satisfies it; the tag's commit is the
 * one fetched, and the lock pins it.
 */
import {dirname, join} from 'node:path'
import {fetchSpecKinds, kindOf} from '../sources/kinds/index.js'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {notFound, usageError} from '../../model/errors.js'
import {cachedTree, gitCacheDir} from '../sources/git.js'
import {gitContext, runGit} from '../sources/git-process.js'
import {CATALOG_PATHS, findCatalogFile, gitUrlOf, readCatalogFile} from '../marketplace/fetch.js'
import {readKnownCatalog} from '../marketplace/browse.js'
import type {KnownMarketplace} from '../marketplace/known.js'
import type {PluginEntry} from '../../model/marketplace.js'
import {entrySpec, type ResolvedPlugin} from './resolve.js'
import {followRename} from './renames.js'

export interface TaggedVersion {
  version: string
  tag: string
  commit: string
  /** the commit's committer date, seconds since the epoch (what `minimumReleaseAge` judges) */
  committedAt?: number
}

export const tagName = (plugin: string, version: string): string => `${plugin}--v${version}`

interface MarketRepo {
  url: string
  base: string
  mirror: string
}

const repoOf = (market: KnownMarketplace, env: Environment): MarketRepo | undefined => {
  if (kindOf(market.source).repositoryPath(market.source) === undefined) return undefined
  const url = gitUrlOf(market.source, env)
  const base = gitCacheDir(loadoutPaths(env).cache, url)
  return {url, base, mirror: join(base, 'mirror')}
}

const semverOf = async () => (await import('semver')).default

/** The tagged versions of `plugin` in the marketplace's mirror (as of its last fetch), highest first. */
export const taggedVersions = async (plugin: string, market: KnownMarketplace, env: Environment): Promise<TaggedVersion[]> => {
  const repo = repoOf(market, env)
  if (!repo) return []
  const semver = await semverOf()
  const context = gitContext(env, loadoutPaths(env).cache, false, repo.url)
  const out = await runGit(
    context,
    repo.mirror,
    [
      'for-each-ref',
      '--format=%(refname:strip=2)%09%(objectname)%09%(*objectname)%09%(committerdate:unix)%09%(*committerdate:unix)',
      '--',
      `refs/tags/${plugin}--v*`,
    ],
    {GIT_DIR: repo.mirror},
  ).catch(() => '')
  const found: TaggedVersion[] = []
  for (const line of out.split('\n')) {
    const [tag, object, peeled, date, peeledDate] = line.split('\t')
    if (!tag || !tag.startsWith(`${plugin}--v`)) continue
    const version = semver.valid(tag.slice(plugin.length + 3))
    const commit = peeled || object
    const committedAt = Number(peeled ? peeledDate : date)
    if (version && commit && /^[0-9a-f]{40}$/.test(commit))
      found.push({version, tag, commit, ...(Number.isFinite(committedAt) && committedAt > 0 ? {committedAt} : {})})
  }
  return found.sort((a, b) => semver.rcompare(a.version, b.version))
}

/** The catalog entry for `plugin` as the marketplace listed it at `commit`, and how to fetch it there. */
const resolveAt = async (plugin: string, market: KnownMarketplace, tagged: TaggedVersion, env: Environment): Promise<ResolvedPlugin> => {
  const repo = repoOf(market, env)!
  const cache = loadoutPaths(env).cache
  const context = gitContext(env, cache, false, repo.url)
  const under = kindOf(market.source).repositoryPath(market.source) ?? ''
  const tree = await cachedTree(
    context,
    repo.base,
    tagged.commit,
    CATALOG_PATHS.map((p) => [under, dirname(p)].filter(Boolean).join('/')),
  )
  const root = under ? join(tree, under) : tree
  const catalogFile = findCatalogFile(root)
  if (!catalogFile) throw notFound('catalog-not-found', `${market.name} has no catalog at tag ${tagged.tag}`)
  const {catalog} = readCatalogFile({origin: 'git', catalogFile, root, action: 'cached'})
  const entry = catalog.plugins.find((p) => p.name === plugin)
  if (!entry) throw notFound('plugin-not-found', `tag ${tagged.tag} of ${market.name} does not list ${plugin}`)
  const spec = entrySpec(entry, {...market, root, commit: tagged.commit}, env)
  // The folder is fetched from the repository at the tag's commit, not from the sparse catalog tree.
  const repository = fetchSpecKinds[spec.kind].marketplaceRepository(spec as never)
  const fetch = repository
    ? {
        kind: 'git' as const,
        url: repository.url,
        sha: tagged.commit,
        ...(repository.path ? {path: repository.path} : {}),
        tag: tagged.tag,
        label: `${spec.label} (${tagged.tag})`,
      }
    : spec
  return {id: `${plugin}@${market.name}`, name: plugin, marketplace: market.name, entry: {...entry, version: tagged.version}, version: tagged.version, fetch}
}

/** The entry a catalog lists for `name`, following a rename. */
const currentEntry = (name: string, market: KnownMarketplace): PluginEntry | undefined => {
  const {catalog} = readKnownCatalog(market)
  const outcome = followRename(catalog, name)
  return catalog.plugins.find((p) => p.name === (outcome.kind === 'renamed' ? outcome.to : name))
}

export interface VersionChoice {
  /** the tag chosen; absent with `current`: the catalog's current entry satisfies the range */
  tagged?: TaggedVersion
  current: boolean
  /** every version known, highest first */
  available: string[]
}

/** A tag made at or before `releasedBefore` (ms since the epoch); one whose date is unknown is not. */
export const releasedBy = (tagged: TaggedVersion, releasedBefore: number | undefined): boolean =>
  releasedBefore === undefined || (tagged.committedAt !== undefined && tagged.committedAt * 1000 <= releasedBefore)

/**
 * Which version of `name` a range picks: the highest tag that satisfies it, else the catalog's
 * current entry when its version does. Undefined when nothing does. With `releasedBefore` (a
 * `minimumReleaseAge` cool-down), tags made after it are passed over; the current entry is judged by
 * the caller, which knows its commit.
 */
export const chooseVersion = async (
  name: string,
  market: KnownMarketplace,
  range: string,
  env: Environment,
  releasedBefore?: number,
): Promise<VersionChoice> => {
  const semver = await semverOf()
  if (semver.validRange(range) === null)
    throw usageError('bad-version-range', `"${range}" is not a version or a semver range`, {
      suggestions: ['write a version (1.2.3) or a range (^1.2, ~2.1.0, >=1 <3)'],
    })
  const tags = await taggedVersions(name, market, env)
  const current = currentEntry(name, market)?.version
  const available = [...new Set([...tags.map((t) => t.version), ...(current ? [current] : [])])]
  const best = tags.find((t) => semver.satisfies(t.version, range) && releasedBy(t, releasedBefore))
  const currentFits = Boolean(current && semver.valid(current) && semver.satisfies(current, range))
  if (best && !(currentFits && semver.gt(current!, best.version))) return {tagged: best, current: false, available}
  return {current: currentFits, available}
}

/** Resolves `name@market` at the tag a range chose. */
export const resolveTagged = (name: string, market: KnownMarketplace, tagged: TaggedVersion, env: Environment): Promise<ResolvedPlugin> =>
  resolveAt(name, market, tagged, env)
