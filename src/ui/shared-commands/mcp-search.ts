import {searchRegistry, type RegistrySearch} from '../../core/kernel/mcp/registry.js'
import {withProgress} from '../progress.js'
import {renderMcpSearch} from '../render/mcp.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {limit: {type: 'integer', description: 'at most this many servers', default: 50, min: 1, max: 500}},
  args: {name: 'query', description: 'words that must all appear in the name, title or description', variadic: true, required: true},
} as const

/** `loadout mcp search <words...>`: servers of the MCP Registry, its pages followed until enough are found. */
export const mcpSearch = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<RegistrySearch> => {
    const result = await withProgress(!io.json, () => searchRegistry(argv.join(' '), io.env, flags.limit))
    io.log(renderMcpSearch(result))
    return result
  },
  {requests: true},
)
