/**
 * Subagents: one writer per target *format* (registry/agents/*.json `subagents.format`), turning a
 * plugin's Claude-style agent (`agents/<n>.md`: YAML frontmatter and a Markdown prompt) into the file
 * the target reads. Pure: the result is a relative path, the bytes to write, and a note for every
 * field that was dropped, converted or filled in.
 */
import {frontmatterYaml, hex4, INVISIBLE} from '../text/frontmatter-yaml.js'
import {validationFailed} from '../../model/errors.js'
import type {SubagentComponent} from '../../model/plugin.js'
import type {SubagentFormat} from '../targets/types.js'

export interface RenderedSubagent {
  /** relative to the target's subagents folder, `/`-separated */
  path: string
  content: string
  /** fields dropped, converted or defaulted on the way */
  notes: string[]
}

export interface RenderSubagentOptions {
  /** the name to write under (for `--prefix`: `<plugin>-<name>`); defaults to the agent's name */
  name?: string
}

export const SUBAGENT_FORMATS: readonly SubagentFormat[] = [
  'claude-agent-md',
  'codex-agent-toml',
  'copilot-agent-md',
  'cst-agent-md',
  'cursor-agent-md',
  'deepagents-agents-md',
  'gemini-agent-md',
  'opencode-agent-md',
]

// ---------------------------------------------------------------------------------------------
// Reading the Claude-style frontmatter

/** Fields that would run code or widen permissions outside the consent loadout asks for. */
const RISKY_FIELDS = new Set(['hooks', 'mcpServers', 'permissionMode'])

/** The risky fields a subagent's frontmatter sets: each is stripped, and the install says so. */
export const riskyFieldsOf = (frontmatter: Record<string, unknown>): string[] =>
  Object.keys(frontmatter).filter((k) => RISKY_FIELDS.has(k) && frontmatter[k] !== undefined && frontmatter[k] !== null)

/** Claude's model aliases: names only Claude Code resolves. */
const CLAUDE_MODEL_ALIASES = new Set(['inherit', 'sonnet', 'opus', 'haiku', 'opusplan'])

/** Tools that only read (Claude names and common snake_case spellings), for cst-agent's `readonly`. */
const READ_ONLY_TOOLS = new Set(['read', 'grep', 'glob', 'ls', 'notebookread', 'webfetch', 'websearch', 'read_file', 'list_dir', 'list_directory'])

/** Splits `Read, Bash(git add:*, git commit:*), Grep` on the commas outside parentheses. */
const splitToolList = (text: string): string[] => {
  const parts: string[] = []
  let depth = 0
  let current = ''
  for (const char of text) {
    if (char === '(') depth++
    else if (char === ')') depth = Math.max(0, depth - 1)
    if (char === ',' && depth === 0) {
      parts.push(current)
      current = ''
    } else {
      current += char
    }
  }
  parts.push(current)
  return parts.map((part) => part.trim()).filter((part) => part !== '')
}

/** `tools` as a comma string or a YAML list; undefined when absent or empty (the agent's defaults). */
const readTools = (value: unknown, notes: string[], field = 'tools'): string[] | undefined => {
  if (value === undefined || value === null) return undefined
  let tools: string[]
  if (typeof value === 'string') {
    tools = splitToolList(value)
  } else if (Array.isArray(value)) {
    const strings = value.filter((item): item is string => typeof item === 'string')
    if (strings.length < value.length) notes.push(`"${field}": entries that are not text were dropped`)
    tools = strings.map((item) => item.trim()).filter((item) => item !== '')
  } else {
    notes.push(`"${field}" dropped: it is neither a comma list nor a YAML list`)
    return undefined
  }
  if (tools.length === 0) {
    notes.push(`"${field}" is empty and was left out`)
    return undefined
  }
  return tools
}

