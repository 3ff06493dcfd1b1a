/**
 * `search`: the plugins of every known marketplace that match all words of a query, best first. Each
 * catalog is searched through its index (search-index.ts); only a catalog whose index is missing or
 * stale is read and validated, by browse.ts, loaded then, and indexed for the next search (the
 * built-in catalog too), so a search over settled catalogs loads none of the catalog code.
 */
import type {Environment} from '../env/environment.js'
import type {ScopeContext} from '../env/scope.js'
import {findMarketplace, knownMarketplaces} from './known.js'
import {searchIndex, withId, writeSearchIndex, type IndexedPlugin, type PluginSummary} from './search-index.js'

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
export const searchPlugins = async (
  query: string,
  env: Environment,
  context: ScopeContext,
  filters: {marketplace?: string; category?: string} = {},
): Promise<SearchResult> => {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean)
  const markets = filters.marketplace ? [findMarketplace(filters.marketplace, env, context.projectRoot)] : knownMarketplaces(env, context.projectRoot)
  const hits: SearchHit[] = []
  const unreadable: SearchResult['unreadable'] = []
  for (const m of markets) {
    // from the index, only the plugins whose text holds every word; scoring below keeps the hits
    let plugins = searchIndex(m, env, terms, filters.category)
    if (!plugins) {
      const {indexed, readKnownCatalog} = await import('./browse.js')
      try {
        plugins = readKnownCatalog(m).catalog.plugins.map(indexed)
      } catch (error) {
        unreadable.push({marketplace: m.name, message: (error as Error).message})
        continue
      }
      writeSearchIndex(m, env, plugins)
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
