import {oclifCommand} from '../../ui/oclif-command.js'
import {mcpList} from '../../ui/shared-commands/mcp-list.js'

export default oclifCommand(mcpList, {
  summary: "List every MCP server each agent would start, read from the agent's own config files, with its owner",
  description:
    'The owner is the loadout install that wrote the server (a plugin, or mcp:<name>@local|registry), or "user". Values of variables and headers are never shown.',
  examples: ['<%= config.bin %> mcp list', '<%= config.bin %> mcp list --agent codex --scope user --json'],
})
