import {Args} from '@oclif/core'
import {removeInstalled, type RemovalResult} from '../core/ops/install/remove.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {agentIds} from '../ui/agent-ids.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag} from '../ui/flags.js'
import {renderRemoved} from '../ui/render/install.js'

export default class Disable extends LoadoutCommand {
  static override summary = "Take a plugin's parts out of the agents' folders and configs, keeping it installed and cached"
  static override examples = ['<%= config.bin %> disable review@acme', '<%= config.bin %> disable review@acme --agent codex']
  static override args = {plugin: Args.string({required: true, description: 'plugin@marketplace'})}
  static override flags = {agent: agentFlag, scope: scopeFlag, 'dry-run': dryRunFlag}

  async run(): Promise<RemovalResult> {
    const {args, flags} = await this.parse(Disable)
    const env = this.environment()
    const agents = agentIds(flags.agent)
    const result = await removeInstalled(args.plugin, env, resolveScope(flags.scope, env), {
      force: false,
      dryRun: flags['dry-run'],
      keepRecord: true,
      ...(agents ? {agents} : {}),
    })
    this.log(renderRemoved(result, 'disable'))
    return result
  }
}
