import {SCOPES, resolveScope} from '../core/kernel/env/scope.js'
import {budgetReport, type BudgetReport} from '../core/ops/budget/budget.js'
import {loadOwnership} from '../core/kernel/state/records.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, scopeFlag} from '../ui/flags.js'
import {renderBudget} from '../ui/render/budget.js'
import {targetsForRead} from '../ui/select-targets.js'

export default class Budget extends LoadoutCommand {
  static override summary = "Every description each agent loads at start-up, its token estimate, and the total against the agent's budget"
  static override description =
    'Skills, subagents and slash commands, installed or hand-made. Tokens are estimated at four characters each (name and description), the estimate Codex itself uses; the budget is what the agent documents (registry/agents: startupBudget), and the items past it, in the order the agent reads its folders, are the ones it would drop.'
  static override examples = ['<%= config.bin %> budget', '<%= config.bin %> budget --agent claude-code --scope user --json']
  static override flags = {agent: agentFlag, scope: scopeFlag}

  async run(): Promise<BudgetReport> {
    const {flags} = await this.parse(Budget)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    // with no --scope: how each agent starts outside a project, and in this one when there is one
    const scopes = flags.scope !== undefined ? [context.scope] : context.scope === 'project' ? [...SCOPES] : [context.scope]
    const targets = await targetsForRead({agent: flags.agent, env, section: 'skills'})
    const report = await budgetReport({targets, env, context, scopes, ownership: loadOwnership(env, context.projectRoot)})
    this.log(renderBudget(report))
    return report
  }
}
