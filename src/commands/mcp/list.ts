import {listServers, type McpListing} from '../../core/ops/mcp/list.js'
import {resolveScope, SCOPES} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, scopeFlag} from '../../ui/flags.js'
import {renderMcpList} from '../../ui/render/mcp.js'
import {targetsForRead} from '../../ui/select-targets.js'

export default class McpList extends LoadoutCommand {
  static override summary = "List every MCP server each agent would start, read from the agent's own config files, with its owner"
  static override description =
    'The owner is the loadout install that wrote the server (a plugin, or mcp:<name>@local|registry), or "user". Values of variables and headers are never shown.'
  static override examples = ['<%= config.bin %> mcp list', '<%= config.bin %> mcp list --agent codex --scope user --json']
  static override flags = {agent: agentFlag, scope: scopeFlag}

  async run(): Promise<McpListing> {
    const {flags} = await this.parse(McpList)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForRead({agent: flags.agent, env, section: 'mcp'})
    const listing = listServers(env, context, targets, flags.scope ? [context.scope] : SCOPES)
    this.log(renderMcpList(listing))
    return listing
  }
}
