import {oclifCommand} from '../../ui/oclif-command.js'
import {agentsDelete} from '../../ui/shared-commands/agents-delete.js'

export default oclifCommand(agentsDelete, {
  summary: 'Delete a subagent made by hand from the chosen agents (installed ones: loadout uninstall)',
  examples: ['<%= config.bin %> agents delete code-reviewer --agent claude-code --dry-run', '<%= config.bin %> agents delete code-reviewer --scope user --yes'],
})
