import {oclifCommand} from '../../ui/oclif-command.js'
import {agentsInfo} from '../../ui/shared-commands/agents-info.js'

export default oclifCommand(agentsInfo, {
  summary: 'Show a subagent: frontmatter, prompt size, where it lives for each agent, problems',
  examples: ['<%= config.bin %> agents info code-reviewer', '<%= config.bin %> agents info code-reviewer --agent cst-agent --json'],
})
