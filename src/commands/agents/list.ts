import type {SubagentsListResult} from '../../core/ops/agents/list.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {oclifFlags} from '../../ui/oclif-flags.js'
import {agentsList} from '../../ui/shared-commands/agents-list.js'

export default class AgentsList extends LoadoutCommand {
  static override summary = 'List every subagent the selected agents would load, with shadowing, validity and owner'
  static override examples = ['<%= config.bin %> agents list', '<%= config.bin %> agents list --agent cst-agent --scope project --json']
  static override flags = oclifFlags(agentsList.spec.flags)

  async run(): Promise<SubagentsListResult> {
    const {flags} = await this.parse(AgentsList)
    return agentsList.run({flags, argv: []}, this.io())
  }
}
