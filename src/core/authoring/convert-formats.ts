/**
 * The Claude Code, Codex and cst-agent manifests made from a plugin. Each points at the files the
 * plugin already uses (skill folders, agent and command files, hook and MCP files), relying on the
 * format's conventional folders where the plugin's parts are exactly what those folders hold, and
 * defines inline only what has no file (a cst-agent tool or server, a Lexora connector).
 */
import {join} from 'node:path'
import type {Json} from '../plugin/components.js'
import type {McpComponent, PluginModel, SubagentComponent} from '../plugin/types.js'
import {lexoraSubagentsAsClaude} from './convert-lexora.js'
import {
  clashesWithOrigin,
  dotSlash,
  emptyCarried,
  FORMAT_NAME,
  ignoredFields,
  inlineServer,
  metadataOf,
  noneCarried,
  overExisting,
  relPath,
  transportOf,
  type BuildContext,
  type ConversionPlan,
  type Metadata,
  type NotCarried,
} from './convert-plan.js'
import {CODEX_EVENTS} from '../formats/hooks.js'
import {HOOKS_CONVENTION, MCP_CONVENTION, sameSet} from './convert-sources.js'
import {shortDescription, title} from './plugin-scaffold.js'

const isFileAgent = (s: SubagentComponent): boolean => s.file.toLowerCase().endsWith('.md')

const metadataJson = (m: Metadata): Json => ({
  name: m.name,
  ...(m.version !== undefined ? {version: m.version} : {}),
  ...(m.description !== undefined ? {description: m.description} : {}),
  ...(m.author ? {author: {...m.author}} : {}),
  ...(m.homepage ? {homepage: m.homepage} : {}),
  ...(m.repository ? {repository: m.repository} : {}),
  ...(m.license ? {license: m.license} : {}),
  ...(m.keywords ? {keywords: [...m.keywords]} : {}),
})

const METADATA_KEYS = ['name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords']

/** Skill folders as the format spells them; undefined when they are exactly the `skills/` folders (found there by convention). */
const skillPaths = (model: PluginModel, conventional: readonly string[], spell: (rel: string) => string): string[] | undefined => {
  const dirs = model.skills.map((s) => s.dir)
  if (dirs.length === 0 || sameSet(dirs, conventional)) return undefined
  return dirs.map((dir) => spell(relPath(model.root, dir)))
}

/** `./a` alone, or a list of several. */
const oneOrList = (items: unknown[]): unknown => (items.length === 1 ? items[0] : items)

/** A component path with `${CLAUDE_PLUGIN_ROOT}` in its command: only Claude Code (and `loadout install`) fill it in. */
const usesClaudeRoot = (value: unknown): boolean => JSON.stringify(value ?? null).includes('${CLAUDE_PLUGIN_ROOT}')

const claudeRootNote = (names: readonly string[], format: string): string[] =>
  names.length === 0
    ? []
    : [`${names.join(', ')} ${names.length === 1 ? 'uses' : 'use'} \${CLAUDE_PLUGIN_ROOT}, which only Claude Code expands; \`loadout install\` writes the installed path in its place for ${format}`]

// ---------------------------------------------------------------------------------------------
// MCP servers shared by Claude and Codex

interface McpCarry {
  /** manifest value parts: file paths and one inline object */
  files: string[]
  inline: Record<string, Json>
  carried: string[]
  notCarried: NotCarried[]
}

const fileBacked = (server: McpComponent, ctx: BuildContext): boolean => (ctx.sources.mcp.get(server.name) ?? []).some((o) => o.kind === 'file')

/**
 * Servers in files are carried by naming the files; the rest inline, in the reader's own form.
 * `allInline` writes every server inline instead (Codex takes one file or one object).
 */
