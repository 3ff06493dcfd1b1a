import {Args} from '@oclif/core'
import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {subagentInfo, type SubagentInfo} from '../../core/ops/agents/info.js'
import {inventorySubagents} from '../../core/ops/agents/list.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, scopeFlag} from '../../ui/flags.js'
import {renderSubagentInfo} from '../../ui/render/subagents.js'
import {targetsForRead} from '../../ui/select-targets.js'

export default class AgentsInfo extends LoadoutCommand {
  static override summary = 'Show a subagent: frontmatter, prompt size, where it lives for each agent, problems'
  static override examples = ['<%= config.bin %> agents info code-reviewer', '<%= config.bin %> agents info code-reviewer --agent cst-agent --json']
  static override args = {name: Args.string({required: true, description: 'subagent name'})}
  static override flags = {agent: agentFlag, scope: scopeFlag}

  async run(): Promise<SubagentInfo> {
    const {args, flags} = await this.parse(AgentsInfo)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForRead({agent: flags.agent, env, section: 'subagents'})
    const scopes = flags.scope === undefined ? [...SCOPES] : [context.scope]
    const inventory = inventorySubagents({targets, env, context, scopes, ownership: loadOwnership(env, context.projectRoot)})
    const info = subagentInfo(args.name, inventory)
    this.log(renderSubagentInfo(info))
    return info
  }
}
