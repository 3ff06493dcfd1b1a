/**
 * Claude Code's manifest made from a plugin: it points at the files the plugin already uses (skill
 * folders, agent and command files, hook and MCP files), relying on Claude Code's conventional
 * folders where the plugin's parts are exactly what those folders hold. Lexora subagents, defined
 * inline, become `agents/<id>.md` files.
 */
import {join} from 'node:path'
import {carryMcp, isFileAgent, METADATA_KEYS, metadataJson, oneOrList, skillPaths} from '../convert-parts.js'
import {
  dotSlash,
  emptyCarried,
  HOOKS_CONVENTION,
  MCP_CONVENTION,
  metadataOf,
  noneCarried,
  overExisting,
  relPath,
  sameSet,
  type BuildContext,
  type ConversionPlan,
  type NotCarried,
} from '../convert-plan.js'
import {lexoraSubagentsAsClaude} from '../lexora/to-claude.js'

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

  const mcp = carryMcp(ctx, () => undefined, false, ['cwd', 'disabled', 'autoApprove'])
  const onlyConventional = mcp.files.length === 1 && mcp.files[0] === join(model.root, MCP_CONVENTION) && Object.keys(mcp.inline).length === 0
  const mcpParts: unknown[] = [
    ...(onlyConventional ? [] : mcp.files.map((f) => dotSlash(relPath(model.root, f)))),
    ...(Object.keys(mcp.inline).length > 0 ? [mcp.inline] : []),
  ]
  if (mcpParts.length > 0) json.mcpServers = oneOrList(mcpParts)
  carried.mcpServers = mcp.carried
  notCarried.push(...mcp.notCarried, ...fromLexora.connectorNotes)

  notCarried.push(
    ...noneCarried(
      'tool',
      model.tools.map((t) => t.name),
      'an exec tool is a cst-agent feature; Claude Code plugins have no exec tools (wrap the program in an MCP server or a skill script)',
    ),
  )

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
