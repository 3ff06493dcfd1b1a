import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {subagentInfo, type SubagentInfo} from '../../core/ops/agents/info.js'
import {inventorySubagents} from '../../core/ops/agents/list.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderSubagentInfo} from '../render/subagents.js'
import {targetsForRead} from '../select-targets.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG},
  args: {name: 'name', description: 'subagent name', required: true},
} as const

/** `loadout agents info <name>`: one subagent as each agent sees it. */
export const agentsInfo = sharedCommand(spec, async ({flags, argv}, io): Promise<SubagentInfo> => {
  const {env} = io
  const context = resolveScope(flags.scope, env)
  const targets = await targetsForRead({agent: flags.agent, env, section: 'subagents'})
  const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
  const inventory = inventorySubagents({targets, env, context, scopes, ownership: loadOwnership(env, context.projectRoot)})
  const info = subagentInfo(argv[0]!, inventory)
  io.log(renderSubagentInfo(info))
  return info
})
