import {SCOPES, resolveScope} from '../../core/kernel/env/scope.js'
import {budgetReport, type BudgetReport} from '../../core/ops/budget/budget.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderBudget} from '../render/budget.js'
import {targetsForRead} from '../select-targets.js'
import {sharedCommand} from './types.js'

const spec = {flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG}} as const

export const budget = sharedCommand(
  spec,
  async ({flags}, io): Promise<BudgetReport> => {
    const {env} = io
    const context = resolveScope(flags.scope, env)
    // with no --scope: how each agent starts outside a project, and in this one when there is one
    const scopes = flags.scope !== undefined ? [context.scope] : context.scope === 'project' ? [...SCOPES] : [context.scope]
    const targets = await targetsForRead({agent: flags.agent, env, section: 'skills'})
    const report = await budgetReport({targets, env, context, scopes, ownership: loadOwnership(env, context.projectRoot)})
    io.log(renderBudget(report))
    return report
  },
  // what it reads reaches the fetchers' code: any request stays judged by policy, as on oclif's path
  {requests: true},
)
