import {usageError} from '../core/model/errors.js'
import {splitList} from '../core/kernel/targets/registry.js'

/**
 * The agent ids `--agent` names, or undefined when it is not given. Given but naming none (`--agent=`,
 * `--agent ,`) is a usage error: taken as "not given" it would mean every agent, or nothing at all.
 */
export const agentIds = (agent: string | undefined): string[] | undefined => {
  if (agent === undefined) return undefined
  const ids = splitList(agent)
  if (ids.length === 0)
    throw usageError('empty-agent-flag', `--agent names no agent (${JSON.stringify(agent)})`, {
      suggestions: ['name one or more, comma-separated: --agent claude-code,cursor', 'see them all: loadout targets'],
    })
  return ids
}
