/**
 * What `plugin create` writes, as data: the files of templates/plugin for the parts asked for
 * (rendered by plain `{{key}}` substitution, in paths and text), the manifest of each format (built
 * as objects and serialised, so nothing an author typed can break the JSON), and a README.
 */
import {yamlString, readTemplate, renderTemplate} from '../templates.js'
import {builtinTool, LEXORA_API_VERSION, LEXORA_BUILTIN_SUBAGENTS, LEXORA_BUILTIN_TOOLS} from './plugin-lexora.js'

export const PLUGIN_PARTS = ['skills', 'agents', 'hooks', 'mcp', 'commands', 'tools'] as const
export type PluginPart = (typeof PLUGIN_PARTS)[number]

export const PLUGIN_FORMATS = ['claude', 'codex', 'cst-agent', 'lexora'] as const
export type PluginFormat = (typeof PLUGIN_FORMATS)[number]

export interface PluginAuthor {
  name: string
  email?: string
}

export interface ScaffoldInput {
  name: string
  description: string
  author?: PluginAuthor
  parts: readonly PluginPart[]
  formats: readonly PluginFormat[]
}

export interface ScaffoldFile {
  text: string
  mode: number
}

export interface Scaffold {
  /** relative path (`/`-separated) -> content */
  files: Map<string, ScaffoldFile>
  /** what the plugin cannot carry in some format, and similar things worth knowing */
  notes: string[]
}

export const VERSION = '0.1.0'

export const title = (name: string): string =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ')

const MANIFEST_FILE: Record<PluginFormat, string> = {
  claude: '.claude-plugin/plugin.json',
  codex: '.codex-plugin/plugin.json',
  'cst-agent': 'plugin.json',
  lexora: 'package.json',
}

const json = (value: unknown): ScaffoldFile => ({text: `${JSON.stringify(value, null, 2)}\n`, mode: 0o644})

/** The first sentence of the description, at most 128 characters: Codex shows it as a subtitle. */
export const shortDescription = (description: string): string => {
  const sentence = /^(.+?[.!?])(\s|$)/s.exec(description)?.[1] ?? description
  const flat = sentence.replace(/\s+/g, ' ').trim()
  return [...flat].length <= 128 ? flat : `${[...flat].slice(0, 125).join('')}...`
}

const has = (input: ScaffoldInput, part: PluginPart): boolean => input.parts.includes(part)

/** Lexora defines the subagent inline only when it is the only format (see `scaffoldPlugin`). */
const lexoraOnly = (input: ScaffoldInput): boolean => input.formats.length === 1 && input.formats[0] === 'lexora'

const authorObject = (author: PluginAuthor) => ({name: author.name, ...(author.email ? {email: author.email} : {})})

const metadata = (input: ScaffoldInput) => ({name: input.name, version: VERSION, description: input.description})

const claudeManifest = (input: ScaffoldInput) => ({
  ...metadata(input),
  ...(input.author ? {author: authorObject(input.author)} : {}),
})

const codexManifest = (input: ScaffoldInput) => ({
  ...metadata(input),
  ...(input.author ? {author: authorObject(input.author)} : {}),
  ...(has(input, 'skills') ? {skills: './skills/'} : {}),
  ...(has(input, 'hooks') ? {hooks: './hooks/hooks.json'} : {}),
  ...(has(input, 'mcp') ? {mcpServers: './.mcp.json'} : {}),
  interface: {
    displayName: title(input.name),
    shortDescription: shortDescription(input.description),
    ...(input.author ? {developerName: input.author.name} : {}),
    category: 'Coding',
    defaultPrompt: [`Use ${input.name} on this project`],
  },
})

export const exampleTool = (name: string) => ({
  name,
  description: 'Counts the words in a text (an example exec tool: replace it with your own)',
  command: ['node', `tools/${name}.mjs`],
  parameters: {
    type: 'object',
    properties: {text: {type: 'string', description: 'the text whose words to count'}},
    required: ['text'],
    additionalProperties: false,
  },
  perm: 'read',
  timeout: 60,
})

const cstAgentManifest = (input: ScaffoldInput) => ({
  ...metadata(input),
  ...(has(input, 'skills') ? {skills: 'skills'} : {}),
  ...(has(input, 'tools') ? {tools: [exampleTool(input.name)]} : {}),
})

const lexoraSubagentId = (name: string): string => ((LEXORA_BUILTIN_SUBAGENTS as readonly string[]).includes(name) ? `${name}-agent` : name)

const lexoraManifest = (input: ScaffoldInput, agentPrompt: string) => {
  const id = input.name
  const skills = has(input, 'skills') ? [{id: `${id}.${input.name}`, path: `skills/${input.name}/SKILL.md`}] : undefined
  const subagents =
    has(input, 'agents') && lexoraOnly(input)
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
  return {
    ...metadata(input),
    private: true,
    ...(input.author ? {author: input.author.email ? `${input.author.name} <${input.author.email}>` : input.author.name} : {}),
    id,
    engines: {lexora: `^${LEXORA_API_VERSION}.0.0`},
    contributes: {...(skills ? {skills} : {}), ...(subagents ? {subagents} : {})},
  }
}

