import {usageError} from '../../core/model/errors.js'
import {installServer, type McpInstallResult} from '../../core/ops/mcp/install.js'
import {localServerSpec} from '../../core/kernel/mcp/spec.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {installOptionsFor} from '../install-options.js'
import {renderMcpInstalled} from '../render/mcp.js'
import {targetsForWrite} from '../select-targets.js'
import {sharedCommand} from './types.js'

export const FORCE_AGAIN_FLAG = {type: 'boolean', char: 'f', description: 'write it again even when the same server is installed'} as const

const spec = {
  flags: {
    ...WRITER_FLAGS,
    force: FORCE_AGAIN_FLAG,
    env: {type: 'string', char: 'e', description: 'NAME=value, or NAME to pass NAME through as a reference', multiple: true, nonGreedy: true},
    url: {type: 'string', description: 'the https URL of a remote server (instead of a command)'},
    transport: {type: 'string', description: 'for --url: http (streamable HTTP, the default) or sse', options: ['http', 'sse']},
    header: {type: 'string', description: 'for --url: Name=value; refer to secrets as ${NAME}', multiple: true, nonGreedy: true},
  },
  // any number of words, so that a command given without -- is named in the error, not refused as "unexpected arguments"
  args: {name: 'name', description: 'the name the agents will know the server by', variadic: true, required: true},
  // Everything after the first -- is the server's argv, word for word: no parser sees it, so a word
  // there that looks like a loadout flag (`-e`, `--agent`) or repeats (`--label a --label b`) is
  // neither taken nor regrouped.
  passthrough: true,
} as const

/** `loadout mcp add <name> -- <command...>` (or `--url`): one server, written to each chosen agent. */
export const mcpAdd = sharedCommand(spec, async ({flags, argv, passthrough}, io): Promise<McpInstallResult> => {
  const [name, ...stray] = argv as [string, ...string[]]
  // Without --, the command's own flags would be read as loadout's (`npx -y` as --yes).
  if (stray.length > 0) {
    throw usageError('command-needs-separator', `put the server's command after --: loadout mcp add ${name} [flags] -- ${stray.join(' ')}`)
  }
  const server = localServerSpec({
    name,
    command: passthrough ?? [],
    ...(flags.url !== undefined ? {url: flags.url} : {}),
    ...(flags.transport ? {transport: flags.transport as 'http' | 'sse'} : {}),
    env: flags.env ?? [],
    headers: flags.header ?? [],
  })
  const {env} = io
  const context = resolveScope(flags.scope, env)
  const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'mcp'})
  const result = await installServer(
    server,
    installOptionsFor({env, context, targets, yes: flags.yes, dryRun: flags['dry-run'], force: flags.force, json: io.json}),
  )
  io.log(renderMcpInstalled(result))
  return result
})
