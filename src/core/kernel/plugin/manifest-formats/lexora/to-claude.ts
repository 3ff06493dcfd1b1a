/**
 * From Lexora to Claude Code: a Lexora subagent, defined inline, becomes an `agents/<id>.md` file
 * (the form Claude reads), with its built-in tools in Claude's names; connector sign-in settings
 * Claude Code has no field for are listed as not carried.
 */
import {posix} from 'node:path'
import {isFileAgent} from '../convert-parts.js'
import type {BuildContext, NotCarried} from '../convert-plan.js'
import {frontmatterYaml} from '../../../text/frontmatter-yaml.js'
import {isRecord} from '../../components.js'
import type {SubagentComponent} from '../../../../model/plugin.js'
import {lexoraRaw, rawContributions} from './convert.js'
import {lexoraPluginId} from './read.js'
import {builtinToolName} from './rules.js'

/** Lexora built-in -> Claude tool. */
const TO_CLAUDE_TOOL: Record<string, string> = {read: 'Read', grep: 'Grep', find: 'Glob', ls: 'Glob'}

export interface LexoraForClaude {
  /** agents/<id>.md files to write */
  files: Array<{path: string; text: string}>
  carried: string[]
  notCarried: NotCarried[]
  notes: string[]
  /** connector settings Claude Code has no field for */
  connectorNotes: NotCarried[]
}

const claudeAgentFile = (agent: SubagentComponent, pluginId: string | undefined, notCarried: NotCarried[]): string => {
  const fm = agent.frontmatter
  const part = (piece: string, reason: string) => notCarried.push({kind: 'subagent', name: agent.name, part: piece, reason})
  const tools: string[] = []
  for (const tool of Array.isArray(fm.tools) ? fm.tools : []) {
    const builtin = builtinToolName(tool)
    if (builtin !== undefined && TO_CLAUDE_TOOL[builtin]) {
      if (!tools.includes(TO_CLAUDE_TOOL[builtin]!)) tools.push(TO_CLAUDE_TOOL[builtin]!)
    } else if (isRecord(tool) && tool.source === 'mcp') {
      part(`tool ${String(tool.connector)}/${String(tool.name)}`, 'Claude Code names plugin MCP tools itself; grant it in the agent file by hand')
    }
  }
  // read_only with no tool list: the read tools keep it from changing files
  if (fm.fileAccess === 'read_only' && !Array.isArray(fm.tools)) tools.push('Read', 'Grep', 'Glob')
  if (Array.isArray(fm.requiredSkills) && fm.requiredSkills.length > 0)
    part('requiredSkills', 'Claude Code has no required skills; they are listed under "skills", which it preloads')
  const prefix = pluginId ? `${pluginId}.` : ''
  const skills = Array.isArray(fm.skills)
    ? fm.skills.filter((s): s is string => typeof s === 'string').map((s) => (s.startsWith(prefix) ? s.slice(prefix.length) : s))
    : []
  const fields: Record<string, unknown> = {
    name: agent.name,
    description:
      typeof fm.description === 'string' && fm.description.trim() !== ''
        ? fm.description
        : typeof fm.name === 'string'
          ? fm.name
          : `The ${agent.name} subagent`,
    ...(tools.length > 0 || Array.isArray(fm.tools) ? {tools: tools.join(', ')} : {}),
    ...(typeof fm.model === 'string' && fm.model !== '' ? {model: fm.model} : {}),
    ...(skills.length > 0 ? {skills} : {}),
  }
  return `---\n${frontmatterYaml(fields)}---\n\n${agent.body.trim()}\n`
}

/** Lexora subagents (defined inline) as Claude agent files; a file already there is kept. */
export const lexoraSubagentsAsClaude = (ctx: BuildContext): LexoraForClaude => {
  const out: LexoraForClaude = {files: [], carried: [], notCarried: [], notes: [], connectorNotes: []}
  const raw = lexoraRaw(ctx)
  const pluginId = raw ? lexoraPluginId(raw) : undefined
  const taken = new Set(ctx.sources.conventionalAgents.map((p) => posix.basename(p.split('\\').join('/'))))
  for (const agent of ctx.model.subagents.filter((s) => !isFileAgent(s))) {
    const file = `${agent.name}.md`
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(agent.name)) {
      out.notCarried.push({kind: 'subagent', name: agent.name, reason: 'its id cannot be a file name'})
      continue
    }
    out.carried.push(agent.name)
    if (taken.has(file)) {
      out.notes.push(`agents/${file} already exists and was kept; Claude Code reads it for the Lexora subagent "${agent.name}"`)
      continue
    }
    out.files.push({path: `agents/${file}`, text: claudeAgentFile(agent, pluginId, out.notCarried)})
  }
  for (const connector of rawContributions(ctx, 'mcpConnectors')) {
    if (connector.authentication === 'bearer' || connector.authentication === 'oauth') {
      const how =
        connector.authentication === 'bearer'
          ? 'add "headers": {"Authorization": "Bearer ${YOUR_TOKEN}"} to the entry'
          : 'Claude Code signs in to remote servers with OAuth itself'
      out.connectorNotes.push({kind: 'mcp', name: String(connector.id), part: 'authentication', reason: `Claude Code has no "authentication" field: ${how}`})
    }
  }
  if (out.files.length > 0) {
    out.notes.push('the Lexora manifest still defines the subagents for loadout; the agents/*.md files written here are what Claude Code reads')
  }
  return out
}
