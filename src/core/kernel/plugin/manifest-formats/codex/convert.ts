/**
 * Codex's manifest made from a plugin: one skills path, one MCP file or one inline object, one
 * hooks file, and the `interface` its plugin browser shows.
 */
import {carryMcp, claudeRootNote, fileBacked, METADATA_KEYS, metadataJson, oneOrList, skillPaths, usesClaudeRoot} from '../convert-parts.js'
import {
  dotSlash,
  emptyCarried,
  metadataOf,
  noneCarried,
  overExisting,
  relPath,
  transportOf,
  type BuildContext,
  type ConversionPlan,
  type NotCarried,
} from '../convert-plan.js'
import {shortDescription, title} from '../scaffold-kit.js'
import {CODEX_EVENTS} from '../../../writers/hooks.js'
import type {McpComponent} from '../../../../model/plugin.js'

/** Server settings Codex has no field for. */
const IGNORED = ['disabled', 'autoApprove'] as const

const CODEX_MANAGED = new Set([...METADATA_KEYS, 'skills', 'mcpServers', 'hooks'])

const codexHooks = (ctx: BuildContext, notCarried: NotCarried[]): unknown => {
  const {hooks, root} = ctx.sources
  const [first] = hooks
  for (const set of ctx.model.hooks.slice(1)) {
    notCarried.push({kind: 'hooks', name: set.name, reason: 'Codex takes one hooks file; merge the hook sets into one to carry this one'})
  }
  for (const set of ctx.model.hooks.slice(0, 1)) {
    for (const event of Object.keys(set.events)) {
      if (!CODEX_EVENTS.has(event))
        notCarried.push({
          kind: 'hooks',
          name: set.name,
          part: event,
          reason: `Codex fires no "${event}" event (it fires ${[...CODEX_EVENTS].join(', ')}); those hooks never run there`,
        })
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
    const mcp = carryMcp(ctx, (s) => (sse(s) ? 'Codex connects to remote MCP servers over streamable HTTP only, not SSE' : undefined), true, IGNORED)
    if (Object.keys(mcp.inline).length > 0) json.mcpServers = mcp.inline
    carried.mcpServers = mcp.carried
    notCarried.push(...mcp.notCarried)
  } else if (ctx.sources.mcpFiles.length === 1) {
    const file = relPath(model.root, ctx.sources.mcpFiles[0]!)
    json.mcpServers = dotSlash(file)
    const mcp = carryMcp(
      ctx,
      (s) => (sse(s) ? `Codex connects to remote MCP servers over streamable HTTP only; it stays in ${file}, but Codex will not use it` : undefined),
      false,
      IGNORED,
    )
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
    ...noneCarried(
      'subagent',
      model.subagents.map((s) => s.name),
      'Codex plugins carry no subagents',
    ),
    ...noneCarried(
      'command',
      model.commands.map((c) => c.name),
      'Codex plugins carry no slash commands',
    ),
    ...noneCarried(
      'tool',
      model.tools.map((t) => t.name),
      'an exec tool is a cst-agent feature; Codex plugins have no exec tools',
    ),
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
