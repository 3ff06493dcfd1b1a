import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {Problem} from '../../model/problems.js'
import type {ScopeContext} from '../env/scope.js'
import type {SourceKind} from '../../model/source.js'
import {readCatalogFile} from './catalog-file.js'
import {kindOf} from '../sources/kinds/index.js'
import {entryKindOf} from '../sources/kinds/entries.js'
import {findMarketplace, knownMarketplaces, type KnownMarketplace} from './known.js'
import {searchIndex, writeSearchIndex, type IndexedPlugin} from './search-index.js'
import type {CatalogRead, PluginEntry, PluginSource} from '../../model/marketplace.js'

export interface MarketplaceRow {
  name: string
  scope: string
  source: string
  kind: SourceKind | 'builtin'
  updatedAt?: string
  commit?: string
  pluginCount: number
  builtin: boolean
}

/** Reads the catalog as last fetched (no network). */
export const readKnownCatalog = (m: KnownMarketplace): CatalogRead => {
  const fetched = kindOf(m.source).catalog
  // a catalog pulled from an OCI registry is a downloaded JSON file, read as one fetched by URL
  const origin = typeof fetched !== 'string' ? 'git' : fetched === 'oci' ? 'url' : fetched
  try {
    return readCatalogFile({
      origin,
      ...(origin === 'url' ? {label: m.input} : {}),
      catalogFile: m.catalogFile,
      ...(m.root ? {root: m.root} : {}),
      action: 'cached',
    })
  } catch (error) {
    if (error instanceof LoadoutError) throw error
    throw new LoadoutError('catalog-missing', EXIT.notFound, `the cached catalog of "${m.name}" is missing (${(error as Error).message})`, {
      suggestions: [`fetch it again: loadout marketplace update ${m.name}`],
    })
  }
}

const rowOf = (m: KnownMarketplace, pluginCount: number): MarketplaceRow => ({
  name: m.name,
  scope: m.builtin ? 'builtin' : m.scope,
  source: m.input,
  kind: m.builtin ? 'builtin' : m.source.kind,
  ...(m.updatedAt ? {updatedAt: m.updatedAt} : {}),
  ...(m.commit ? {commit: m.commit} : {}),
  pluginCount,
  builtin: Boolean(m.builtin),
})

export const listMarketplaces = (env: Environment, context: ScopeContext): MarketplaceRow[] =>
  knownMarketplaces(env, context.projectRoot).map((m) => rowOf(m, m.builtin ? readKnownCatalog(m).catalog.plugins.length : m.pluginCount))

export const describePluginSource = (source: PluginSource): string => entryKindOf(source).describe(source)

/** One plugin as search and info show it: the indexed fields and its id (`name@marketplace`). */
export interface PluginSummary extends IndexedPlugin {
  id: string
}

/** The summary with the id second, where it has always been in the JSON. */
const withId = ({name, ...rest}: IndexedPlugin, marketplace: string): PluginSummary => ({name, id: `${name}@${marketplace}`, ...rest})

const summarize = (entry: PluginEntry, marketplace: string): PluginSummary => withId(indexed(entry), marketplace)

const indexed = (entry: PluginEntry): IndexedPlugin => ({
  name: entry.name,
  ...(entry.description ? {description: entry.description} : {}),
  ...(entry.version ? {version: entry.version} : {}),
  ...(entry.category ? {category: entry.category} : {}),
  keywords: [...new Set([...entry.keywords, ...entry.tags])],
  source: describePluginSource(entry.source),
  supported: entryKindOf(entry.source).supported,
  problems: entry.problems,
})

export interface MarketplaceInfo extends MarketplaceRow {
  description?: string
  version?: string
  owner?: string
  format: string
  plugins: PluginSummary[]
  /** problems with the catalog, including entries that were skipped */
  problems: Problem[]
}

export const marketplaceInfo = (name: string, env: Environment, context: ScopeContext): MarketplaceInfo => {
  const m = findMarketplace(name, env, context.projectRoot)
  const {catalog, problems} = readKnownCatalog(m)
  return {
    ...rowOf(m, catalog.plugins.length),
    ...(catalog.description ? {description: catalog.description} : {}),
    ...(catalog.version ? {version: catalog.version} : {}),
    ...(catalog.owner ? {owner: catalog.owner.name} : {}),
    format: catalog.format,
    plugins: catalog.plugins.map((p) => summarize(p, m.name)),
    problems,
  }
}

export interface SearchHit extends PluginSummary {
  marketplace: string
  score: number
}

export interface SearchResult {
  query: string
  searched: string[]
  hits: SearchHit[]
  /** marketplaces whose cached catalog could not be read */
  unreadable: Array<{marketplace: string; message: string}>
}

const scoreEntry = (entry: IndexedPlugin, terms: readonly string[]): number => {
  const name = entry.name.toLowerCase()
  const description = (entry.description ?? '').toLowerCase()
  const category = (entry.category ?? '').toLowerCase()
  const keywords = entry.keywords.map((k) => k.toLowerCase())
  let total = 0
  for (const term of terms) {
    let score = 0
    if (name === term) score = 100
    else if (name.startsWith(term)) score = 60
    else if (name.includes(term)) score = 40
    if (keywords.includes(term)) score += 30
    else if (keywords.some((k) => k.includes(term))) score += 15
    if (category === term) score += 20
    else if (category.includes(term)) score += 10
    if (description.includes(term)) score += 10
    if (score === 0) return 0
    total += score
  }
  return total
}

/** Every plugin across the known marketplaces matching all words of the query, best first. */
export const searchPlugins = (
  query: string,
  env: Environment,
  context: ScopeContext,
  filters: {marketplace?: string; category?: string} = {},
): SearchResult => {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean)
  const markets = filters.marketplace ? [findMarketplace(filters.marketplace, env, context.projectRoot)] : knownMarketplaces(env, context.projectRoot)
  const hits: SearchHit[] = []
  const unreadable: SearchResult['unreadable'] = []
  for (const m of markets) {
    // from the index, only the plugins whose text holds every word; scoring below keeps the hits
    let plugins = searchIndex(m, env, terms, filters.category)
    if (!plugins) {
      try {
        plugins = readKnownCatalog(m).catalog.plugins.map(indexed)
      } catch (error) {
        unreadable.push({marketplace: m.name, message: (error as Error).message})
        continue
      }
      if (!m.builtin) writeSearchIndex(m, env, plugins)
    }
    for (const entry of plugins) {
      if (filters.category && (entry.category ?? '').toLowerCase() !== filters.category.toLowerCase()) continue
      const score = terms.length === 0 ? 1 : scoreEntry(entry, terms)
      if (score > 0) hits.push({...withId(entry, m.name), marketplace: m.name, score})
    }
  }
  hits.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name) || a.marketplace.localeCompare(b.marketplace))
  return {query, searched: markets.map((m) => m.name), hits, unreadable}
}
