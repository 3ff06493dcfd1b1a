/**
 * Finds and reads a plugin's manifests: every file a format in src/core/manifest-formats claims
 * (`.claude-plugin/plugin.json`, `.codex-plugin/plugin.json`, a root `plugin.json`, a
 * `package.json` with `contributes`, ...), and the marketplace entry (the whole definition when
 * `strict` is false). Each becomes a Declaration; read.ts merges them and reads what they point at.
 */
import {join} from 'node:path'
import {entryExists} from '../fs/exists.js'
import {MANIFEST_FILES, formatOf, type ClaimedFile, type ManifestFormat} from './manifest-formats/index.js'
import type {PluginEntry} from '../../model/marketplace.js'
import type {Json} from './components.js'
import {authorText, claudeComponents, loadManifestJson, readManifestJson, type Declaration, type ManifestContext} from './manifest-fields.js'
import {entryKind, problemsOf} from './paths.js'
import type {PluginReport} from './report.js'

export const entryLabel = (entry: PluginEntry): string => `marketplace entry "${entry.name}"`

/** An entry that only names the plugin (for a plugin that names itself nowhere, it is the name). */
export const namingEntry = (name: string): PluginEntry => ({name, source: {kind: 'local', path: '.'}, tags: [], keywords: [], raw: {}, problems: []})

/** The catalog entry as a declaration: its metadata, and component paths relative to the plugin root. */
export const declarationFromEntry = (entry: PluginEntry, root: string, report: PluginReport): Declaration => {
  const file = entryLabel(entry)
  const ctx: ManifestContext = {root, file, report, requireDotSlash: true}
  const declaration: Declaration = {kind: 'entry', file, name: entry.name, ...claudeComponents(entry.raw, ctx), skillDialect: 'spec'}
  if (entry.version !== undefined) declaration.version = entry.version
  if (entry.description !== undefined) declaration.description = entry.description
  const author = authorText(entry.author)
  if (author) declaration.author = author
  if (entry.keywords.length > 0) declaration.keywords = entry.keywords
  return declaration
}

/**
 * A file other tools own too (npm's package.json) is a manifest only when a format's mark is on it;
 * one that cannot be read is a warning, not a refusal.
 */
const readSharedManifest = (root: string, file: ClaimedFile, report: PluginReport): {file: string; json: Json} | undefined => {
  if (report.leadsThroughOutsideLink(join(root, file.path))) return undefined
  try {
    return loadManifestJson(root, file.path)
  } catch (error) {
    const problems = problemsOf(error)
    if (!problems) throw error
    const names = file.claims.map((c) => c.format.name).join(' or ')
    report.warn(
      `${file.path.replace(/[^A-Za-z0-9]+/g, '-')}-unreadable`,
      `${file.path} was not read (${problems[0]!.message}); if it is meant as a ${names} manifest, fix it`,
      {file: join(root, file.path)},
    )
    return undefined
  }
}

/** Manifest files present but ignored because a `strict: false` entry defines the plugin. */
const warnIgnoredManifests = (root: string, entry: PluginEntry, report: PluginReport): void => {
  for (const {path: rel} of MANIFEST_FILES.filter((f) => !f.shared)) {
    if (entryKind(join(root, rel)) === 'missing') continue
    report.warn('manifest-ignored', `${rel} is ignored: the marketplace entry "${entry.name}" has "strict": false, so it defines the plugin`, {
      file: join(root, rel),
    })
  }
}

export interface DeclarationOptions {
  entry?: PluginEntry
}

/**
 * Every declaration that defines the plugin, in order of authority: the manifests (in the order of
 * the format list; a format is read from the first of its files that is there), then the
 * marketplace entry. A `strict: false` entry is the only one.
 */
export const readDeclarations = (root: string, options: DeclarationOptions, report: PluginReport): Declaration[] => {
  const {entry} = options
  if (entry?.strict === false) {
    warnIgnoredManifests(root, entry, report)
    return [declarationFromEntry(entry, root, report)]
  }
  const declarations: Declaration[] = []
  const read = new Set<string>()
  const readFormats = (secondary: boolean): void => {
    const wanted = (format: ManifestFormat): boolean => (format.secondary === true) === secondary && !read.has(format.id)
    for (const file of MANIFEST_FILES) {
      if (!file.claims.some((c) => wanted(c.format))) continue
      const found = file.shared ? readSharedManifest(root, file, report) : readManifestJson(root, file.path, report)
      if (!found) continue
      const format = formatOf(file, found.json)
      if (!format || !wanted(format)) continue
      read.add(format.id)
      declarations.push(format.read(found.json, found.file, root, report))
    }
  }
  readFormats(false)
  // a secondary format (Gemini's) defines only a plugin that is nothing else: no other manifest, no .mcp.json
  if (declarations.length === 0 && !entryExists(join(root, '.mcp.json'))) readFormats(true)
  if (entry) declarations.push(declarationFromEntry(entry, root, report))
  return declarations
}
