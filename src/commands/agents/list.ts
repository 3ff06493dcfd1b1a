import {oclifCommand} from '../../ui/oclif-command.js'
import {agentsList} from '../../ui/shared-commands/agents-list.js'

export default oclifCommand(agentsList, {
  summary: 'List every subagent the selected agents would load, with shadowing, validity and owner',
  examples: ['<%= config.bin %> agents list', '<%= config.bin %> agents list --agent cst-agent --scope project --json'],
})
