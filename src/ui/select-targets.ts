import type {Environment} from '../core/kernel/env/environment.js'
import {usageError} from '../core/model/errors.js'
import {loadTargets, pickTargets} from '../core/kernel/targets/registry.js'
import {agentIds} from './agent-ids.js'
import {detectTarget} from '../core/kernel/targets/resolve.js'
import type {AgentTarget, SectionName} from '../core/kernel/targets/types.js'
import {chooseMany} from './prompt.js'

export interface TargetChoice {
  agent?: string
  yes?: boolean
  env: Environment
  /** only targets that have this section */
  section: SectionName
}

const capable = (targets: readonly AgentTarget[], section: SectionName) => targets.filter((t) => t.installs !== false && t[section] !== undefined)

/**
 * For commands that write: `--agent` when given; else the detected agents, chosen in a checkbox on a
 * terminal (all preselected) or taken whole with --yes or off a terminal; none detected is an error.
 */
export const targetsForWrite = async ({agent, yes, env, section}: TargetChoice): Promise<AgentTarget[]> => {
  const all = await loadTargets()
  const ids = agentIds(agent)
  if (ids) return pickTargets(ids, all)
  const detected = capable(all, section).filter((t) => detectTarget(t, env))
  if (detected.length === 0) {
    throw usageError('no-agent-detected', 'no agent was detected on this machine, so loadout cannot tell where to write', {
      suggestions: [
        `name the agents with --agent, e.g. --agent ${capable(all, section)
          .slice(0, 2)
          .map((t) => t.id)
          .join(',')}`,
        'see them all: loadout targets',
      ],
    })
  }
  if (yes || !env.interactive || detected.length === 1) return detected
  return chooseMany(
    'Which agents?',
    detected.map((t) => ({name: `${t.name} (${t.id})`, value: t, checked: true})),
  )
}

/** For commands that read: `--agent` when given; else the detected agents; else every capable agent. */
export const targetsForRead = async ({agent, env, section}: Omit<TargetChoice, 'yes'>): Promise<AgentTarget[]> => {
  const all = await loadTargets()
  const ids = agentIds(agent)
  if (ids) return pickTargets(ids, all)
  const withSection = capable(all, section)
  const detected = withSection.filter((t) => detectTarget(t, env))
  return detected.length > 0 ? detected : withSection
}
