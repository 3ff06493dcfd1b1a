/**
 * What a manifest declares, before anything it points at is read, and the field readers every
 * manifest format shares. A component list that is `undefined` was not declared (so the plugin's
 * folders are searched by convention); an empty list was declared and holds nothing usable.
 */
import {join} from 'node:path'
import {isLoadoutError} from '../../model/errors.js'
import {parseJsonBounded} from '../json/json-depth.js'
import type {SkillDialect} from '../targets/types.js'
import {isRecord, type Json} from './components.js'
import {checkManifestPath, entryKind, readContainedText, ruleBroken, typeName} from './paths.js'
import {jsonPathJoin} from '../json/path.js'
import type {PluginReport} from './report.js'
import type {McpComponent, SubagentComponent, ToolComponent} from '../../model/plugin.js'

/** A path a manifest names, checked: `path` is absolute and inside the plugin root. */
export interface DeclaredPath {
  path: string
  raw: string
  file: string
  jsonPath: string
}

/** Hooks and MCP servers come from a file a manifest names, or inline in the manifest. */
export type DeclaredSource = ({kind: 'file'} & DeclaredPath) | {kind: 'inline'; value: unknown; file: string; jsonPath: string}

/** a format's id, or `entry` for the marketplace entry */
export type DeclarationKind = string

export interface PluginMetadata {
  name?: string
  version?: string
  description?: string
  author?: string
  keywords?: string[]
}

export interface Declaration extends PluginMetadata {
  kind: DeclarationKind
  /** the manifest file (absolute), or a label such as `marketplace entry "review"` */
  file: string
  skills?: DeclaredPath[]
  agents?: DeclaredPath[]
  commands?: DeclaredPath[]
  hooks?: DeclaredSource[]
  mcpServers?: DeclaredSource[]
  /** parts defined inline and already read: cst-agent servers and tools, Lexora connectors and subagents */
  mcpComponents?: McpComponent[]
  subagents?: SubagentComponent[]
  tools?: ToolComponent[]
  skillDialect: SkillDialect
  /** the JSON path under which `mcpComponents` are defined (default `mcpServers`) */
  mcpComponentsAt?: string
  /** the JSON path under which `subagents` are defined (default `subagents`) */
  subagentsAt?: string
  /** the manifest an agent installs the plugin whole from (cst-agent's plugins folder) */
  installsWhole?: boolean
}

/** Parts some agents read inside a plugin but none from loose files loadout could write: said, not dropped silently. */
export const warnUnwritable = (json: Json, file: string, report: PluginReport): void => {
  if (json.lspServers !== undefined) {
    report.warn(
      'lsp-servers-not-installed',
      '"lspServers" are installed only with the plugin as the agent\'s own (Claude Code, unless --loose): agents read language servers from inside an installed plugin, never from a loose file',
      {file, path: 'lspServers'},
    )
  }
  if (json.apps !== undefined) {
    report.warn(
      'app-connectors-not-installed',
      '"apps" (Codex app connectors, .app.json) are not installed: they are connected in the ChatGPT or Codex app, not from files',
      {file, path: 'apps'},
    )
  }
}

export interface ManifestContext {
  root: string
  file: string
  report: PluginReport
  requireDotSlash: boolean
}

export const MAX_MANIFEST_BYTES = 1024 * 1024

/** Parses a manifest, hooks or MCP file: invalid JSON (or JSON nested absurdly deep) is an error naming the file. */
export const parseManifestJson = (text: string, file: string): Json => {
  let value: unknown
  try {
    value = parseJsonBounded(text, file)
  } catch (error) {
    if (!isLoadoutError(error)) throw error
    const message = error.message.startsWith(`${file}: `) ? error.message.slice(file.length + 2) : error.message
    throw ruleBroken(error.code === 'catalog-too-deep' ? 'manifest-too-deep' : 'manifest-not-json', message, {file})
  }
  if (!isRecord(value)) throw ruleBroken('manifest-not-object', `must hold a JSON object, not ${typeName(value)}`, {file})
  return value
}

/** Reads and parses the manifest at `rel` under `root` when it exists; throws the rules it breaks. */
export const loadManifestJson = (root: string, rel: string): {file: string; json: Json} | undefined => {
  const file = join(root, rel)
  if (entryKind(file) === 'missing') return undefined
  return {file, json: parseManifestJson(readContainedText(file, {root, file, maxBytes: MAX_MANIFEST_BYTES}), file)}
}

/** `loadManifestJson`, with a broken manifest recorded as fatal (and one behind an outside link skipped). */
export const readManifestJson = (root: string, rel: string, report: PluginReport): {file: string; json: Json} | undefined => {
  if (report.leadsThroughOutsideLink(join(root, rel))) return undefined
  return report.attempt(() => loadManifestJson(root, rel))
}

