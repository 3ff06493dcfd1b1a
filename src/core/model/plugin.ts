import type {Problem} from './problems.js'

/** One MCP server as a plugin declares it (Claude `.mcp.json` shape, the common denominator). */
export interface McpServerConfig {
  type?: 'stdio' | 'sse' | 'http'
  command?: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
  url?: string
  headers?: Record<string, string>
  /** cst-agent extras */
  disabled?: boolean
  autoApprove?: boolean | string[]
  /** Codex-native fields, kept for Codex and translated for the others where they can be */
  bearerTokenEnvVar?: string
  envHttpHeaders?: Record<string, string>
  envVars?: string[]
  toolTimeoutSec?: number
  startupTimeoutSec?: number
  /** Claude Code's OAuth settings for a remote server */
  oauth?: Record<string, unknown>
  /** fields that narrow which tools the server offers, or how it signs in (`allowedTools`, `disabledTools`, `auth`) */
  narrowing?: string[]
}

/** One hook handler: a `command` run by the shell, or (Claude Code only) a `prompt` given to a model. */
export interface HookCommand {
  type: 'command' | 'prompt'
  command?: string
  prompt?: string
  timeout?: number
  /** run without waiting for it (Claude Code) */
  async?: boolean
  /** the shell that runs the command */
  shell?: string
}

export interface HookMatcher {
  matcher?: string
  hooks: HookCommand[]
}

/** Claude-style hooks: event name -> matchers. */
export type HookEvents = Record<string, HookMatcher[]>

export interface SkillComponent {
  kind: 'skill'
  name: string
  /** absolute path of the skill folder inside the plugin root */
  dir: string
}

export interface SubagentComponent {
  kind: 'subagent'
  name: string
  /** absolute path of the source .md */
  file: string
  frontmatter: Record<string, unknown>
  /** the prompt (Markdown body) */
  body: string
}

export interface McpComponent {
  kind: 'mcp'
  name: string
  config: McpServerConfig
  /** the key to store it under, when not `<plugin>-<server>` (a standalone server added with `loadout mcp`) */
  key?: string
}

export interface HooksComponent {
  kind: 'hooks'
  name: string
  events: HookEvents
}

export interface CommandComponent {
  kind: 'command'
  name: string
  file: string
}

/** A cst-agent exec tool: runs a command on the user's machine. */
export interface ToolComponent {
  kind: 'tool'
  name: string
  command: string | string[]
  parameters?: Record<string, unknown>
  perm: 'read' | 'write' | 'net' | 'shell'
  timeout: number
  description?: string
}

export type Component = SkillComponent | SubagentComponent | McpComponent | HooksComponent | CommandComponent | ToolComponent
export type ComponentKind = Component['kind']

/** A manifest format's id (see src/core/manifest-formats), or `none` for a plugin found by convention only */
export type ManifestKind = string

/** A plugin as read from its folder: its manifests, every component, and the problems found. */
export interface PluginModel {
  name: string
  version?: string
  description?: string
  author?: string
  keywords?: string[]
  /** absolute path of the plugin root (a checked-out tree or a local folder) */
  root: string
  manifests: ManifestKind[]
  skills: SkillComponent[]
  subagents: SubagentComponent[]
  mcpServers: McpComponent[]
  hooks: HooksComponent[]
  commands: CommandComponent[]
  tools: ToolComponent[]
  /** where the cst-agent manifest is, when the plugin can be installed whole into cst-agent */
  cstAgentManifest?: string
  problems: Problem[]
}

/**
 * Parts of an installed plugin the user turned off (`loadout disable <plugin> --skill x`): skills,
 * subagents, commands and MCP servers by name, hooks by event. Kept in the install records and, in a
 * project, in loadout.json, so that an update or a teammate's install leaves them off too.
 */
export interface DisabledParts {
  skills?: string[]
  subagents?: string[]
  commands?: string[]
  mcp?: string[]
  hooks?: string[]
}

export const PART_KINDS = ['skills', 'subagents', 'commands', 'mcp', 'hooks'] as const
export type PartKind = (typeof PART_KINDS)[number]
