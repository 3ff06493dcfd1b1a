import type {Problem} from './problems.js'

/** Where a catalog entry says its plugin lives. */
export type PluginSource =
  | {kind: 'relative'; path: string}
  | {kind: 'github'; repo: string; ref?: string; sha?: string}
  | {kind: 'url'; url: string; ref?: string; sha?: string}
  | {kind: 'git-subdir'; url: string; path: string; ref?: string; sha?: string}
  | {kind: 'local'; path: string}
  /** `sigstore`: the URL of a Sigstore bundle signing the archive's bytes */
  | {kind: 'archive'; url: string; sha256?: string; sigstore?: string}
  /** a package in an npm registry: `version` is a range, a version or a dist-tag */
  | {kind: 'npm'; package: string; version?: string; registry?: string}
  /** an artifact in an OCI registry (`oci://...`, see kernel/sources/kinds/oci.ts) */
  | {kind: 'oci'; ref: string}
  | {kind: 'unsupported'; type: string}

export interface PluginAuthor {
  name: string
  email?: string
  url?: string
}

export interface PluginEntry {
  name: string
  source: PluginSource
  description?: string
  version?: string
  author?: PluginAuthor
  category?: string
  tags: string[]
  keywords: string[]
  homepage?: string
  strict?: boolean
  /** the entry as written, for fields loadout does not model (every plugin.json field may appear) */
  raw: Record<string, unknown>
  /** problems with this entry that did not make it unusable (e.g. an unsupported source) */
  problems: Problem[]
}

export type CatalogFormat = 'claude' | 'codex' | 'bare'

export interface Catalog {
  name: string
  format: CatalogFormat
  description?: string
  version?: string
  owner?: PluginAuthor
  /** metadata.pluginRoot: where bare plugin names resolve */
  pluginRoot?: string
  /** renames: old plugin name -> new name */
  renames: Record<string, string>
  /** renames to null: names of plugins the catalog removed */
  removed?: string[]
  plugins: PluginEntry[]
}

export interface CatalogRead {
  catalog: Catalog
  /** every problem found; an entry with an error is skipped and its problem kept here */
  problems: Problem[]
  /** entries skipped for a broken rule, by the name they gave: why a listed name cannot be installed */
  dropped: DroppedEntry[]
}

export interface DroppedEntry {
  name: string
  code: string
  message: string
}

/** What `loadout update --auto` does with a marketplace that is due: nothing, report what it would update, or update. */
export const AUTO_UPDATE_MODES = ['off', 'notify', 'apply'] as const
export type AutoUpdate = (typeof AUTO_UPDATE_MODES)[number]
