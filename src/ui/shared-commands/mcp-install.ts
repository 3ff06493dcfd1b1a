import {installFromRegistry} from '../../core/ops/mcp/from-registry.js'
import type {McpInstallResult} from '../../core/ops/mcp/install.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {installOptionsFor} from '../install-options.js'
import {withProgress} from '../progress.js'
import {renderMcpInstalled} from '../render/mcp.js'
import {targetsForWrite} from '../select-targets.js'
import {FORCE_AGAIN_FLAG} from './mcp-add.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    ...WRITER_FLAGS,
    force: FORCE_AGAIN_FLAG,
    name: {type: 'string', description: 'the name the agents will know it by (default: the last part of the registry name)'},
    remote: {type: 'boolean', description: "connect to the server's remote URL instead of running its package"},
  },
  args: {name: 'server', description: 'the registry name, e.g. io.github.owner/server[@version]', required: true},
} as const

/** `loadout mcp install <server>`: a server from the MCP Registry, pinned, written to each chosen agent. */
export const mcpInstall = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<McpInstallResult> => {
    const {env} = io
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'mcp'})
    const options = installOptionsFor({env, context, targets, yes: flags.yes, dryRun: flags['dry-run'], force: flags.force, json: io.json})
    const result = await withProgress(!io.json, (onProgress) =>
      installFromRegistry(argv[0]!, {...options, onProgress, ...(flags.name ? {name: flags.name} : {}), remote: flags.remote}),
    )
    io.log(renderMcpInstalled(result))
    return result
  },
  {requests: true},
)
