/**
 * Where a marketplace keeps its catalogs, and how the authoring commands read a plugin's manifest.
 */
import {statSync} from 'node:fs'
import {basename, dirname, join, relative, resolve, sep} from 'node:path'
import {errnoCode, notFound, usageError} from '../../model/errors.js'
import {entryExists} from '../../kernel/fs/exists.js'
import {MAX_MANIFEST_BYTES} from '../../kernel/plugin/manifest-fields.js'
import type {Problem} from '../../model/problems.js'
import {readAuthoringJson} from './marketplace-json.js'

export type MarketplaceFormat = 'claude' | 'codex'

/** The catalog of each format, relative to the marketplace root. */
export const CATALOG_FILES: Record<MarketplaceFormat, string> = {
  claude: '.claude-plugin/marketplace.json',
  codex: '.agents/plugins/marketplace.json',
}

/** A marketplace.json this large is slow for every user to fetch; `validate` refuses to read past it. */
export const MAX_AUTHORING_CATALOG_BYTES = 4 * 1024 * 1024

/** The manifests whose `name` must equal the catalog entry's, in the order they are read. */
export const PLUGIN_MANIFESTS = ['.claude-plugin/plugin.json', '.codex-plugin/plugin.json'] as const

export interface CatalogFile {
  abs: string
  /** relative to the marketplace root, with `/` */
  rel: string
  format: MarketplaceFormat
}

export interface MarketplaceLocation {
  root: string
  files: CatalogFile[]
}

export const toSlash = (path: string): string => path.split(sep).join('/')

/**
 * The catalogs to check for a path given on the command line: a marketplace folder (both catalogs
 * that exist in it) or one marketplace.json file (its root is the folder above `.claude-plugin/` or
 * `.agents/plugins/` when it sits in one, else its own folder).
 */
export const locateCatalogs = (input: string, cwd: string): MarketplaceLocation => {
  const abs = resolve(cwd, input)
  let isFile: boolean
  try {
    isFile = statSync(abs).isFile()
  } catch (error) {
    if (errnoCode(error) === 'ENOENT')
      throw notFound('path-missing', `${input} does not exist`, {suggestions: ['give the marketplace folder, or its .claude-plugin/marketplace.json']})
    throw error
  }
  if (isFile) {
    const parent = dirname(abs)
    if (basename(parent) === '.claude-plugin') return {root: dirname(parent), files: [{abs, rel: CATALOG_FILES.claude, format: 'claude'}]}
    if (basename(parent) === 'plugins' && basename(dirname(parent)) === '.agents') {
      return {root: dirname(dirname(parent)), files: [{abs, rel: CATALOG_FILES.codex, format: 'codex'}]}
    }
    return {root: parent, files: [{abs, rel: basename(abs), format: 'claude'}]}
  }
  const files = (Object.entries(CATALOG_FILES) as Array<[MarketplaceFormat, string]>)
    .map(([format, rel]) => ({abs: join(abs, rel), rel, format}))
    .filter((f) => entryExists(f.abs))
  if (files.length === 0) {
    throw notFound('marketplace-missing', `${input} is not a marketplace: it has neither ${CATALOG_FILES.claude} nor ${CATALOG_FILES.codex}`, {
      suggestions: ['create one with: loadout marketplace create <name>'],
    })
  }
  return {root: abs, files}
}

/** What a plugin manifest says about the plugin, as far as a catalog entry cares. */
export interface ManifestSummary {
  /** relative to the marketplace root */
  file: string
  name?: unknown
  description?: unknown
  version?: unknown
  author?: unknown
  category?: unknown
}

/**
 * Reads the manifests of a plugin folder that exist (bounded size, UTF-8, JSON): the summaries of
 * those that could be read and the problems of those that could not.
 */
export const readPluginManifests = (pluginDir: string, root: string): {manifests: ManifestSummary[]; problems: Problem[]} => {
  const manifests: ManifestSummary[] = []
  const problems: Problem[] = []
  for (const rel of PLUGIN_MANIFESTS) {
    const abs = join(pluginDir, rel)
    if (!entryExists(abs)) continue
    const file = toSlash(relative(root, abs)) || rel
    const read = readAuthoringJson(abs, {root, file, maxBytes: MAX_MANIFEST_BYTES})
    // Repeated keys and a BOM are the plugin's own business (plugin validate); only an unreadable manifest counts here.
    if (!read.json) {
      problems.push(...read.problems.map((p) => ({...p, code: 'plugin-manifest-invalid', message: `the plugin's manifest cannot be read: ${p.message}`})))
      continue
    }
    const data = read.json.data
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      problems.push({severity: 'error', code: 'plugin-manifest-invalid', message: `the plugin's manifest ${file} must hold a JSON object`, file})
      continue
    }
    const json = data as Record<string, unknown>
    const iface = typeof json.interface === 'object' && json.interface !== null ? (json.interface as Record<string, unknown>) : {}
    manifests.push({file, name: json.name, description: json.description, version: json.version, author: json.author, category: iface.category})
  }
  return {manifests, problems}
}

/** Refuses a name that breaks `rule` before anything is written. */
export const refuseName = (what: string, name: string, rule: string | undefined): void => {
  if (rule)
    throw usageError('invalid-name', `invalid ${what} name ${JSON.stringify(name)}: it ${rule}`, {
      suggestions: ['use kebab-case: lowercase letters and digits in words joined by "-", e.g. team-tools'],
    })
}
