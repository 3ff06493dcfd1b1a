import {Args} from '@oclif/core'
import {changeParts} from '../core/ops/install/enable.js'
import type {InstallResult} from '../core/ops/install/install.js'
import {removeInstalled, type RemovalResult} from '../core/ops/install/remove.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {agentIds} from '../ui/agent-ids.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag} from '../ui/flags.js'
import {partFlags, partsFrom} from '../ui/parts-flags.js'
import {renderInstalled, renderRemoved} from '../ui/render/install.js'

export default class Disable extends LoadoutCommand {
  static override summary = "Take a plugin's parts out of the agents' folders and configs, keeping it installed and cached"
  static override description =
    "With --skill, --hook, --mcp, --agent-part or --command, only those parts go: the rest stays, and the records (and loadout.json in a project) remember them as off, through update and a teammate's install."
  static override examples = [
    '<%= config.bin %> disable review@acme',
    '<%= config.bin %> disable review@acme --agent codex',
    '<%= config.bin %> disable review@acme --hook Stop --skill formatter',
  ]
  static override args = {plugin: Args.string({required: true, description: 'plugin@marketplace'})}
  static override flags = {agent: agentFlag, scope: scopeFlag, 'dry-run': dryRunFlag, ...partFlags}

  async run(): Promise<RemovalResult | InstallResult> {
    const {args, flags} = await this.parse(Disable)
    const env = this.environment()
    const agents = agentIds(flags.agent)
    const context = resolveScope(flags.scope, env)
    const parts = partsFrom(flags)
    if (parts) {
      const result = await changeParts(args.plugin, {off: parts}, {env, context, yes: false, dryRun: flags['dry-run'], ...(agents ? {agents} : {})})
      this.log(renderInstalled(result))
      return result
    }
    const result = await removeInstalled(args.plugin, env, context, {
      force: false,
      dryRun: flags['dry-run'],
      keepRecord: true,
      ...(agents ? {agents} : {}),
    })
    this.log(renderRemoved(result, 'disable'))
    return result
  }
}
