import {listServers, type McpListing} from '../../core/ops/mcp/list.js'
import {resolveScope, SCOPES} from '../../core/kernel/env/scope.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderMcpList} from '../render/mcp.js'
import {targetsForRead} from '../select-targets.js'
import {sharedCommand} from './types.js'

const spec = {flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG}} as const

/** `loadout mcp list`: every server each agent would start, read from its own files, with its owner. */
export const mcpList = sharedCommand(spec, async ({flags}, io): Promise<McpListing> => {
  const {env} = io
  const context = resolveScope(flags.scope, env)
  const targets = await targetsForRead({agent: flags.agent, env, section: 'mcp'})
  const listing = listServers(env, context, targets, flags.scope ? [context.scope] : SCOPES)
  io.log(renderMcpList(listing))
  return listing
})
