/**
 * The types of a conversion plan and the pieces every target format shares: the plugin's metadata
 * (name, version, author, links), paths in each format's spelling, MCP servers written inline in
 * exactly the form the plugin reader keeps them (so the new manifest and the old one define the
 * same server, not two), and the record of what could not be carried over. Each format's own
 * builder lives in its folder under src/core/manifest-formats/.
 */
import {join, relative, sep} from 'node:path'
import {safeRealpath} from '../../fs/contain.js'
import {stableStringify} from '../../fs/json.js'
import {isRecord, type Json} from '../components.js'
import {authorText, type Declaration, type DeclarationKind} from '../manifest-fields.js'
import type {ComponentKind, McpServerConfig, PluginModel} from '../../../model/plugin.js'

/** A manifest format's id (`claude`, `codex`, ...): the formats are listed in src/core/manifest-formats/. */
export type ConvertFormat = string

/** Where one MCP server is defined: in a JSON file (named by a manifest, or found by convention), or inline in a manifest. */
export type McpOrigin =
  {kind: 'file'; file: string; by: DeclarationKind | 'convention'; config: McpServerConfig} | {kind: 'inline'; by: DeclarationKind; config: McpServerConfig}

/** A hook set's source: a file, or an object inline in a manifest. */
export type HookSource = {kind: 'file'; file: string; by: DeclarationKind | 'convention'} | {kind: 'inline'; value: unknown; by: DeclarationKind}

export interface RawManifest {
  kind: DeclarationKind
  file: string
  json: Json
}

export interface PluginSources {
  root: string
  declarations: Declaration[]
  /** the manifests as JSON, in the reader's order of authority */
  raw: RawManifest[]
  /** every MCP file in effect, in order, without repeats (absolute) */
  mcpFiles: string[]
  /** server name -> where it is defined (several places when manifests agree) */
  mcp: Map<string, McpOrigin[]>
  hooks: HookSource[]
  /** real paths of `skills/*` holding a SKILL.md */
  conventionalSkills: string[]
  /** real paths of `agents/*.md` and `commands/*.md` */
  conventionalAgents: string[]
  conventionalCommands: string[]
  /** the declarations that name subagent files themselves (Claude `agents`) */
  agentListers: DeclarationKind[]
}

export const MCP_CONVENTION = '.mcp.json'
export const HOOKS_CONVENTION = join('hooks', 'hooks.json')

/** The config as the reader keeps it: two definitions are the same server when these strings are equal. */
export const mcpIdentity = (config: McpServerConfig): string => stableStringify(config)

/** A part of the plugin the target format has no place for, or a piece of a part that was left out. */
export interface NotCarried {
  kind: ComponentKind
  name: string
  /** the piece left out (a field, a hook event, a tool grant); absent when the whole part is */
  part?: string
  reason: string
}

export interface CarriedParts {
  skills: string[]
  subagents: string[]
  mcpServers: string[]
  hooks: string[]
  commands: string[]
  tools: string[]
}

/** Where the new manifest goes, and what is there now. */
export interface TargetManifest {
  /** relative to the plugin root, `/`-separated */
  rel: string
  /** `new`: no file; `replace`: a manifest of this format (needs --force); `merge`: an npm package.json that gains the Lexora fields */
  mode: 'new' | 'replace' | 'merge'
  /** the JSON there now (replace, merge) */
  existing?: Json
}

/** The target at `rel`: `replace` what is there, else `new`. */
export const targetAt = (rel: string, existing: Json | undefined): TargetManifest => (existing ? {rel, mode: 'replace', existing} : {rel, mode: 'new'})

export interface ConversionPlan {
  format: ConvertFormat
  target: TargetManifest
  /** the manifest to write */
  json: Json
  /** other files the format needs (Claude agent files made from Lexora subagents), relative and `/`-separated */
  files: Array<{path: string; text: string}>
  carried: CarriedParts
  notCarried: NotCarried[]
  notes: string[]
}

export interface BuildContext {
  model: PluginModel
  sources: PluginSources
  format: ConvertFormat
  /** how the format names itself in messages (`Claude Code`) */
  formatName: string
  target: TargetManifest
}

/** The plugin-relative form of an absolute path, `/`-separated (`.` for the root). */
export const relPath = (root: string, abs: string): string => relative(root, abs).split(sep).join('/') || '.'

/** Claude and Codex spell paths `./x` (`./` for the root). */
export const dotSlash = (rel: string): string => (rel === '.' ? './' : `./${rel}`)

// ---------------------------------------------------------------------------------------------
// Metadata

export interface AuthorObject {
  name: string
  email?: string
  url?: string
}

/** `Name <email> (url)` back into its parts. */
export const parseAuthorText = (text: string): AuthorObject | undefined => {
  const match = /^\s*(.*?)\s*(?:<([^<>]*)>)?\s*(?:\(([^()]*)\))?\s*$/.exec(text)
  const name = match?.[1]?.trim()
  if (!match || !name) return undefined
  return {name, ...(match[2] ? {email: match[2]} : {}), ...(match[3] ? {url: match[3]} : {})}
}

