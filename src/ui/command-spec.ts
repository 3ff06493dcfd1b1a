/**
 * Flags and arguments declared once, in a form neither oclif nor node:util depends on: the oclif
 * commands turn a spec into oclif flags (oclif-flags.ts), and the fast path of the read-only
 * commands (fast/parse.ts) into parseArgs options. This file imports nothing on purpose.
 */
export interface FlagSpec {
  type: 'string' | 'boolean' | 'integer'
  char?: string
  description: string
  /** the only values a string flag takes */
  options?: readonly string[]
  helpValue?: string
  /** a string flag that may be given several times (oclif's `multiple`): greedy, taking the words after it, unless `nonGreedy` */
  multiple?: true
  /** with `multiple`: one value per flag (`--env A --env B`), as oclif's `multipleNonGreedy` */
  nonGreedy?: true
  /** the value when the flag is not given */
  default?: string | boolean | number
  /** a boolean flag that also takes `--no-<name>` */
  allowNo?: true
  /** bounds of an integer flag */
  min?: number
  max?: number
  /** flags that may not be given with this one */
  exclusive?: readonly string[]
}

export interface ArgsSpec {
  name: string
  description: string
  /** takes any number of words (oclif's `strict = false`); without it, exactly one */
  variadic?: true
  /** an argument that must be given (for a variadic one: at least one word) */
  required?: true
}

export interface CommandSpec {
  flags: Readonly<Record<string, FlagSpec>>
  args?: ArgsSpec
  /** the words after `--` are the command's own (`mcp add <name> -- <command...>`), kept verbatim in `passthrough` */
  passthrough?: true
}

export const AGENT_FLAG: FlagSpec = {
  type: 'string',
  char: 'a',
  description: 'comma-separated agent ids (see `loadout targets`); default: the agents detected on this machine',
  helpValue: 'a,b',
}

export const SCOPE_FLAG: FlagSpec = {
  type: 'string',
  char: 's',
  description: 'user or project; default: project inside a git work tree, else user',
  options: ['user', 'project'],
}

export const YES_FLAG = {type: 'boolean', char: 'y', description: 'answer yes to every question (needed when not on a terminal)'} as const satisfies FlagSpec

export const DRY_RUN_FLAG = {type: 'boolean', description: 'show what would change without changing anything'} as const satisfies FlagSpec

export const OFFLINE_FLAG = {type: 'boolean', description: 'use only what is cached (also LOADOUT_OFFLINE=1)'} as const satisfies FlagSpec

export const ALLOW_HIDDEN_TEXT_FLAG = {
  type: 'boolean',
  description: 'install even when text the agents read hides characters (Unicode tags, bidi controls, zero-width)',
} as const satisfies FlagSpec

export const isOffline = (flag: boolean | undefined): boolean => Boolean(flag) || process.env.LOADOUT_OFFLINE === '1'

/** The flags of every command that writes into the agents: which agents, which scope, ask nothing, change nothing. */
export const WRITER_FLAGS = {agent: AGENT_FLAG, scope: SCOPE_FLAG, yes: YES_FLAG, 'dry-run': DRY_RUN_FLAG} as const
