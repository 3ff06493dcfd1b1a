import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {listSkills, type SkillsListResult} from '../../core/ops/skills/list.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderSkillList} from '../render/skills.js'
import {targetsForRead} from '../select-targets.js'
import {sharedCommand} from './types.js'

export const skillsList = sharedCommand({flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG}}, async ({flags}, io): Promise<SkillsListResult> => {
  const context = resolveScope(flags.scope, io.env)
  const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
  const targets = await targetsForRead({agent: flags.agent, env: io.env, section: 'skills'})
  const {folders, skills} = await listSkills({targets, env: io.env, context, scopes, ownership: loadOwnership(io.env, context.projectRoot)})
  const result = {agents: targets.map((t) => t.id), scopes, folders, skills}
  if (!io.json) io.log(renderSkillList(result))
  return result
})
