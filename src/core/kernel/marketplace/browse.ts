import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {Problem} from '../../model/problems.js'
import type {ScopeContext} from '../env/scope.js'
import type {SourceKind} from '../../model/source.js'
import {readCatalogFile} from './catalog-file.js'
import {kindOf} from '../sources/kinds/index.js'
import {entryKindOf} from '../sources/kinds/entries.js'
import {findMarketplace, knownMarketplaces, type KnownMarketplace} from './known.js'
import {withId, type IndexedPlugin, type PluginSummary} from './search-index.js'
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

const summarize = (entry: PluginEntry, marketplace: string): PluginSummary => withId(indexed(entry), marketplace)

/** What the search index keeps of a catalog entry. */
export const indexed = (entry: PluginEntry): IndexedPlugin => ({
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
