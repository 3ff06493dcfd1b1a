import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {skillInfo, type SkillInfo} from '../../core/ops/skills/info.js'
import {inventorySkills} from '../../core/ops/skills/list.js'
import {budgetReport, skillShares, type SkillShare} from '../../core/ops/budget/budget.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderSkillInfo} from '../render/skills.js'
import {targetsForRead} from '../select-targets.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG},
  args: {name: 'name', description: 'skill name', required: true},
} as const

/** `loadout skills info <name>`: one skill as each agent sees it, with its share of their start-up descriptions. */
export const skillsInfo = sharedCommand(spec, async ({flags, argv}, io): Promise<SkillInfo & {budget: SkillShare[]}> => {
  const {env} = io
  const name = argv[0]!
  const context = resolveScope(flags.scope, env)
  const targets = await targetsForRead({agent: flags.agent, env, section: 'skills'})
  const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
  const ownership = loadOwnership(env, context.projectRoot)
  const inventory = await inventorySkills({targets, env, context, scopes, ownership})
  const info = skillInfo(name, inventory)
  // its share of each agent's start-up descriptions, as the agent starts in this scope
  const budget = skillShares(await budgetReport({targets, env, context, scopes: [context.scope], ownership}), name)
  io.log(renderSkillInfo(info, budget))
  return {...info, budget}
})
