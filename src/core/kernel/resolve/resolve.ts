import {relative, resolve, sep} from 'node:path'
import type {Environment} from '../env/environment.js'
import {conflict, notFound, usageError, validationFailed} from '../../model/errors.js'
import {followInsideRoot, isInside} from '../fs/contain.js'
import {readKnownCatalog} from '../marketplace/browse.js'
import {knownMarketplaces, type KnownMarketplace} from '../marketplace/known.js'
import {marketEnv} from '../state/marketplaces.js'
import type {DroppedEntry, PluginEntry} from '../../model/marketplace.js'
import {cloneUrl, sourceLabel, type ParseSourceOptions} from '../sources/parse.js'
import {closestNames} from '../text/suggest.js'
import {followRename} from './renames.js'
import {kindOf} from '../sources/kinds/index.js'
import {entryKindOf} from '../sources/kinds/entries.js'
import type {PluginFetchSpec, Source} from '../../model/source.js'

export type {PluginFetchSpec} from '../../model/source.js'

export interface ResolvedPlugin {
  /** plugin@marketplace */
  id: string
  /** for a direct git or archive source: the name to use when the plugin names itself nowhere */
  name: string
  marketplace: string
  entry?: PluginEntry
  version?: string
  fetch: PluginFetchSpec
}

/** The pseudo-marketplace of plugins installed straight from a source. */
export const DIRECT = 'direct'

/** A relative plugin folder, its links followed while they stay inside the marketplace (see followInsideRoot). */
const followInside = (root: string, path: string, label: string, shown: string): {root: string; path: string} => {
  const followed = followInsideRoot(root, path)
  if ('path' in followed) return followed
  throw validationFailed(followed.code, `${label}: ${shown} goes through ${followed.why}`, {
    suggestions: ['fix the link in the marketplace repository, or replace it with the folder itself'],
  })
}

/** A folder of the marketplace (relative to its root); of a git marketplace, also its repository at the commit read. */
const marketplaceFolder = (written: string, market: KnownMarketplace, env: Environment, label: string): PluginFetchSpec => {
  if (!market.root)
    throw usageError('relative-without-root', `${label}: a relative source needs a marketplace checkout, and "${market.name}" was fetched as a bare catalog`)
  const path = resolve(market.root, written)
  if (!isInside(market.root, path)) throw usageError('source-outside', `${label}: ${written} points outside the marketplace`)
  const real = followInside(market.root, path, label, written)
  // A folder of a git marketplace is at the commit the marketplace was read at: recorded, so a
  // lock can fetch that folder at that commit again.
  const url = market.commit ? cloneUrl(market.source, env.vars.LOADOUT_GITHUB_URL || undefined) : undefined
  const under = kindOf(market.source).repositoryPath(market.source) ?? ''
  const inRepo = [under, relative(real.root, real.path).split(sep).join('/')].filter(Boolean).join('/')
  return {kind: 'folder', path: real.path, label: written, ...(url && market.commit ? {commit: market.commit, git: {url, path: inRepo}} : {})}
}

export const entrySpec = (entry: PluginEntry, market: KnownMarketplace, machineEnv: Environment): PluginFetchSpec => {
  const source = entry.source
  // GitHub sources of a marketplace added with a GitHub base URL are on that server
  const env = marketEnv(market, machineEnv)
  const label = `${entry.name}@${market.name}`
  const folder = (path: string): PluginFetchSpec => marketplaceFolder(path, market, env, label)
  const tokenOrigin = kindOf(market.source).tokenOrigin(market.source)
  return entryKindOf(source).fetch(source, {label, githubUrl: env.vars.LOADOUT_GITHUB_URL || undefined, tokenOrigin, folder})
}

/** A listed entry that was skipped for a broken rule is refused with that rule, not as "not in marketplace". */
const droppedEntry = (name: string, market: KnownMarketplace, dropped: readonly DroppedEntry[]): Error | undefined => {
  const found = dropped.find((d) => d.name === name)
  if (!found) return undefined
  return validationFailed(found.code, `plugin "${name}" is listed in marketplace "${market.name}" but its entry was dropped: ${found.message}`, {
    suggestions: [`see every problem of the catalog: loadout marketplace info ${market.name}`],
  })
}

/** `name` at its current entry in `market` (following a rename). */
export const fromMarketplace = (name: string, market: KnownMarketplace, env: Environment): ResolvedPlugin => {
  const {catalog, dropped} = readKnownCatalog(market)
  const outcome = followRename(catalog, name)
  const entry = catalog.plugins.find((p) => p.name === (outcome.kind === 'renamed' ? outcome.to : name))
  if (outcome.kind === 'removed')
    throw notFound('plugin-removed', `plugin "${name}" was removed from marketplace "${market.name}"`, {
      suggestions: [`see what it lists: loadout marketplace info ${market.name}`],
    })
  if (!entry) {
    const why = droppedEntry(name, market, dropped ?? [])
    if (why) throw why
    const near = closestNames(
      name,
      catalog.plugins.map((p) => p.name),
    )
    throw notFound('plugin-not-found', `plugin "${name}" is not in marketplace "${market.name}" (${catalog.plugins.length} plugins)`, {
      suggestions: [...(near.length > 0 ? [`did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`] : []), `try: loadout search ${name}`],
    })
  }
  return {
    id: `${entry.name}@${market.name}`,
    name: entry.name,
    marketplace: market.name,
    entry,
    ...(entry.version ? {version: entry.version} : {}),
    fetch: entrySpec(entry, market, env),
  }
}

/** The options parseSource needs from the environment. */
export const sourceOptionsOf = (env: Environment): ParseSourceOptions => ({
  cwd: env.cwd,
  home: env.home,
  ...(env.vars.LOADOUT_GITHUB_URL ? {githubUrl: env.vars.LOADOUT_GITHUB_URL} : {}),
})

/** A plugin installed straight from a source (owner/repo, git URL, folder, archive URL, npm package). */
export const resolveDirect = (source: Source, env: Environment, projectRoot: string): ResolvedPlugin => {
  const label = sourceLabel(source)
  const direct = kindOf(source).direct(source, {vars: env.vars, projectRoot, label})
  return {id: '', name: direct.name, marketplace: DIRECT, fetch: direct.fetch}
}

/** The one known marketplace that lists `name`; none or several is an error naming them. */
export const marketplaceListing = (name: string, env: Environment, projectRoot: string): KnownMarketplace => {
  const matches: KnownMarketplace[] = []
  const all: string[] = []
  let dropped: Error | undefined
  for (const market of knownMarketplaces(env, projectRoot)) {
    try {
      const read = readKnownCatalog(market)
      const {catalog} = read
      all.push(...catalog.plugins.map((p) => p.name))
      if (catalog.plugins.some((p) => p.name === name)) matches.push(market)
      dropped ??= droppedEntry(name, market, read.dropped ?? [])
    } catch {
      // an unreadable catalog cannot hold the plugin
    }
  }
  if (matches.length === 0) {
    if (dropped) throw dropped
    const near = closestNames(name, all)
    throw notFound('plugin-not-found', `no marketplace lists a plugin named "${name}"`, {
      suggestions: [...(near.length > 0 ? [`did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`] : []), `try: loadout search ${name}`],
    })
  }
  if (matches.length > 1) {
    throw conflict('plugin-ambiguous', `"${name}" is in ${matches.length} marketplaces: ${matches.map((m) => `${name}@${m.name}`).join(', ')}`, {
      suggestions: [`name one: loadout install ${name}@${matches[0]!.name}`],
    })
  }
  return matches[0]!
}
