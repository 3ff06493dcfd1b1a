import {SCOPES, resolveScope, type Scope} from '../../core/scope.js'
import {inventorySkills, type SkillsListResult} from '../../core/skills/list.js'
import {loadOwnership} from '../../core/state/records.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, scopeFlag} from '../../ui/flags.js'
import {renderSkillList} from '../../ui/render/skills.js'
import {targetsForRead} from '../../ui/select-targets.js'

export type {SkillsListResult} from '../../core/skills/list.js'

export default class SkillsList extends LoadoutCommand {
  static override summary = 'List every skill the selected agents would load, with shadowing, validity and owner'
  static override examples = ['<%= config.bin %> skills list', '<%= config.bin %> skills list --agent cst-agent --scope project --json']
  static override flags = {agent: agentFlag, scope: scopeFlag}

  async run(): Promise<SkillsListResult> {
    const {flags} = await this.parse(SkillsList)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
    const targets = await targetsForRead({agent: flags.agent, env, section: 'skills'})
    const {folders, skills} = inventorySkills({targets, env, context, scopes, ownership: loadOwnership(env, context.projectRoot)})
    const result = {agents: targets.map((t) => t.id), scopes, folders, skills}
    this.log(renderSkillList(result))
    return result
  }
}