const carryMcp = (ctx: BuildContext, keep: (s: McpComponent) => string | undefined, allInline: boolean): McpCarry => {
  const out: McpCarry = {files: allInline ? [] : [...ctx.sources.mcpFiles], inline: {}, carried: [], notCarried: []}
  for (const server of ctx.model.mcpServers) {
    const refused = keep(server)
    if (refused) {
      out.notCarried.push({kind: 'mcp', name: server.name, reason: refused})
      continue
    }
    if (allInline || !fileBacked(server, ctx)) {
      const clash = clashesWithOrigin(server.name, server.config, ctx)
      if (clash) {
        out.notCarried.push({kind: 'mcp', name: server.name, reason: `it is defined differently in ${clash}; two definitions under one name would clash`})
        continue
      }
      out.inline[server.name] = inlineServer(server.config)
    }
    out.carried.push(server.name)
    for (const field of ignoredFields(server.config, ctx.format)) {
      out.notCarried.push({kind: 'mcp', name: server.name, part: field, reason: `${FORMAT_NAME[ctx.format]} has no such setting and ignores it; it stays in the entry so the plugin defines the server once`})
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Claude Code

const CLAUDE_MANAGED = new Set([...METADATA_KEYS, 'skills', 'agents', 'commands', 'hooks', 'mcpServers'])

const claudeAgents = (ctx: BuildContext): string[] | undefined => {
  const files = ctx.model.subagents.filter(isFileAgent).map((s) => s.file)
  if (files.length === 0 || sameSet(files, ctx.sources.conventionalAgents)) return undefined
  return files.map((f) => dotSlash(relPath(ctx.model.root, f)))
}

const claudeCommands = (ctx: BuildContext): string[] | undefined => {
  const files = ctx.model.commands.map((c) => c.file)
  if (files.length === 0 || sameSet(files, ctx.sources.conventionalCommands)) return undefined
  return files.map((f) => dotSlash(relPath(ctx.model.root, f)))
}

/** Hook sources: omitted when the only one is `hooks/hooks.json`, which Claude Code reads by default. */
const claudeHooks = (ctx: BuildContext): unknown => {
  const {hooks, root} = ctx.sources
  if (hooks.length === 0) return undefined
  if (hooks.length === 1 && hooks[0]!.kind === 'file' && hooks[0]!.file === join(root, HOOKS_CONVENTION)) return undefined
  return oneOrList(hooks.map((h) => (h.kind === 'file' ? dotSlash(relPath(root, h.file)) : h.value)))
}

export const buildClaude = (ctx: BuildContext): ConversionPlan => {
  const {model} = ctx
  const carried = emptyCarried()
  const notCarried: NotCarried[] = []
  const json = metadataJson(metadataOf(ctx))

  const skills = skillPaths(model, ctx.sources.conventionalSkills, dotSlash)
  if (skills) json.skills = oneOrList(skills)
  carried.skills = model.skills.map((s) => s.name)

  const agents = claudeAgents(ctx)
  if (agents) json.agents = oneOrList(agents)
  const fromLexora = lexoraSubagentsAsClaude(ctx)
  carried.subagents = [...model.subagents.filter(isFileAgent).map((s) => s.name), ...fromLexora.carried]
  notCarried.push(...fromLexora.notCarried)

  const commands = claudeCommands(ctx)
  if (commands) json.commands = oneOrList(commands)
  carried.commands = model.commands.map((c) => c.name)

  const hooks = claudeHooks(ctx)
  if (hooks !== undefined) json.hooks = hooks
  carried.hooks = model.hooks.map((h) => h.name)

  const mcp = carryMcp(ctx, () => undefined, false)
  const onlyConventional = mcp.files.length === 1 && mcp.files[0] === join(model.root, MCP_CONVENTION) && Object.keys(mcp.inline).length === 0
  const mcpParts: unknown[] = [...(onlyConventional ? [] : mcp.files.map((f) => dotSlash(relPath(model.root, f)))), ...(Object.keys(mcp.inline).length > 0 ? [mcp.inline] : [])]
  if (mcpParts.length > 0) json.mcpServers = oneOrList(mcpParts)
  carried.mcpServers = mcp.carried
  notCarried.push(...mcp.notCarried, ...fromLexora.connectorNotes)

  notCarried.push(...noneCarried('tool', model.tools.map((t) => t.name), 'an exec tool is a cst-agent feature; Claude Code plugins have no exec tools (wrap the program in an MCP server or a skill script)'))

  return {
    format: 'claude',
    target: ctx.target,
    json: overExisting(ctx.target.existing, json, CLAUDE_MANAGED),
    files: fromLexora.files,
    carried,
    notCarried,
    notes: fromLexora.notes,
  }
}

// ---------------------------------------------------------------------------------------------
// Codex

/** The events Codex fires (its hooks documentation); other events' hooks never run there. */

const CODEX_MANAGED = new Set([...METADATA_KEYS, 'skills', 'mcpServers', 'hooks'])

const codexHooks = (ctx: BuildContext, notCarried: NotCarried[]): unknown => {
  const {hooks, root} = ctx.sources
  const [first] = hooks
  for (const set of ctx.model.hooks.slice(1)) {
    notCarried.push({kind: 'hooks', name: set.name, reason: 'Codex takes one hooks file; merge the hook sets into one to carry this one'})
  }
  for (const set of ctx.model.hooks.slice(0, 1)) {
    for (const event of Object.keys(set.events)) {
      if (!CODEX_EVENTS.has(event)) notCarried.push({kind: 'hooks', name: set.name, part: event, reason: `Codex fires no "${event}" event (it fires ${[...CODEX_EVENTS].join(', ')}); those hooks never run there`})
    }
  }
  if (!first) return undefined
  return first.kind === 'file' ? dotSlash(relPath(root, first.file)) : first.value
}

export const buildCodex = (ctx: BuildContext): ConversionPlan => {
  const {model} = ctx
  const carried = emptyCarried()
  const notCarried: NotCarried[] = []
  const meta = metadataOf(ctx)
  const json = metadataJson(meta)

  if (model.skills.length > 0) json.skills = oneOrList(skillPaths(model, ctx.sources.conventionalSkills, dotSlash) ?? ['./skills/'])
  carried.skills = model.skills.map((s) => s.name)

  // one file, or one inline object: servers defined inline anywhere, or in several files, go inline
  const allInline = model.mcpServers.some((s) => !fileBacked(s, ctx)) || ctx.sources.mcpFiles.length > 1
  const sse = (s: McpComponent) => transportOf(s.config) === 'sse'
  if (allInline) {
    const mcp = carryMcp(ctx, (s) => (sse(s) ? 'Codex connects to remote MCP servers over streamable HTTP only, not SSE' : undefined), true)
    if (Object.keys(mcp.inline).length > 0) json.mcpServers = mcp.inline
    carried.mcpServers = mcp.carried
    notCarried.push(...mcp.notCarried)
  } else if (ctx.sources.mcpFiles.length === 1) {
    const file = relPath(model.root, ctx.sources.mcpFiles[0]!)
    json.mcpServers = dotSlash(file)
    const mcp = carryMcp(ctx, (s) => (sse(s) ? `Codex connects to remote MCP servers over streamable HTTP only; it stays in ${file}, but Codex will not use it` : undefined), false)
    carried.mcpServers = mcp.carried
    notCarried.push(...mcp.notCarried)
  }

  const hooks = codexHooks(ctx, notCarried)
  if (hooks !== undefined) json.hooks = hooks
  carried.hooks = model.hooks.slice(0, 1).map((h) => h.name)

  json.interface = {
    displayName: title(model.name),
    ...(meta.description ? {shortDescription: shortDescription(meta.description)} : {}),
    ...(meta.author ? {developerName: meta.author.name} : {}),
  }
  if (ctx.target.existing && 'interface' in ctx.target.existing) json.interface = ctx.target.existing.interface

  notCarried.push(
    ...noneCarried('subagent', model.subagents.map((s) => s.name), 'Codex plugins carry no subagents'),
    ...noneCarried('command', model.commands.map((c) => c.name), 'Codex plugins carry no slash commands'),
    ...noneCarried('tool', model.tools.map((t) => t.name), 'an exec tool is a cst-agent feature; Codex plugins have no exec tools'),
  )
  const rooted = [...model.mcpServers.filter((s) => carried.mcpServers.includes(s.name) && usesClaudeRoot(s.config)).map((s) => `MCP server "${s.name}"`)]
  return {
    format: 'codex',
    target: ctx.target,
    json: overExisting(ctx.target.existing, json, new Set([...CODEX_MANAGED, 'interface'])),
    files: [],
    carried,
    notCarried,
    notes: claudeRootNote(rooted, 'Codex'),
  }
}

// ---------------------------------------------------------------------------------------------
// cst-agent

const CST_MANAGED = new Set([...METADATA_KEYS, 'skills', 'tools', 'mcpServers'])

const cstTool = (tool: PluginModel['tools'][number]): Json => ({
  name: tool.name,
  ...(tool.description !== undefined ? {description: tool.description} : {}),
  command: Array.isArray(tool.command) ? [...tool.command] : tool.command,
  ...(tool.parameters ? {parameters: tool.parameters} : {}),
  perm: tool.perm,
  timeout: tool.timeout,
})

export const buildCstAgent = (ctx: BuildContext): ConversionPlan => {
  const {model} = ctx
  const carried = emptyCarried()
  const notCarried: NotCarried[] = []
  const json = metadataJson(metadataOf(ctx))

  if (model.skills.length > 0) json.skills = oneOrList(skillPaths(model, ctx.sources.conventionalSkills, (rel) => rel) ?? ['skills'])
  carried.skills = model.skills.map((s) => s.name)

  if (model.tools.length > 0) json.tools = model.tools.map(cstTool)
  carried.tools = model.tools.map((t) => t.name)

  const servers: Record<string, Json> = {}
  for (const server of model.mcpServers) {
    const transport = transportOf(server.config)
    if (transport !== 'stdio') {
      notCarried.push({kind: 'mcp', name: server.name, reason: `cst-agent runs MCP servers over stdio only; this one is a remote ${transport} server`})
      continue
    }
    const clash = clashesWithOrigin(server.name, server.config, ctx)
    if (clash) {
      notCarried.push({kind: 'mcp', name: server.name, reason: `it is defined differently in ${clash}; two definitions under one name would clash`})
      continue
    }
    servers[server.name] = inlineServer(server.config)
    carried.mcpServers.push(server.name)
  }
  if (Object.keys(servers).length > 0) json.mcpServers = servers

  notCarried.push(
    ...noneCarried('subagent', model.subagents.map((s) => s.name), 'a cst-agent plugin carries no subagents (cst-agent reads them from its agents folder)'),
    ...noneCarried('hooks', model.hooks.map((h) => h.name), 'cst-agent runs no hooks'),
    ...noneCarried('command', model.commands.map((c) => c.name), 'cst-agent has no slash commands'),
  )
  const rooted = model.mcpServers.filter((s) => carried.mcpServers.includes(s.name) && usesClaudeRoot(s.config)).map((s) => `MCP server "${s.name}"`)
  return {
    format: 'cst-agent',
    target: ctx.target,
    json: overExisting(ctx.target.existing, json, CST_MANAGED),
    files: [],
    carried,
    notCarried,
    notes: claudeRootNote(rooted, 'cst-agent'),
  }
}
