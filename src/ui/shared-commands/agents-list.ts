import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {inventorySubagents, type SubagentsListResult} from '../../core/ops/agents/list.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderSubagentList} from '../render/subagents.js'
import {targetsForRead} from '../select-targets.js'
import {sharedCommand} from './types.js'

export const agentsList = sharedCommand({flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG}}, async ({flags}, io): Promise<SubagentsListResult> => {
  const context = resolveScope(flags.scope, io.env)
  const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
  const targets = await targetsForRead({agent: flags.agent, env: io.env, section: 'subagents'})
  const {folders, subagents, skipped} = inventorySubagents({targets, env: io.env, context, scopes, ownership: loadOwnership(io.env, context.projectRoot)})
  const result = {agents: targets.map((t) => t.id), scopes, folders, subagents, skipped}
  if (!io.json) io.log(renderSubagentList(result))
  return result
})