/** The first line of prose in a Markdown body: not blank, a heading, a fence, a rule or a comment. */
export const firstProseLine = (body: string): string | undefined => {
  let fence: string | undefined
  for (const raw of body.split(/\r\n|\r|\n/)) {
    const line = raw.trim()
    const fenceMark = /^(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== undefined) {
      if (fenceMark !== undefined && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = undefined
      continue
    }
    if (fenceMark !== undefined) {
      fence = fenceMark
      continue
    }
    if (line === '' || line.startsWith('#') || line.startsWith('<!--') || line.startsWith('|')) continue
    if (/^([-*_])(\s*\1){2,}$/.test(line)) continue
    const text = line
      .replace(/^(>\s*)+/, '')
      .replace(/^([-*+]|\d+[.)])\s+/, '')
      .trim()
    if (text !== '') return text.length > 1024 ? text.slice(0, 1024) : text
  }
  return undefined
}

const readDescription = (frontmatter: Record<string, unknown>, body: string, name: string, notes: string[]): string => {
  const value = frontmatter.description
  if (typeof value === 'string' && value.trim() !== '') return value
  if (typeof value === 'number' || typeof value === 'boolean') {
    notes.push('"description" was not text and was written as text')
    return String(value)
  }
  const prose = firstProseLine(body)
  if (prose !== undefined) {
    notes.push('"description" is missing: the first line of the prompt was used')
    return prose
  }
  notes.push('"description" is missing and the prompt has no prose line: a generic description was written')
  return `The ${name} subagent`
}

type ModelPolicy = 'claude' | 'cursor' | 'explicit-id' | 'provider-slash-id' | 'none'

const MODEL_POLICY: Record<SubagentFormat, ModelPolicy> = {
  'claude-agent-md': 'claude',
  'cursor-agent-md': 'cursor',
  'cst-agent-md': 'explicit-id',
  'deepagents-agents-md': 'explicit-id',
  'gemini-agent-md': 'explicit-id',
  'opencode-agent-md': 'provider-slash-id',
  'copilot-agent-md': 'none',
  'codex-agent-toml': 'none',
}

/**
 * `model` as the format can take it. Claude's aliases (`inherit`, `sonnet`, `opus`, `haiku`) mean
 * something only to Claude Code (Cursor also knows `inherit`, its default); elsewhere they are
 * dropped so the agent uses its own default model rather than failing on a name it cannot resolve.
 */
const readModel = (value: unknown, format: SubagentFormat, notes: string[]): string | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value.trim() === '') {
    notes.push('"model" dropped: it is not a model name')
    return undefined
  }
  const alias = CLAUDE_MODEL_ALIASES.has(value.trim().toLowerCase())
  switch (MODEL_POLICY[format]) {
    case 'claude':
      return value
    case 'cursor':
      if (alias && value.trim().toLowerCase() !== 'inherit') break
      return value
    case 'explicit-id':
      if (alias) break
      return value
    case 'provider-slash-id':
      if (value.includes('/')) return value
      notes.push(`"model" ${JSON.stringify(value)} dropped: OpenCode names models as provider/model`)
      return undefined
    case 'none':
      notes.push(`"model" dropped: the ${format} format has no model field loadout can fill`)
      return undefined
  }
  notes.push(`"model" ${JSON.stringify(value)} dropped: a Claude model alias the ${format} format does not know; the agent's default model is used`)
  return undefined
}

const positiveInteger = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined)

// ---------------------------------------------------------------------------------------------
// Names

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i

/** A name becomes a file or folder name: it must be one plain, portable path segment. */
const checkFileName = (name: string): void => {
  const why =
    name === ''
      ? 'is empty'
      : name.length > 128
        ? `is ${name.length} characters (at most 128)`
        : !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)
          ? 'must start with a letter or digit and hold only letters, digits, ".", "_" and "-"'
          : name.includes('..')
            ? 'contains ".."'
            : WINDOWS_RESERVED.test(name)
              ? 'is a reserved device name on Windows'
              : undefined
  if (why !== undefined) {
    throw validationFailed('subagent-name-unsafe', `subagent name ${JSON.stringify(name)} ${why}`, {
      suggestions: ['rename the agent in the plugin (its file name or frontmatter "name")'],
    })
  }
}

