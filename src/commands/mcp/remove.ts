import {Args, Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import type {RemovalResult} from '../../core/ops/install/remove.js'
import {installedServerId, removeServer} from '../../core/ops/mcp/remove.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {agentIds} from '../../ui/agent-ids.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {confirmOrFail} from '../../ui/prompt.js'
import {renderRemoved} from '../../ui/render/install.js'

export default class McpRemove extends LoadoutCommand {
  static override summary = 'Remove an MCP server loadout added, leaving each config file as it was before'
  static override examples = ['<%= config.bin %> mcp remove weather --yes', '<%= config.bin %> mcp remove weather --agent codex --dry-run']
  static override args = {name: Args.string({required: true, description: 'the server name (or its id, mcp:<name>@local|registry)'})}
  static override flags = {
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    force: Flags.boolean({char: 'f', description: 'remove it even where it was changed since'}),
  }

  async run(): Promise<RemovalResult> {
    const {args, flags} = await this.parse(McpRemove)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const agents = agentIds(flags.agent)
    if (!flags['dry-run']) {
      const id = await installedServerId(args.name, env, context, agents)
      if (!(await confirmOrFail(`Remove MCP server ${id} (${context.scope} scope)?`, {yes: flags.yes, interactive: env.interactive && !this.jsonEnabled()}))) {
        throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
      }
    }
    const result = await removeServer(args.name, env, context, {force: flags.force, dryRun: flags['dry-run'], ...(agents ? {agents} : {})})
    this.log(renderRemoved(result, 'uninstall'))
    return result
  }
}
