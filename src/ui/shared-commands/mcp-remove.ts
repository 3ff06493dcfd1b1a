import {EXIT, LoadoutError} from '../../core/model/errors.js'
import type {RemovalResult} from '../../core/ops/install/remove.js'
import {installedServerId, removeServer} from '../../core/ops/mcp/remove.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {agentIds} from '../agent-ids.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {confirmOrFail} from '../prompt.js'
import {renderRemoved} from '../render/install.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {...WRITER_FLAGS, force: {type: 'boolean', char: 'f', description: 'remove it even where it was changed since'}},
  args: {name: 'name', description: 'the server name (or its id, mcp:<name>@local|registry)', required: true},
} as const

/** `loadout mcp remove <name>`: takes out a server loadout added, each config file left as it was before. */
export const mcpRemove = sharedCommand(spec, async ({flags, argv}, io): Promise<RemovalResult> => {
  const {env} = io
  const name = argv[0]!
  const context = resolveScope(flags.scope, env)
  const agents = agentIds(flags.agent)
  if (!flags['dry-run']) {
    const id = await installedServerId(name, env, context, agents)
    if (!(await confirmOrFail(`Remove MCP server ${id} (${context.scope} scope)?`, {yes: flags.yes === true, interactive: env.interactive && !io.json}))) {
      throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
    }
  }
  const result = await removeServer(name, env, context, {force: flags.force === true, dryRun: flags['dry-run'] === true, ...(agents ? {agents} : {})})
  io.log(renderRemoved(result, 'uninstall'))
  return result
})
