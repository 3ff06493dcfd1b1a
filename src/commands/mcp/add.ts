import {oclifCommand} from '../../ui/oclif-command.js'
import {mcpAdd} from '../../ui/shared-commands/mcp-add.js'

export default oclifCommand(mcpAdd, {
  summary: 'Add one MCP server (a command to run, or an https URL) to each chosen agent, recorded like a plugin',
  description: 'Everything after -- is the command and its arguments. `--env NAME` without a value writes a reference the agent expands, never a value.',
  examples: [
    '<%= config.bin %> mcp add files --agent claude-code,codex --env ROOT=/srv -- npx -y @modelcontextprotocol/server-filesystem@2025.8.21 /srv',
    '<%= config.bin %> mcp add github --env GITHUB_TOKEN --agent cursor -- docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server:v0.13.0',
    "<%= config.bin %> mcp add docs --url https://mcp.example.com/mcp --header 'Authorization=Bearer ${DOCS_TOKEN}'",
  ],
})
