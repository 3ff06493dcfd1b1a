/**
 * The descriptions an agent lists from the plugins it loads as its own (install form `native`): they
 * are not in its loose folders but in loadout's installed copy, which the agent reads through the
 * marketplace loadout registered. Named as the agent shows them, `<plugin>:<part>`.
 */
import {existsSync, readFileSync, statSync} from 'node:fs'
import type {Environment} from '../../kernel/env/environment.js'
import type {Scope} from '../../kernel/env/scope.js'
import {inspectPlugin} from '../../kernel/plugin/read.js'
import {readSkillDir} from '../../kernel/skills/read.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {recordedForm} from '../install/form.js'
import {readParts, withoutParts} from '../install/parts.js'
import {describeCommand} from './commands.js'

export interface NativePart {
  kind: 'skill' | 'subagent' | 'command'
  name: string
  scope: Scope
  path: string
  owner: string
  description?: string
}

const MAX_COMMAND_BYTES = 1024 * 1024

const commandDescription = (file: string): string | undefined => {
  try {
    return statSync(file).size > MAX_COMMAND_BYTES ? undefined : describeCommand(readFileSync(file, 'utf8'), 'markdown')
  } catch {
    return undefined
  }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** Every skill, subagent and command of the plugins `target` loads as its own, as offered (disabled parts left out). */
export const nativeParts = (records: readonly InstallRecord[], target: AgentTarget, env: Environment): NativePart[] =>
  records
    .filter((r) => r.target === target.id && r.enabled && recordedForm(r) === 'native' && r.pluginRoot && existsSync(r.pluginRoot))
    .flatMap((r) => {
      let model
      try {
        model = withoutParts(inspectPlugin(r.pluginRoot!, {home: env.home}).model, readParts(r.disabledParts))
      } catch {
        return []
      }
      const at = (kind: NativePart['kind'], name: string, path: string, description: string | undefined): NativePart => ({
        kind,
        name: `${model.name}:${name}`,
        scope: r.scope,
        path,
        owner: r.plugin,
        ...(description === undefined ? {} : {description}),
      })
      return [
        ...model.skills.map((s) => at('skill', s.name, s.dir, readSkillDir(s.dir).description)),
        ...model.commands.map((c) => at('command', c.name, c.file, commandDescription(c.file))),
        ...model.subagents.map((a) => at('subagent', a.name, a.file, text(a.frontmatter.description))),
      ]
    })