const CONTENTS: Record<PluginPart, (name: string, input: ScaffoldInput) => string> = {
  skills: (n) => `- \`skills/${n}/SKILL.md\`: a skill (Agent Skills format: YAML frontmatter, then instructions)`,
  agents: (n, input) =>
    lexoraOnly(input)
      ? '- a subagent, defined in `package.json` under `contributes.subagents` (its prompt is `instructions`)'
      : `- \`agents/${n}.md\`: a read-only subagent (YAML frontmatter; the body is its prompt)`,
  hooks: () => '- `hooks/hooks.json`: a `SessionStart` hook that runs `echo` (harmless; replace it with your own)',
  mcp: (n) => `- \`.mcp.json\` and \`servers/${n}.mjs\`: an MCP server over stdio (Node.js, no dependencies) with one tool, \`hello\``,
  commands: (n) => `- \`commands/${n}.md\`: a slash command, \`/${n}\``,
  tools: (n) => `- \`tools/${n}.mjs\`: a cst-agent exec tool, declared in \`plugin.json\` with a JSON Schema for its parameters`,
}

const FORMAT_LINE: Record<PluginFormat, string> = {
  claude: '- `.claude-plugin/plugin.json`: Claude Code (it finds each part in its standard folder)',
  codex: '- `.codex-plugin/plugin.json`: Codex (skills, hooks, MCP servers, and the `interface` shown in its plugin browser)',
  'cst-agent': '- `plugin.json`: cst-agent (its skills folder and exec tools)',
  lexora: '- `package.json`: a Lexora package manifest (`contributes`)',
}

/** The notes a user should read: what a format cannot carry, what will ask for consent. */
const scaffoldNotes = (input: ScaffoldInput): string[] => {
  const notes: string[] = []
  if (input.formats.includes('lexora')) {
    const absent = (['hooks', 'mcp', 'commands', 'tools'] as const).filter((p) => has(input, p))
    const words: Record<string, string> = {hooks: 'hooks', mcp: 'stdio MCP servers (only streamable-http connectors)', commands: 'slash commands', tools: 'exec tools'}
    if (absent.length > 0) notes.push(`Lexora packages carry no ${absent.map((p) => words[p]).join(', ')}; those files serve the other agents`)
    if (has(input, 'agents') && !lexoraOnly(input)) {
      notes.push(`package.json does not list the subagent under contributes.subagents: loadout reads a plugin's subagents from one place, and agents/${input.name}.md serves the other formats; add it by hand for a Lexora-only package`)
    }
  }
  if (input.formats.includes('cst-agent') && has(input, 'hooks')) notes.push('cst-agent runs no hooks; hooks/hooks.json serves the other agents')
  if (has(input, 'hooks') || has(input, 'mcp') || has(input, 'tools')) {
    notes.push('hooks, MCP servers and exec tools run commands on the user\'s machine: `loadout install` asks before installing them')
  }
  return notes
}

/** Every file of the new plugin, and the notes to show. Pure: nothing is written here. */
export const scaffoldPlugin = (input: ScaffoldInput): Scaffold => {
  const {name} = input
  const values = {
    name,
    title: title(name),
    skillDescription: yamlString(input.description),
    agentDescription: yamlString(`Use to review or investigate something for ${name} without changing files. ${input.description}`),
  }
  const files = new Map<string, ScaffoldFile>()
  let agentPrompt = ''
  for (const file of readTemplate('plugin')) {
    if (!file.path.startsWith('parts/')) continue
    const [, part, ...rest] = file.path.split('/')
    if (!has(input, part as PluginPart)) continue
    const rel = renderTemplate(rest.join('/'), values)
    const text = renderTemplate(file.text, values)
    if (part === 'agents') {
      agentPrompt = text.replace(/^---[\s\S]*?\n---\n+/, '').trim()
      if (lexoraOnly(input)) continue
    }
    files.set(rel, {text, mode: /^(servers|tools)\/.*\.mjs$/.test(rel) ? 0o755 : 0o644})
  }
  for (const format of input.formats) {
    const manifest =
      format === 'claude' ? claudeManifest(input) : format === 'codex' ? codexManifest(input) : format === 'cst-agent' ? cstAgentManifest(input) : lexoraManifest(input, agentPrompt)
    files.set(MANIFEST_FILE[format], json(manifest))
  }
  const notes = scaffoldNotes(input)
  const readme = readTemplate('plugin').find((f) => f.path === 'README.md')!
  files.set(
    'README.md',
    {
      text: renderTemplate(readme.text, {
        ...values,
        description: input.description,
        contents: input.parts.map((p) => CONTENTS[p](name, input)).join('\n'),
        formats: input.formats.map((f) => FORMAT_LINE[f]).join('\n'),
        notes: notes.length === 0 ? '' : `\n## Notes\n\n${notes.map((n) => `- ${n}.`).join('\n')}\n`,
      }),
      mode: 0o644,
    },
  )
  return {files: new Map([...files].sort(([a], [b]) => a.localeCompare(b))), notes}
}
