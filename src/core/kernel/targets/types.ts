import type {Scope} from '../env/scope.js'

export type Confidence = 'confirmed' | 'unconfirmed'

export interface BaseCandidate {
  env?: string
  join?: string
  path?: string
  platform?: NodeJS.Platform
}

export interface Location {
  scope: Scope
  /** `~/…` or `{base}/…` for user scope; relative to the project root for project scope */
  path: string
  key?: string
  /** MCP only: how the program reading this file spells a variable reference, when not as the section says */
  envReference?: string
  requiresTrust?: boolean
  /** the folder loadout writes to in its scope, when it is not the first one listed */
  write?: boolean
  confidence?: Confidence
  note?: string
}

interface Section<F extends string> {
  format: F
  confidence?: Confidence
  note?: string
  locations: Location[]
}

export type SkillFormat = 'agent-skills' | 'characteroid-yaml'
export type SkillDialect = 'spec' | 'cst-agent'

export interface SkillsSection extends Section<SkillFormat> {
  dialect?: SkillDialect
  /** which scope wins when two skills share a name; the first listed wins */
  precedence: [Scope, Scope]
  /** a skill of one name in two of its folders of a scope: a conflict it warns of, or one of them loaded */
  sameNameTwice?: 'conflict' | 'loads-one'
}

export type SubagentFormat =
  | 'claude-agent-md'
  | 'codex-agent-toml'
  | 'copilot-agent-md'
  | 'cst-agent-md'
  | 'cursor-agent-md'
  | 'deepagents-agents-md'
  | 'gemini-agent-md'
  | 'opencode-agent-md'

/** How a slash command is written: the Markdown copied, Gemini CLI's TOML, or a Copilot prompt file. */
export type CommandFormat = 'markdown' | 'gemini-toml' | 'copilot-prompt'

export interface McpSection extends Section<'codex-toml' | 'json-key'> {
  key: string
  shape: 'characteroid' | 'codex' | 'cst-agent' | 'gemini' | 'mcp-servers' | 'opencode' | 'vscode'
  /** how the agent spells a reference to an environment variable in a server entry, `VAR` standing for the name (default `${VAR}`) */
  envReference?: string
  /** the variable the agent expands to the project root in this section's commands */
  projectDirVariable?: string
}

export interface HooksSection extends Section<'json-key'> {
  key: string
  shape: 'claude' | 'claude-commands' | 'codex' | 'cursor' | 'gemini'
  /** the variable the agent expands to the project root in hook commands (Claude Code: `${CLAUDE_PROJECT_DIR}`) */
  projectDirVariable?: string
}

/** One vendor CLI, at one version, that listed what loadout wrote (test/e2e/vendor-cli.test.ts). */
export interface ConfirmedBy {
  cli: string
  version: string
  checks: string[]
}

/** How a plugin reaches the agent: as its own plugin (native) or as loose parts, and who confirmed it. */
export interface PluginForm {
  form: 'native' | 'loose'
  /** native: how loadout registers the plugin */
  format?: 'claude-marketplace'
  /** native: the install flag that asks for loose parts instead (native is the default) */
  flag?: string
  note?: string
  /** native: the settings file edited, per scope */
  locations?: Location[]
  confirmedBy: string
}

/** The budget an agent gives the descriptions it loads at start-up, as it documents it (`loadout budget`). */
export interface StartupBudget {
  /** characters of names and descriptions listed before some are dropped; null: the agent documents no limit */
  chars: number | null
  /** an environment variable the agent reads to set it, in characters */
  env?: string
  covers: Array<'skills' | 'commands' | 'subagents'>
  note: string
  /** where the agent documents it */
  source: string | null
}

export interface AgentTarget {
  id: string
  name: string
  description?: string
  confidence: Confidence
  installs?: boolean
  notes?: string[]
  /** why the agent has no place for a kind of part, said when an install skips one */
  lacks?: Partial<Record<SectionName, string>>
  confirmedBy?: ConfirmedBy[]
  pluginForm?: PluginForm
  startupBudget: StartupBudget
  bases: Record<string, BaseCandidate[]>
  detect: string[]
  skills?: SkillsSection
  subagents?: Section<SubagentFormat>
  commands?: Section<CommandFormat>
  mcp?: McpSection
  hooks?: HooksSection
  plugins?: Section<'cst-agent-plugin'>
}

export type SectionName = 'commands' | 'hooks' | 'mcp' | 'plugins' | 'skills' | 'subagents'
export const SECTION_NAMES: readonly SectionName[] = ['skills', 'subagents', 'commands', 'mcp', 'hooks', 'plugins']
