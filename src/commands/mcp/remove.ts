import {oclifCommand} from '../../ui/oclif-command.js'
import {mcpRemove} from '../../ui/shared-commands/mcp-remove.js'

export default oclifCommand(mcpRemove, {
  summary: 'Remove an MCP server loadout added, leaving each config file as it was before',
  examples: ['<%= config.bin %> mcp remove weather --yes', '<%= config.bin %> mcp remove weather --agent codex --dry-run'],
})
