import {oclifCommand} from '../ui/oclif-command.js'
import {budget} from '../ui/shared-commands/budget.js'

export default oclifCommand(budget, {
  summary: "Every description each agent loads at start-up, its token estimate, and the total against the agent's budget",
  description:
    'Skills, subagents and slash commands, installed or hand-made. Tokens are estimated at four characters each (name and description), the estimate Codex itself uses; the budget is what the agent documents (registry/agents: startupBudget), and the items past it, in the order the agent reads its folders, are the ones it would drop.',
  examples: ['<%= config.bin %> budget', '<%= config.bin %> budget --agent claude-code --scope user --json'],
})
