import {Args, Flags} from '@oclif/core'
import {installFromRegistry} from '../../core/ops/mcp/from-registry.js'
import type {McpInstallResult} from '../../core/ops/mcp/install.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {installOptionsFor} from '../../ui/install-options.js'
import {withProgress} from '../../ui/progress.js'
import {renderMcpInstalled} from '../../ui/render/mcp.js'
import {targetsForWrite} from '../../ui/select-targets.js'

export default class McpInstall extends LoadoutCommand {
  static override summary = 'Install a server from the MCP Registry into each chosen agent, pinned to an exact version'
  static override description =
    'The registry is $LOADOUT_MCP_REGISTRY (default https://registry.modelcontextprotocol.io). Secrets are written as references to environment variables you set.'
  static override examples = [
    '<%= config.bin %> mcp install io.github.acme/weather --agent claude-code,codex,cursor',
    '<%= config.bin %> mcp install io.github.acme/weather@1.4.2 --name weather --scope project',
    '<%= config.bin %> mcp install io.github.acme/weather --remote --agent cursor',
  ]
  static override args = {server: Args.string({required: true, description: 'the registry name, e.g. io.github.owner/server[@version]'})}
  static override flags = {
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    force: Flags.boolean({char: 'f', description: 'write it again even when the same server is installed'}),
    name: Flags.string({description: 'the name the agents will know it by (default: the last part of the registry name)'}),
    remote: Flags.boolean({description: "connect to the server's remote URL instead of running its package"}),
  }

  async run(): Promise<McpInstallResult> {
    const {args, flags} = await this.parse(McpInstall)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'mcp'})
    const options = installOptionsFor({env, context, targets, yes: flags.yes, dryRun: flags['dry-run'], force: flags.force, json: this.jsonEnabled()})
    const result = await withProgress(!this.jsonEnabled(), (onProgress) =>
      installFromRegistry(args.server, {...options, onProgress, ...(flags.name ? {name: flags.name} : {}), remote: flags.remote}),
    )
    this.log(renderMcpInstalled(result))
    return result
  }
}
