import {Args} from '@oclif/core'
import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {skillInfo, type SkillInfo} from '../../core/ops/skills/info.js'
import {inventorySkills} from '../../core/ops/skills/list.js'
import {budgetReport, skillShares, type SkillShare} from '../../core/ops/budget/budget.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, scopeFlag} from '../../ui/flags.js'
import {renderSkillInfo} from '../../ui/render/skills.js'
import {targetsForRead} from '../../ui/select-targets.js'

export default class SkillsInfo extends LoadoutCommand {
  static override summary = 'Show a skill: frontmatter, size, files, where it lives for each agent, problems'
  static override examples = ['<%= config.bin %> skills info pdf-tools', '<%= config.bin %> skills info pdf-tools --agent codex --json']
  static override args = {name: Args.string({required: true, description: 'skill name'})}
  static override flags = {agent: agentFlag, scope: scopeFlag}

  async run(): Promise<SkillInfo & {budget: SkillShare[]}> {
    const {args, flags} = await this.parse(SkillsInfo)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForRead({agent: flags.agent, env, section: 'skills'})
    const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
    const ownership = loadOwnership(env, context.projectRoot)
    const inventory = await inventorySkills({targets, env, context, scopes, ownership})
    const info = skillInfo(args.name, inventory)
    // its share of each agent's start-up descriptions, as the agent starts in this scope
    const budget = skillShares(await budgetReport({targets, env, context, scopes: [context.scope], ownership}), args.name)
    this.log(renderSkillInfo(info, budget))
    return {...info, budget}
  }
}
