/**
 * Flags and arguments declared once, in a form neither oclif nor node:util depends on: the oclif
 * commands turn a spec into oclif flags (oclif-flags.ts), and the fast path of the read-only
 * commands (fast/parse.ts) into parseArgs options. This file imports nothing on purpose.
 */
export interface FlagSpec {
  type: 'string' | 'boolean'
  char?: string
  description: string
  /** the only values a string flag takes */
  options?: readonly string[]
  helpValue?: string
}

export interface ArgsSpec {
  name: string
  description: string
  /** takes any number of words (oclif's `strict = false`) */
  variadic: true
}

export interface CommandSpec {
  flags: Readonly<Record<string, FlagSpec>>
  args?: ArgsSpec
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
