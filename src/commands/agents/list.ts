import {SCOPES, resolveScope} from '../../core/scope.js'
import {loadOwnership} from '../../core/state/records.js'
import {inventorySubagents, type SubagentsListResult} from '../../core/subagents/list.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, scopeFlag} from '../../ui/flags.js'
import {renderSubagentList} from '../../ui/render/subagents.js'
import {targetsForRead} from '../../ui/select-targets.js'

export default class AgentsList extends LoadoutCommand {
  static override summary = 'List every subagent the selected agents would load, with shadowing, validity and owner'
  static override examples = ['<%= config.bin %> agents list', '<%= config.bin %> agents list --agent cst-agent --scope project --json']
  static override flags = {agent: agentFlag, scope: scopeFlag}

  async run(): Promise<SubagentsListResult> {
    const {flags} = await this.parse(AgentsList)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
    const targets = await targetsForRead({agent: flags.agent, env, section: 'subagents'})
    const {folders, subagents, skipped} = inventorySubagents({targets, env, context, scopes, ownership: loadOwnership(env, context.projectRoot)})
    const result = {agents: targets.map((t) => t.id), scopes, folders, subagents, skipped}
    this.log(renderSubagentList(result))
    return result
  }
}
