/**
 * Finds and reads a plugin's manifests: `.claude-plugin/plugin.json`, `.codex-plugin/plugin.json`,
 * a root `plugin.json` (cst-agent form, or Lexora when it has `contributes`), a Lexora
 * `package.json`, and the marketplace entry (the whole definition when `strict` is false).
 * Each becomes a Declaration; read.ts merges them and reads what they point at.
 */
import {join} from 'node:path'
import type {PluginEntry} from '../marketplace/types.js'
import {isRecord, type Json} from './components.js'
import {readCstAgentManifest} from './manifest-cst.js'
import {
  authorText,
  claudeComponents,
  declaredPaths,
  declaredSources,
  loadManifestJson,
  readManifestJson,
  readMetadata,
  type Declaration,
  type ManifestContext,
} from './manifest-fields.js'
import {isLexoraManifest, readLexoraManifest} from './manifest-lexora.js'
import {checkManifestPath, entryKind, jsonPathJoin, problemsOf, typeName} from './paths.js'
import type {PluginReport} from './report.js'

export const CLAUDE_MANIFEST = join('.claude-plugin', 'plugin.json')
export const CODEX_MANIFEST = join('.codex-plugin', 'plugin.json')
export const ROOT_MANIFEST = 'plugin.json'
export const PACKAGE_MANIFEST = 'package.json'

/** Parts some agents read inside a plugin but none from loose files loadout could write: said, not dropped silently. */
const warnUnwritable = (json: Json, file: string, report: PluginReport): void => {
  if (json.lspServers !== undefined) {
    report.warn('lsp-servers-not-installed', '"lspServers" are not installed: agents read language servers only from inside an installed plugin, and no agent loadout writes to reads them from a loose file', {file, path: 'lspServers'})
  }
  if (json.apps !== undefined) {
    report.warn('app-connectors-not-installed', '"apps" (Codex app connectors, .app.json) are not installed: they are connected in the ChatGPT or Codex app, not from files', {file, path: 'apps'})
  }
}

export const readClaudeManifest = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: true}
  warnUnwritable(json, file, report)
  return {kind: 'claude', file, ...readMetadata(json, ctx), ...claudeComponents(json, ctx), skillDialect: 'spec'}
}

/** Codex `interface` assets (icons, logo, screenshots) are plugin files too: same path rules. */
const checkCodexInterface = (json: Json, ctx: ManifestContext): void => {
  const ui = json.interface
  if (ui === undefined) return
  if (!isRecord(ui)) {
    ctx.report.error('manifest-field-invalid', `"interface" must be an object, not ${typeName(ui)}`, {file: ctx.file, path: 'interface'})
    return
  }
  const check = (raw: unknown, jsonPath: string) =>
    ctx.report.attempt(() => checkManifestPath(raw, {root: ctx.root, file: ctx.file, jsonPath, requireDotSlash: true}))
  for (const key of ['composerIcon', 'logo']) if (typeof ui[key] === 'string') check(ui[key], `interface.${key}`)
  if (Array.isArray(ui.screenshots)) ui.screenshots.forEach((raw, i) => check(raw, jsonPathJoin('interface.screenshots', i)))
}

export const readCodexManifest = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: true}
  warnUnwritable(json, file, report)
  const declaration: Declaration = {kind: 'codex', file, ...readMetadata(json, ctx), skillDialect: 'spec'}
  const skills = declaredPaths(json, 'skills', ctx)
  const mcpServers = declaredSources(json, 'mcpServers', ctx)
  if (skills) declaration.skills = skills
  if (mcpServers) declaration.mcpServers = mcpServers
  checkCodexInterface(json, ctx)
  return declaration
}

export const entryLabel = (entry: PluginEntry): string => `marketplace entry "${entry.name}"`

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

/** The root `plugin.json` is Lexora when it has `contributes`, else cst-agent's form. */
const readRootManifest = (root: string, report: PluginReport): Declaration | undefined => {
  const found = readManifestJson(root, ROOT_MANIFEST, report)
  if (!found) return undefined
  return isLexoraManifest(found.json) ? readLexoraManifest(found.json, found.file, root, report) : readCstAgentManifest(found.json, found.file, root, report)
}

/**
 * A `package.json` is a Lexora manifest only when it has `contributes`; otherwise it is an npm file
 * the plugin happens to ship, so one that cannot be read is a warning, not a refusal.
 */
const readPackageManifest = (root: string, report: PluginReport): Declaration | undefined => {
  if (report.leadsThroughOutsideLink(join(root, PACKAGE_MANIFEST))) return undefined
  let found: {file: string; json: Json} | undefined
  try {
    found = loadManifestJson(root, PACKAGE_MANIFEST)
  } catch (error) {
    const problems = problemsOf(error)
    if (!problems) throw error
    report.warn('package-json-unreadable', `package.json was not read (${problems[0]!.message}); if it is meant as a Lexora manifest, fix it`, {file: join(root, PACKAGE_MANIFEST)})
    return undefined
  }
  return found && isLexoraManifest(found.json) ? readLexoraManifest(found.json, found.file, root, report) : undefined
}

const readDotManifest = (rel: string, read: typeof readClaudeManifest, root: string, report: PluginReport): Declaration | undefined => {
  const found = readManifestJson(root, rel, report)
  return found ? read(found.json, found.file, root, report) : undefined
}

/** Manifest files present but ignored because a `strict: false` entry defines the plugin. */
const warnIgnoredManifests = (root: string, entry: PluginEntry, report: PluginReport): void => {
  for (const rel of [CLAUDE_MANIFEST, CODEX_MANIFEST, ROOT_MANIFEST]) {
    if (entryKind(join(root, rel)) === 'missing') continue
    report.warn('manifest-ignored', `${rel} is ignored: the marketplace entry "${entry.name}" has "strict": false, so it defines the plugin`, {file: join(root, rel)})
  }
}

export interface DeclarationOptions {
  entry?: PluginEntry
}

/**
 * Every declaration that defines the plugin, in order of authority: the manifests (Claude, Codex,
 * root plugin.json, Lexora package.json), then the marketplace entry. A `strict: false` entry is
 * the only one.
 */
export const readDeclarations = (root: string, options: DeclarationOptions, report: PluginReport): Declaration[] => {
  const {entry} = options
  if (entry?.strict === false) {
    warnIgnoredManifests(root, entry, report)
    return [declarationFromEntry(entry, root, report)]
  }
  const declarations = [
    readDotManifest(CLAUDE_MANIFEST, readClaudeManifest, root, report),
    readDotManifest(CODEX_MANIFEST, readCodexManifest, root, report),
    readRootManifest(root, report),
  ].filter((d) => d !== undefined)
  if (!declarations.some((d) => d.kind === 'lexora')) {
    const lexora = readPackageManifest(root, report)
    if (lexora) declarations.push(lexora)
  }
  if (entry) declarations.push(declarationFromEntry(entry, root, report))
  return declarations
}
