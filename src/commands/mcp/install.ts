import {oclifCommand} from '../../ui/oclif-command.js'
import {mcpInstall} from '../../ui/shared-commands/mcp-install.js'

export default oclifCommand(mcpInstall, {
  summary: 'Install a server from the MCP Registry into each chosen agent, pinned to an exact version',
  description:
    'The registry is $LOADOUT_MCP_REGISTRY (default https://registry.modelcontextprotocol.io). Secrets are written as references to environment variables you set.',
  examples: [
    '<%= config.bin %> mcp install io.github.acme/weather --agent claude-code,codex,cursor',
    '<%= config.bin %> mcp install io.github.acme/weather@1.4.2 --name weather --scope project',
    '<%= config.bin %> mcp install io.github.acme/weather --remote --agent cursor',
  ],
})
