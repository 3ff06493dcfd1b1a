/**
 * cst-agent's root `plugin.json` made from a plugin: its skills folders, its exec tools, and its
 * stdio MCP servers defined inline.
 */
import {join} from 'node:path'
import {claudeRootNote, METADATA_KEYS, metadataJson, oneOrList, skillPaths, usesClaudeRoot} from '../convert-parts.js'
import {
  clashesWithOrigin,
  emptyCarried,
  inlineServer,
  metadataOf,
  noneCarried,
  overExisting,
  targetAt,
  transportOf,
  type BuildContext,
  type ConversionPlan,
  type NotCarried,
  type TargetManifest,
} from '../convert-plan.js'
import {conflict} from '../../../../model/errors.js'
import type {Json} from '../../components.js'
import type {PluginModel} from '../../../../model/plugin.js'
import {relativeToPlugin} from './plugin-root.js'

/** The root plugin.json, unless it is the plugin's Lexora manifest (both formats use that file). */
export const cstAgentTarget = (existing: (rel: string) => Json | undefined, root: string): TargetManifest => {
  const found = existing('plugin.json')
  if (found && 'contributes' in found) {
    throw conflict('manifest-file-taken', `${join(root, 'plugin.json')} is this plugin's Lexora manifest, and cst-agent's manifest is also plugin.json`, {
      suggestions: ['move the Lexora manifest into package.json (same content), then convert again'],
    })
  }
  return targetAt('plugin.json', found)
}

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
  const relative: string[] = []
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
    const inline = relativeToPlugin(inlineServer(server.config))
    servers[server.name] = inline.server
    if (inline.changed) relative.push(`MCP server "${server.name}"`)
    carried.mcpServers.push(server.name)
  }
  if (Object.keys(servers).length > 0) json.mcpServers = servers

  notCarried.push(
    ...noneCarried(
      'subagent',
      model.subagents.map((s) => s.name),
      'a cst-agent plugin carries no subagents (cst-agent reads them from its agents folder)',
    ),
    ...noneCarried(
      'hooks',
      model.hooks.map((h) => h.name),
      'cst-agent runs no hooks',
    ),
    ...noneCarried(
      'command',
      model.commands.map((c) => c.name),
      'cst-agent has no slash commands',
    ),
  )
  const rooted = model.mcpServers
    .filter((s) => carried.mcpServers.includes(s.name) && !relative.includes(`MCP server "${s.name}"`) && usesClaudeRoot(servers[s.name]))
    .map((s) => `MCP server "${s.name}"`)
  const madeRelative =
    relative.length === 0
      ? []
      : [
          `${relative.join(', ')}: \${CLAUDE_PLUGIN_ROOT} written as paths relative to the plugin folder (cwd "."), which is how cst-agent names a plugin's files`,
        ]
  return {
    format: 'cst-agent',
    target: ctx.target,
    json: overExisting(ctx.target.existing, json, CST_MANAGED),
    files: [],
    carried,
    notCarried,
    notes: [...madeRelative, ...claudeRootNote(rooted, 'cst-agent')],
  }
}
