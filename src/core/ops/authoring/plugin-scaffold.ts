/**
 * What `plugin create` writes, as data: the files of templates/plugin for the parts asked for
 * (rendered by plain `{{key}}` substitution, in paths and text), the manifest of each format (built
 * as objects by the format's scaffold and serialised, so nothing an author typed can break the
 * JSON), and a README.
 */
import type {FormatScaffold} from '../../kernel/plugin/manifest-formats/format.js'
import {yamlString, readTemplate, renderTemplate} from '../../kernel/env/templates.js'
import {has, title, type PluginPart, type ScaffoldInput} from '../../kernel/plugin/manifest-formats/scaffold-kit.js'

export type {ScaffoldInput} from '../../kernel/plugin/manifest-formats/scaffold-kit.js'

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

const json = (value: unknown): ScaffoldFile => ({text: `${JSON.stringify(value, null, 2)}\n`, mode: 0o644})

const CONTENTS: Record<PluginPart, (name: string) => string> = {
  skills: (n) => `- \`skills/${n}/SKILL.md\`: a skill (Agent Skills format: YAML frontmatter, then instructions)`,
  agents: (n) => `- \`agents/${n}.md\`: a read-only subagent (YAML frontmatter; the body is its prompt)`,
  hooks: () => '- `hooks/hooks.json`: a `SessionStart` hook that runs `echo` (harmless; replace it with your own)',
  mcp: (n) => `- \`.mcp.json\` and \`servers/${n}.mjs\`: an MCP server over stdio (Node.js, no dependencies) with one tool, \`hello\``,
  commands: (n) => `- \`commands/${n}.md\`: a slash command, \`/${n}\``,
  tools: (n) => `- \`tools/${n}.mjs\`: an exec tool`,
}

/** The README line of a part: the format that alone carries it (or defines it inline) says it best. */
const contentLine = (part: PluginPart, name: string, scaffolds: readonly FormatScaffold[], inline: string | undefined): string => {
  if (part === 'agents' && inline) return inline
  const inlineMcp = scaffolds.length === 1 ? scaffolds[0]!.inlineMcp : undefined
  if (part === 'mcp' && inlineMcp) return inlineMcp(name)
  const owner = scaffolds.find((s) => s.ownParts?.[part])
  return owner ? owner.ownParts![part]!(name) : CONTENTS[part](name)
}

/** The notes a user should read: what a format cannot carry, what will ask for consent. */
const scaffoldNotes = (input: ScaffoldInput, scaffolds: readonly FormatScaffold[]): string[] => {
  const notes = scaffolds.flatMap((s) => s.notes?.(input) ?? [])
  if (has(input, 'hooks') || has(input, 'mcp') || has(input, 'tools')) {
    notes.push("hooks, MCP servers and exec tools run commands on the user's machine: `loadout install` asks before installing them")
  }
  return notes
}

/** Every file of the new plugin, and the notes to show. Pure: nothing is written here. */
/** `scaffolds` are those of `input.formats`, in that order. */
export const scaffoldPlugin = (input: ScaffoldInput, scaffolds: readonly FormatScaffold[]): Scaffold => {
  const {name} = input
  const values = {
    name,
    title: title(name),
    skillDescription: yamlString(input.description),
    agentDescription: yamlString(`Use to review or investigate something for ${name} without changing files. ${input.description}`),
  }
  const files = new Map<string, ScaffoldFile>()
  // a format alone may define the example subagent inline, in its manifest
  const inline = scaffolds.length === 1 ? scaffolds[0]!.inlineSubagent : undefined
  let agentPrompt = ''
  for (const file of readTemplate('plugin')) {
    if (!file.path.startsWith('parts/')) continue
    const [, part, ...rest] = file.path.split('/')
    if (!has(input, part as PluginPart)) continue
    const rel = renderTemplate(rest.join('/'), values)
    const text = renderTemplate(file.text, values)
    if (part === 'agents') {
      agentPrompt = text.replace(/^---[\s\S]*?\n---\n+/, '').trim()
      if (inline) continue
    }
    if (part === 'mcp' && scaffolds.length === 1 && scaffolds[0]!.inlineMcp) continue
    files.set(rel, {text, mode: /^(servers|tools)\/.*\.mjs$/.test(rel) ? 0o755 : 0o644})
  }
  for (const scaffold of scaffolds) files.set(scaffold.file, json(scaffold.manifest(input, agentPrompt)))
  const notes = scaffoldNotes(input, scaffolds)
  const readme = readTemplate('plugin').find((f) => f.path === 'README.md')!
  files.set('README.md', {
    text: renderTemplate(readme.text, {
      ...values,
      description: input.description,
      contents: input.parts.map((p) => contentLine(p, name, scaffolds, inline)).join('\n'),
      formats: scaffolds.map((s) => s.line).join('\n'),
      notes: notes.length === 0 ? '' : `\n## Notes\n\n${notes.map((n) => `- ${n}.`).join('\n')}\n`,
    }),
    mode: 0o644,
  })
  return {files: new Map([...files].sort(([a], [b]) => a.localeCompare(b))), notes}
}
