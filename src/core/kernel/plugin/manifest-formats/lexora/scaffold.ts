/**
 * `plugin create --format lexora`: a package.json with `contributes`. Alone, it defines the example
 * subagent inline (its prompt is `instructions`); beside other formats, agents/<name>.md serves them
 * and loadout reads a plugin's subagents from one place.
 */
import {alone, has, metadata, title, type ScaffoldInput} from '../scaffold-kit.js'
import type {FormatScaffold} from '../format.js'
import {builtinTool, LEXORA_API_VERSION, LEXORA_BUILTIN_SUBAGENTS, LEXORA_BUILTIN_TOOLS} from './rules.js'

const lexoraSubagentId = (name: string): string => ((LEXORA_BUILTIN_SUBAGENTS as readonly string[]).includes(name) ? `${name}-agent` : name)

/** Lexora runs no local programs: alone, the example MCP server is a remote connector, at a URL the author replaces. */
const exampleConnectorUrl = (name: string): string => `https://mcp.example.com/${name}`

const lexoraManifest = (input: ScaffoldInput, agentPrompt: string) => {
  const id = input.name
  const skills = has(input, 'skills') ? [{id: `${id}.${input.name}`, path: `skills/${input.name}/SKILL.md`}] : undefined
  const subagents =
    has(input, 'agents') && alone(input, 'lexora')
      ? [
          {
            id: lexoraSubagentId(input.name),
            name: title(input.name),
            description: input.description,
            instructions: agentPrompt,
            fileAccess: 'read_only',
            tools: LEXORA_BUILTIN_TOOLS.map(builtinTool),
            ...(skills ? {skills: skills.map((s) => s.id)} : {}),
          },
        ]
      : undefined
  const mcpConnectors =
    has(input, 'mcp') && alone(input, 'lexora')
      ? [
          {
            id: input.name,
            name: title(input.name),
            description: `The ${input.name} MCP server (an example connector: replace its URL with your server's)`,
            transport: 'streamable-http',
            url: exampleConnectorUrl(input.name),
            authentication: 'none',
          },
        ]
      : undefined
  return {
    ...metadata(input),
    private: true,
    ...(input.author ? {author: input.author.email ? `${input.author.name} <${input.author.email}>` : input.author.name} : {}),
    id,
    engines: {lexora: `^${LEXORA_API_VERSION}.0.0`},
    contributes: {...(skills ? {skills} : {}), ...(mcpConnectors ? {mcpConnectors} : {}), ...(subagents ? {subagents} : {})},
  }
}

const lexoraNotes = (input: ScaffoldInput): string[] => {
  const notes: string[] = []
  const absent = (['hooks', 'mcp', 'commands', 'tools'] as const).filter((p) => has(input, p) && !(p === 'mcp' && alone(input, 'lexora')))
  const words: Record<string, string> = {
    hooks: 'hooks',
    mcp: 'stdio MCP servers (only streamable-http connectors)',
    commands: 'slash commands',
    tools: 'exec tools',
  }
  if (has(input, 'mcp') && alone(input, 'lexora'))
    notes.push(`the MCP connector in package.json points at ${exampleConnectorUrl(input.name)}: replace it with your server's URL`)
  if (absent.length > 0) notes.push(`Lexora packages carry no ${absent.map((p) => words[p]).join(', ')}; those files serve the other agents`)
  if (has(input, 'agents') && !alone(input, 'lexora')) {
    notes.push(
      `package.json does not list the subagent under contributes.subagents: loadout reads a plugin's subagents from one place, and agents/${input.name}.md serves the other formats; add it by hand for a Lexora-only package`,
    )
  }
  return notes
}

export const lexoraScaffold: FormatScaffold = {
  file: 'package.json',
  line: '- `package.json`: a Lexora package manifest (`contributes`)',
  manifest: lexoraManifest,
  notes: lexoraNotes,
  inlineSubagent: '- a subagent, defined in `package.json` under `contributes.subagents` (its prompt is `instructions`)',
  inlineMcp: (name) =>
    `- an MCP connector, \`${name}\`, defined in \`package.json\` under \`contributes.mcpConnectors\` (a remote server over streamable HTTP)`,
}
