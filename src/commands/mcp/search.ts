import {oclifCommand} from '../../ui/oclif-command.js'
import {mcpSearch} from '../../ui/shared-commands/mcp-search.js'

export default oclifCommand(mcpSearch, {
  summary: 'Search the MCP Registry for servers by name, title or description',
  description:
    'The registry is $LOADOUT_MCP_REGISTRY (default https://registry.modelcontextprotocol.io); its pages are followed until enough servers are found.',
  examples: ['<%= config.bin %> mcp search weather', '<%= config.bin %> mcp search "issue tracker" --limit 5 --json'],
})