const firstRaw = <T>(sources: PluginSources, pick: (json: Json) => T | undefined): T | undefined => {
  for (const manifest of sources.raw) {
    const value = pick(manifest.json)
    if (value !== undefined) return value
  }
  return undefined
}

const stringField = (key: string) => (json: Json) => (typeof json[key] === 'string' && json[key] !== '' ? (json[key] as string) : undefined)

/** `repository` as a URL string: npm also allows `{type, url}`. */
const repositoryField = (json: Json): string | undefined => {
  const value = json.repository
  if (typeof value === 'string' && value !== '') return value
  return isRecord(value) && typeof value.url === 'string' && value.url !== '' ? value.url : undefined
}

/** The author as an object, from the first manifest that names one. */
const authorOf = (ctx: BuildContext): AuthorObject | undefined => {
  const raw = firstRaw(ctx.sources, (json) => {
    const a = json.author
    if (isRecord(a) && typeof a.name === 'string' && a.name.trim() !== '') {
      return {name: a.name, ...(typeof a.email === 'string' && a.email ? {email: a.email} : {}), ...(typeof a.url === 'string' && a.url ? {url: a.url} : {})}
    }
    return typeof a === 'string' ? parseAuthorText(a) : undefined
  })
  return raw ?? (ctx.model.author ? parseAuthorText(ctx.model.author) : undefined)
}

export interface Metadata {
  name: string
  version?: string
  description?: string
  author?: AuthorObject
  homepage?: string
  repository?: string
  license?: string
  keywords?: string[]
}

export const metadataOf = (ctx: BuildContext): Metadata => {
  const {model} = ctx
  const author = authorOf(ctx)
  const homepage = firstRaw(ctx.sources, stringField('homepage'))
  const repository = firstRaw(ctx.sources, repositoryField)
  const license = firstRaw(ctx.sources, stringField('license'))
  return {
    name: model.name,
    ...(model.version !== undefined ? {version: model.version} : {}),
    ...(model.description !== undefined ? {description: model.description} : {}),
    ...(author ? {author} : {}),
    ...(homepage ? {homepage} : {}),
    ...(repository ? {repository} : {}),
    ...(license ? {license} : {}),
    ...(model.keywords && model.keywords.length > 0 ? {keywords: [...model.keywords]} : {}),
  }
}

export const authorString = (author: AuthorObject): string => authorText(author) ?? author.name

// ---------------------------------------------------------------------------------------------
// MCP servers

/** The transport of a server as the reader normalised it. */
export const transportOf = (config: McpServerConfig): 'stdio' | 'http' | 'sse' =>
  config.command !== undefined ? 'stdio' : config.type === 'sse' ? 'sse' : 'http'

/** A server written inline: the fields the reader keeps, so it reads back as the same definition. */
export const inlineServer = (config: McpServerConfig): Json => {
  const out: Json = {}
  for (const key of ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'disabled', 'autoApprove'] as const) {
    const value = config[key]
    if (value !== undefined) out[key] = Array.isArray(value) ? [...value] : isRecord(value) ? {...value} : value
  }
  return out
}

/**
 * True when writing `config` inline under `name` would give the plugin a second, different
 * definition of the server: one that another manifest (not the one being replaced) keeps defining.
 * A server found only by convention is no longer read once a manifest declares servers itself.
 */
export const clashesWithOrigin = (name: string, config: McpServerConfig, ctx: BuildContext): string | undefined => {
  const identity = mcpIdentity(config)
  const other = (ctx.sources.mcp.get(name) ?? []).find((o) => o.by !== 'convention' && o.by !== ctx.format && mcpIdentity(o.config) !== identity)
  if (!other) return undefined
  return other.kind === 'file' ? relPath(ctx.model.root, other.file) : `the ${other.by} manifest`
}

// ---------------------------------------------------------------------------------------------
// Writing the manifest over what is there

/**
 * The manifest to write: `computed`, with the keys of the manifest it replaces that the converter
 * does not manage kept as they were (in their place), and, when `keepExisting` names them, the
 * existing values of those keys kept too (an npm package.json keeps its own name and version).
 */
export const overExisting = (existing: Json | undefined, computed: Json, managed: ReadonlySet<string>, keepExisting: ReadonlySet<string> = new Set()): Json => {
  if (!existing) return computed
  const out: Json = {}
  for (const [key, value] of Object.entries(existing)) {
    if (!managed.has(key) || (keepExisting.has(key) && value !== undefined)) out[key] = value
    else if (key in computed) out[key] = computed[key]
  }
  for (const [key, value] of Object.entries(computed)) if (!(key in out)) out[key] = value
  return out
}

export const emptyCarried = (): CarriedParts => ({skills: [], subagents: [], mcpServers: [], hooks: [], commands: [], tools: []})

/** Every part of `kind` as not carried, for one reason. */
export const noneCarried = (kind: ComponentKind, names: readonly string[], reason: string): NotCarried[] => names.map((name) => ({kind, name, reason}))

const realOf = (path: string): string => safeRealpath(path) ?? path

/** True when `paths` (real paths) are exactly `conventional`, in any order. */
export const sameSet = (paths: readonly string[], conventional: readonly string[]): boolean => {
  const a = new Set(paths.map(realOf))
  return a.size === conventional.length && conventional.every((p) => a.has(p))
}
