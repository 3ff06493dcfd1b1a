import type {DisabledParts} from '../core/model/plugin.js'
import type {FlagSpec} from './command-spec.js'

const partFlag = (description: string) => ({type: 'string', description, multiple: true}) as const satisfies FlagSpec

/** `disable` and `enable`: the parts of a plugin to turn off or on, each flag repeatable. */
export const PART_FLAGS = {
  skill: partFlag('a skill of the plugin, by name (repeatable)'),
  hook: partFlag('the hooks of the plugin for one event, e.g. Stop (repeatable)'),
  mcp: partFlag('an MCP server of the plugin, by name (repeatable)'),
  'agent-part': partFlag('a subagent of the plugin, by name (repeatable)'),
  command: partFlag('a slash command of the plugin, by name (repeatable)'),
} as const

/** The parts the flags name, or undefined when none is named (the whole plugin). */
export const partsFrom = (flags: {
  skill?: string[]
  hook?: string[]
  mcp?: string[]
  'agent-part'?: string[]
  command?: string[]
}): DisabledParts | undefined => {
  const parts: DisabledParts = {
    ...(flags.skill ? {skills: flags.skill} : {}),
    ...(flags.hook ? {hooks: flags.hook} : {}),
    ...(flags.mcp ? {mcp: flags.mcp} : {}),
    ...(flags['agent-part'] ? {subagents: flags['agent-part']} : {}),
    ...(flags.command ? {commands: flags.command} : {}),
  }
  return Object.keys(parts).length > 0 ? parts : undefined
}
