import type {AgentBudget, BudgetReport} from '../../core/ops/budget/budget.js'
import {bold, dim, green, red, yellow} from '../style.js'
import {safeText as t} from '../safe-text.js'
import {renderTable} from '../table.js'

const total = (a: AgentBudget): string =>
  a.budget === null ? `${a.tokens} tokens, no documented budget` : `${a.budgetedTokens} of ${a.budget} tokens${a.budgetFrom ? ` (${a.budgetFrom})` : ''}`

export const renderBudget = (report: BudgetReport): string => {
  if (report.agents.length === 0) return 'no agent to report'
  return report.agents
    .map((a) => {
      const head = `${bold(a.agent)} ${dim(a.scope)}: ${a.over ? red(total(a)) : green(total(a))}`
      const source = dim(a.budgetSource ? `  ${a.budgetNote} (${a.budgetSource})` : `  ${a.budgetNote}`)
      const dropped = a.items.filter((i) => i.dropped)
      const warn =
        dropped.length > 0 ? [yellow(`  over budget: ${dropped.length} description(s) would be dropped: ${dropped.map((i) => t(i.name)).join(', ')}`)] : []
      const rows = a.items.map((i) => [
        i.kind,
        t(i.name),
        i.scope,
        t(i.owner),
        String(i.tokens),
        i.dropped ? red('dropped') : i.counted ? 'listed' : dim('not budgeted'),
      ])
      const table = rows.length > 0 ? renderTable(['KIND', 'NAME', 'SCOPE', 'OWNER', 'TOKENS', 'STATE'], rows) : dim('no descriptions')
      return [head, source, ...warn, table].join('\n')
    })
    .join('\n\n')
}

/** What `install` says after writing, for each agent it left over its budget. */
export const renderOverBudget = (over: readonly AgentBudget[]): string[] =>
  over.map(
    (a) =>
      `warning: ${a.agent} (${a.scope}) now lists ${a.budgetedTokens} tokens of descriptions at start-up, over its budget of ${a.budget}: ${a.items.filter((i) => i.dropped).length} would be dropped (see loadout budget --agent ${a.agent})`,
  )