const markdown = (fields: Record<string, unknown>, body: string): string => `---\n${frontmatterYaml(fields)}---\n${body}`

// ---------------------------------------------------------------------------------------------
// Writing TOML (Codex)

const TOML_ESCAPES: Record<string, string> = {'\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\'}

const tomlEscape = (char: string): string => TOML_ESCAPES[char] ?? hex4(char)

/** A TOML basic string: `"…"` with every quote, backslash and control character escaped. */
export const tomlString = (text: string): string => `"${text.replace(/["\\\u0000-\u001f]/g, tomlEscape).replace(INVISIBLE, hex4)}"`

/**
 * A TOML multi-line basic string that reads back as exactly `text`: the newline after the opening
 * `"""` is dropped by TOML, so the text starts on the next line; quotes and backslashes are escaped
 * (no run of `"""` and no line-ending backslash can occur), `\r` is escaped so CRLF survives parsers
 * that normalise line endings, and tabs and line feeds stay as they are.
 */
export const tomlMultilineString = (text: string): string => `"""\n${text.replace(/["\\\u0000-\u0008\u000b-\u001f]/g, tomlEscape).replace(INVISIBLE, hex4)}"""`

// ---------------------------------------------------------------------------------------------
// The formats

/** Claude Code's own fields that carry over unchanged (besides name, description, tools, model). */
const CLAUDE_EXTRA_FIELDS = ['disallowedTools', 'color', 'maxTurns', 'skills'] as const

/** Claude tool -> OpenCode built-in tool. */
/** Claude tool -> cst-agent's built-in tool (its own subagent example names these; others are unconfirmed). */
const CST_AGENT_TOOL_NAMES: Record<string, string> = {read: 'read_file', grep: 'grep', glob: 'glob', bash: 'run_shell'}
const CST_AGENT_NATIVE = new Set(Object.values(CST_AGENT_TOOL_NAMES))

/**
 * A Claude tool list in cst-agent's names (Read -> read_file, Bash -> run_shell, ...). A tool with no
 * known counterpart is kept as written and said: cst-agent may not know it by that name.
 */
const cstAgentTools = (tools: string[], notes: string[]): string[] => {
  const mapped: string[] = []
  const unknown: string[] = []
  for (const tool of tools) {
    const name = CST_AGENT_NATIVE.has(tool) ? tool : CST_AGENT_TOOL_NAMES[baseToolName(tool)]
    if (name === undefined) unknown.push(tool)
    else if (tool.includes('(')) notes.push(`tool ${JSON.stringify(tool)} written as "${name}": cst-agent cannot limit a tool to a pattern`)
    const written = name ?? tool
    if (!mapped.includes(written)) mapped.push(written)
  }
  if (unknown.length > 0)
    notes.push(`tools with no known cst-agent counterpart, kept as written: ${unknown.join(', ')} (the known ones are ${[...CST_AGENT_NATIVE].join(', ')})`)
  return mapped
}

const OPENCODE_TOOL_NAMES: Record<string, string[]> = {
  bash: ['bash'],
  edit: ['edit', 'patch'],
  multiedit: ['edit', 'patch'],
  write: ['write'],
  read: ['read'],
  grep: ['grep'],
  glob: ['glob'],
  ls: ['list'],
  webfetch: ['webfetch'],
  todowrite: ['todowrite'],
  todoread: ['todoread'],
}
const OPENCODE_BUILTINS = ['bash', 'edit', 'glob', 'grep', 'list', 'patch', 'read', 'todoread', 'todowrite', 'webfetch', 'write']

/** `Bash(git diff:*)` -> `bash`. */
const baseToolName = (tool: string): string => tool.replace(/\(.*$/s, '').trim().toLowerCase()

const opencodeTools = (tools: string[], notes: string[]): Record<string, boolean> => {
  const allowed = new Set<string>()
  const unmapped: string[] = []
  for (const tool of tools) {
    const names = OPENCODE_TOOL_NAMES[baseToolName(tool)]
    if (names === undefined) unmapped.push(tool)
    // a map entry cannot narrow a tool to a pattern: allowing all of it would widen what the agent may do
    else if (tool.includes('(')) notes.push(`tool ${JSON.stringify(tool)} left off: OpenCode's tools map cannot limit ${names.join(', ')} to that pattern`)
    else names.forEach((name) => allowed.add(name))
  }
  if (unmapped.length > 0) notes.push(`tools with no OpenCode counterpart left out: ${unmapped.join(', ')}`)
  return Object.fromEntries(OPENCODE_BUILTINS.map((name) => [name, allowed.has(name)]))
}

/** Claude tool -> Gemini CLI built-in tool (the names its agent loader accepts). */
const GEMINI_TOOL_NAMES: Record<string, string[]> = {
  read: ['read_file'],
  write: ['write_file'],
  edit: ['replace'],
  multiedit: ['replace'],
  bash: ['run_shell_command'],
  grep: ['grep_search'],
  glob: ['glob'],
  ls: ['list_directory'],
  webfetch: ['web_fetch'],
  websearch: ['google_web_search'],
  todowrite: ['write_todos'],
}

/**
 * A Claude tool list in Gemini CLI's names. Gemini CLI refuses the whole file over one name it does
 * not know, and cannot narrow a tool to a pattern, so both are left out and said; a list that maps to
 * nothing is written empty (no tools), never dropped (which would grant every tool).
 */
const geminiTools = (tools: string[], notes: string[]): string[] => {
  const mapped: string[] = []
  const unmapped: string[] = []
  for (const tool of tools) {
    const names = GEMINI_TOOL_NAMES[baseToolName(tool)]
    if (names === undefined) unmapped.push(tool)
    else if (tool.includes('(')) notes.push(`tool ${JSON.stringify(tool)} left off: Gemini CLI cannot limit ${names.join(', ')} to that pattern`)
    else for (const name of names) if (!mapped.includes(name)) mapped.push(name)
  }
  if (unmapped.length > 0) notes.push(`tools with no Gemini CLI counterpart left out: ${unmapped.join(', ')}`)
  return mapped
}

/** Gemini CLI names agents by a lower-case slug; a name that only differs in case or dots is spelt so. */
const geminiName = (name: string, notes: string[]): string => {
  const slug = name.toLowerCase().replaceAll('.', '-')
  if (slug !== name) notes.push(`name written as ${JSON.stringify(slug)}: Gemini CLI takes lower-case letters, digits, "-" and "_" only`)
  return slug
}

/**
 * Renders one subagent for `format`:
 *
 * | format | path | frontmatter |
 * |---|---|---|
 * | `claude-agent-md` | `<n>.md` | name, description, tools (comma list), model, and Claude's disallowedTools, color, maxTurns, skills |
 * | `deepagents-agents-md` | `<n>/AGENTS.md` | name, description (required), model |
 * | `cst-agent-md` | `<n>.md` | name, description, tools (comma list), readonly, model, max_steps |
 * | `copilot-agent-md` | `<n>.agent.md` | name, description, tools (YAML list) |
 * | `opencode-agent-md` | `<n>.md` | description, mode: subagent, model (provider/model), tools (map) |
 * | `cursor-agent-md` | `<n>.md` | name, description, model |
 * | `gemini-agent-md` | `<n>.md` | name (lower-case slug), description, tools (Gemini names, YAML list), model, max_turns |
 * | `codex-agent-toml` | `<n>.toml` | name, description, developer_instructions = the prompt (confirmed with Codex 0.171.0's `codex debug prompt-input`) |
 *
 * The body follows the closing `---` unchanged. A missing description is taken from the first prose
 * line of the prompt. `hooks`, `mcpServers` and `permissionMode` are never written: they would run
 * code or widen permissions without consent. Throws when the name is not a safe file name.
 */
export const renderSubagent = (agent: SubagentComponent, format: SubagentFormat, options: RenderSubagentOptions = {}): RenderedSubagent => {
  const name = options.name ?? agent.name
  checkFileName(name)
  const notes: string[] = []
  const read: ReadSubagent = {
    name,
    frontmatter: agent.frontmatter,
    body: agent.body,
    format,
    description: readDescription(agent.frontmatter, agent.body, name, notes),
    tools: readTools(agent.frontmatter.tools, notes),
    model: readModel(agent.frontmatter.model, format, notes),
    notes,
  }
  const written = FORMAT_WRITERS[format](read)
  noteDroppedFields(read, new Set([...COMMON_FIELDS, ...(written.consumed ?? [])]))
  return {path: written.path, content: written.content, notes}
}

/** The agent as every format reads it: its name, frontmatter, body and the common fields already checked. */
interface ReadSubagent {
  name: string
  frontmatter: Record<string, unknown>
  body: string
  format: SubagentFormat
  description: string
  tools: string[] | undefined
  model: string | undefined
  /** where every writer adds its notes, in order */
  notes: string[]
}

/** One format's file: where it goes, its bytes, and the frontmatter fields it read beyond the common ones. */
interface WrittenSubagent {
  path: string
  content: string
  consumed?: readonly string[]
}

const COMMON_FIELDS = ['name', 'description', 'tools', 'model'] as const

const noteToolsDropped = ({tools, format, notes}: ReadSubagent): void => {
  if (tools !== undefined) notes.push(`"tools" dropped: the ${format} format has no tools field`)
}

/** Every frontmatter field no writer read is dropped, with its reason. */
const noteDroppedFields = ({frontmatter, format, notes}: ReadSubagent, consumed: ReadonlySet<string>): void => {
  for (const field of Object.keys(frontmatter)) {
    if (consumed.has(field)) continue
    notes.push(
      RISKY_FIELDS.has(field)
        ? `"${field}" dropped: it would run code or widen permissions without the consent loadout asks for`
        : `"${field}" dropped: the ${format} format has no such field`,
    )
  }
}

/** Claude Code's own fields beyond the common ones: disallowedTools as a comma list, the rest as written. */
const claudeExtraFields = (frontmatter: Record<string, unknown>, notes: string[]): Record<string, unknown> => {
  const extra: Record<string, unknown> = {}
  for (const field of CLAUDE_EXTRA_FIELDS) {
    const value = frontmatter[field]
    if (value === undefined || value === null) continue
    if (field === 'disallowedTools') {
      const list = readTools(value, notes, field)
      if (list) extra[field] = list.join(', ')
    } else if (typeof value === 'object' && !Array.isArray(value)) {
      notes.push(`"${field}" dropped: Claude Code expects text, a number or a list there`)
    } else {
      extra[field] = value
    }
  }
  return extra
}

const writeClaude = (read: ReadSubagent): WrittenSubagent => {
  const {name, description, tools, model, body} = read
  const extra = claudeExtraFields(read.frontmatter, read.notes)
  return {path: `${name}.md`, content: markdown(defined({name, description, tools: tools?.join(', '), model, ...extra}), body), consumed: CLAUDE_EXTRA_FIELDS}
}

const writeDeepAgents = ({name, description, tools, model, body, notes}: ReadSubagent): WrittenSubagent => {
  if (tools !== undefined)
    notes.push(
      `"tools" restriction (${tools.join(', ')}) dropped: Deep Agents Code file subagents cannot narrow tools and inherit all of the main agent's tools`,
    )
  return {path: `${name}/AGENTS.md`, content: markdown(defined({name, description, model}), body)}
}

/** cst's readonly: as written when it is a boolean, else true when every tool only reads. */
const cstReadonly = ({frontmatter, tools, notes}: ReadSubagent): boolean => {
  if (typeof frontmatter.readonly === 'boolean') return frontmatter.readonly
  if (frontmatter.readonly !== undefined) notes.push('"readonly" is not true or false: worked out from the tools instead')
  return tools !== undefined && tools.every((tool) => READ_ONLY_TOOLS.has(tool.toLowerCase()))
}

/** cst's max_steps: as written, else Claude's maxTurns. */
const cstMaxSteps = ({frontmatter, notes}: ReadSubagent): number | undefined => {
  const maxSteps = positiveInteger(frontmatter.max_steps)
  if (frontmatter.max_steps !== undefined && maxSteps === undefined) notes.push('"max_steps" dropped: not a positive whole number')
  if (maxSteps !== undefined || frontmatter.max_steps !== undefined || frontmatter.maxTurns === undefined) return maxSteps
  const fromTurns = positiveInteger(frontmatter.maxTurns)
  notes.push(fromTurns === undefined ? '"maxTurns" dropped: not a positive whole number' : '"maxTurns" written as "max_steps"')
  return fromTurns
}

const writeCst = (read: ReadSubagent): WrittenSubagent => {
  const {name, description, tools, model, body, notes} = read
  const readonly = cstReadonly(read)
  const maxSteps = cstMaxSteps(read)
  const cstTools = tools === undefined ? undefined : cstAgentTools(tools, notes)
  return {
    path: `${name}.md`,
    content: markdown(defined({name, description, tools: cstTools?.join(','), readonly, model, max_steps: maxSteps}), body),
    consumed: ['readonly', 'max_steps', 'maxTurns'],
  }
}

const writeCopilot = ({name, description, tools, body}: ReadSubagent): WrittenSubagent => ({
  path: `${name}.agent.md`,
  content: markdown(defined({name, description, tools}), body),
})

const writeOpencode = ({name, description, tools, model, body, notes}: ReadSubagent): WrittenSubagent => {
  const toolMap = tools === undefined ? undefined : opencodeTools(tools, notes)
  return {path: `${name}.md`, content: markdown(defined({description, mode: 'subagent', model, tools: toolMap}), body)}
}

const writeCursor = (read: ReadSubagent): WrittenSubagent => {
  noteToolsDropped(read)
  const {name, description, model, body} = read
  return {path: `${name}.md`, content: markdown(defined({name, description, model}), body)}
}

const writeGemini = ({name, description, tools, model, body, notes, frontmatter}: ReadSubagent): WrittenSubagent => {
  const slug = geminiName(name, notes)
  const maxTurns = positiveInteger(frontmatter.maxTurns)
  if (frontmatter.maxTurns !== undefined && maxTurns === undefined) notes.push('"maxTurns" dropped: not a positive whole number')
  const geminiToolList = tools === undefined ? undefined : geminiTools(tools, notes)
  return {
    path: `${slug}.md`,
    content: markdown(defined({name: slug, description, tools: geminiToolList, model, max_turns: maxTurns}), body),
    consumed: ['maxTurns'],
  }
}

const writeCodex = (read: ReadSubagent): WrittenSubagent => {
  noteToolsDropped(read)
  const {name, description, body} = read
  const content = [`name = ${tomlString(name)}`, `description = ${tomlString(description)}`, `developer_instructions = ${tomlMultilineString(body)}`, ''].join(
    '\n',
  )
  return {path: `${name}.toml`, content}
}

/** One writer per format: the compiler names a format added to SubagentFormat without one. */
const FORMAT_WRITERS: Record<SubagentFormat, (read: ReadSubagent) => WrittenSubagent> = {
  'claude-agent-md': writeClaude,
  'deepagents-agents-md': writeDeepAgents,
  'cst-agent-md': writeCst,
  'copilot-agent-md': writeCopilot,
  'opencode-agent-md': writeOpencode,
  'cursor-agent-md': writeCursor,
  'gemini-agent-md': writeGemini,
  'codex-agent-toml': writeCodex,
}

/** The fields with a value, in order. */
const defined = (fields: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
