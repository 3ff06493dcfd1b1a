import {Args, Flags} from '@oclif/core'
import {searchRegistry, type RegistrySearch} from '../../core/kernel/mcp/registry.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {withProgress} from '../../ui/progress.js'
import {renderMcpSearch} from '../../ui/render/mcp.js'

export default class McpSearch extends LoadoutCommand {
  static override summary = 'Search the MCP Registry for servers by name, title or description'
  static override description =
    'The registry is $LOADOUT_MCP_REGISTRY (default https://registry.modelcontextprotocol.io); its pages are followed until enough servers are found.'
  static override examples = ['<%= config.bin %> mcp search weather', '<%= config.bin %> mcp search "issue tracker" --limit 5 --json']
  static override strict = false
  static override args = {query: Args.string({required: true, description: 'words that must all appear in the name, title or description'})}
  static override flags = {limit: Flags.integer({description: 'at most this many servers', default: 50, min: 1, max: 500})}

  async run(): Promise<RegistrySearch> {
    const {argv, flags} = await this.parse(McpSearch)
    const env = this.environment()
    const query = (argv as string[]).join(' ')
    const result = await withProgress(!this.jsonEnabled(), () => searchRegistry(query, env, flags.limit))
    this.log(renderMcpSearch(result))
    return result
  }
}
