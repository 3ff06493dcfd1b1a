import {Flags} from '@oclif/core'
import type {DisabledParts} from '../core/model/plugin.js'

/** `disable` and `enable`: the parts of a plugin to turn off or on, each flag repeatable. */
export const partFlags = {
  skill: Flags.string({description: 'a skill of the plugin, by name (repeatable)', multiple: true}),
  hook: Flags.string({description: 'the hooks of the plugin for one event, e.g. Stop (repeatable)', multiple: true}),
  mcp: Flags.string({description: 'an MCP server of the plugin, by name (repeatable)', multiple: true}),
  'agent-part': Flags.string({description: 'a subagent of the plugin, by name (repeatable)', multiple: true}),
  command: Flags.string({description: 'a slash command of the plugin, by name (repeatable)', multiple: true}),
}

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
