import {Args} from '@oclif/core'
import {changeParts, enablePlugin} from '../core/ops/install/enable.js'
import type {InstallResult} from '../core/ops/install/install.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {agentIds} from '../ui/agent-ids.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../ui/flags.js'
import {partFlags, partsFrom} from '../ui/parts-flags.js'
import {renderInstalled} from '../ui/render/install.js'

export default class Enable extends LoadoutCommand {
  static override summary = "Put a disabled plugin's parts back into the agents' folders and configs"
  static override description = 'With --skill, --hook, --mcp, --agent-part or --command, turns just those parts back on, written from the installed copy.'
  static override examples = ['<%= config.bin %> enable review@acme', '<%= config.bin %> enable review@acme --hook Stop']
  static override args = {plugin: Args.string({required: true, description: 'plugin@marketplace'})}
  static override flags = {agent: agentFlag, scope: scopeFlag, yes: yesFlag, 'dry-run': dryRunFlag, ...partFlags}

  async run(): Promise<InstallResult> {
    const {args, flags} = await this.parse(Enable)
    const env = this.environment()
    const agents = agentIds(flags.agent)
    const options = {env, context: resolveScope(flags.scope, env), yes: flags.yes, dryRun: flags['dry-run'], ...(agents ? {agents} : {})}
    const parts = partsFrom(flags)
    const result = parts ? await changeParts(args.plugin, {on: parts}, options) : await enablePlugin(args.plugin, options)
    this.log(renderInstalled(result))
    return result
  }
}