const fieldError = (ctx: ManifestContext, key: string, rule: string): void =>
  ctx.report.error('manifest-field-invalid', `"${key.split('.').pop()}" ${rule}`, {file: ctx.file, path: key})

const optionalString = (json: Json, key: string, ctx: ManifestContext): string | undefined => {
  if (!(key in json) || json[key] === undefined) return undefined
  if (typeof json[key] === 'string') return json[key]
  fieldError(ctx, key, `must be a string, not ${typeName(json[key])}`)
  return undefined
}

/** An author as one string: `name <email> (url)`, from a string or `{name, email?, url?}`. */
export const authorText = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value.trim() || undefined
  if (!isRecord(value) || typeof value.name !== 'string' || value.name.trim() === '') return undefined
  const email = typeof value.email === 'string' && value.email ? ` <${value.email}>` : ''
  const url = typeof value.url === 'string' && value.url ? ` (${value.url})` : ''
  return `${value.name}${email}${url}`
}

export const readMetadata = (json: Json, ctx: ManifestContext): PluginMetadata => {
  const metadata: PluginMetadata = {}
  const name = optionalString(json, 'name', ctx)
  const version = optionalString(json, 'version', ctx)
  const description = optionalString(json, 'description', ctx)
  if (name !== undefined) metadata.name = name
  if (version !== undefined) metadata.version = version
  if (description !== undefined) metadata.description = description
  if (json.author !== undefined) {
    const author = authorText(json.author)
    if (author) metadata.author = author
    else ctx.report.warn('manifest-author-invalid', '"author" should be a name or an object with a "name"', {file: ctx.file, path: 'author'})
  }
  if (json.keywords !== undefined) {
    if (Array.isArray(json.keywords) && json.keywords.every((k) => typeof k === 'string')) metadata.keywords = json.keywords as string[]
    else ctx.report.warn('manifest-keywords-invalid', '"keywords" should be a list of strings', {file: ctx.file, path: 'keywords'})
  }
  return metadata
}

const checkedPath = (raw: unknown, jsonPath: string, ctx: ManifestContext): DeclaredPath | undefined => {
  const path = ctx.report.attempt(() => checkManifestPath(raw, {root: ctx.root, file: ctx.file, jsonPath, requireDotSlash: ctx.requireDotSlash}))
  return path === undefined ? undefined : {path, raw: raw as string, file: ctx.file, jsonPath}
}

/** `"./x"` or `["./x", "./y"]` at `key`; each path checked. Undefined when the key is absent. */
export const declaredPaths = (json: Json, key: string, ctx: ManifestContext, at = key): DeclaredPath[] | undefined => {
  const value = json[key]
  if (value === undefined) return undefined
  if (typeof value === 'string') return [checkedPath(value, at, ctx)].filter((p) => p !== undefined)
  if (Array.isArray(value)) return value.flatMap((raw, i) => checkedPath(raw, jsonPathJoin(at, i), ctx) ?? [])
  fieldError(ctx, at, `must be a path or a list of paths, not ${typeName(value)}`)
  return []
}

const declaredSource = (raw: unknown, jsonPath: string, ctx: ManifestContext): DeclaredSource | undefined => {
  if (isRecord(raw)) return {kind: 'inline', value: raw, file: ctx.file, jsonPath}
  const declared = checkedPath(raw, jsonPath, ctx)
  return declared ? {kind: 'file', ...declared} : undefined
}

/** A path to a JSON file, an inline object, or a list of either, at `key`. */
export const declaredSources = (json: Json, key: string, ctx: ManifestContext): DeclaredSource[] | undefined => {
  const value = json[key]
  if (value === undefined) return undefined
  if (typeof value === 'string' || isRecord(value)) return [declaredSource(value, key, ctx)].filter((s) => s !== undefined)
  if (Array.isArray(value)) return value.flatMap((raw, i) => declaredSource(raw, jsonPathJoin(key, i), ctx) ?? [])
  fieldError(ctx, key, `must be a path, an object or a list of them, not ${typeName(value)}`)
  return []
}

/** The component fields Claude manifests and marketplace entries share. */
export const claudeComponents = (json: Json, ctx: ManifestContext): Partial<Declaration> => {
  const components: Partial<Declaration> = {}
  const skills = declaredPaths(json, 'skills', ctx)
  const agents = declaredPaths(json, 'agents', ctx)
  const commands = declaredPaths(json, 'commands', ctx)
  const hooks = declaredSources(json, 'hooks', ctx)
  const mcpServers = declaredSources(json, 'mcpServers', ctx)
  if (skills) components.skills = skills
  if (agents) components.agents = agents
  if (commands) components.commands = commands
  if (hooks) components.hooks = hooks
  if (mcpServers) components.mcpServers = mcpServers
  return components
}
