import {Args} from '@oclif/core'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {applySubagentDelete, planSubagentDelete, type DeletedSubagent} from '../../core/ops/agents/delete.js'
import {withStateLock} from '../../core/kernel/state/transaction.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {confirmOrFail} from '../../ui/prompt.js'
import {renderSubagentDeleted} from '../../ui/render/subagents.js'
import {targetsForWrite} from '../../ui/select-targets.js'

export default class AgentsDelete extends LoadoutCommand {
  static override summary = 'Delete a subagent made by hand from the chosen agents (installed ones: loadout uninstall)'
  static override examples = [
    '<%= config.bin %> agents delete code-reviewer --agent claude-code --dry-run',
    '<%= config.bin %> agents delete code-reviewer --scope user --yes',
  ]
  static override args = {name: Args.string({required: true, description: 'subagent name'})}
  static override flags = {agent: agentFlag, scope: scopeFlag, yes: yesFlag, 'dry-run': dryRunFlag}

  async run(): Promise<DeletedSubagent> {
    const {args, flags} = await this.parse(AgentsDelete)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'subagents'})
    const ownership = loadOwnership(env, context.projectRoot)
    const plan = planSubagentDelete({name: args.name, targets, env, context, ownership})
    if (flags['dry-run']) {
      const result = {...plan, dryRun: true}
      this.log(renderSubagentDeleted(result))
      return result
    }
    const paths = plan.removals.map((r) => r.path).join(', ')
    const yes = await confirmOrFail(`Delete subagent "${plan.name}" (${paths})?`, {yes: flags.yes, interactive: env.interactive})
    if (!yes) throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was deleted')
    await withStateLock(env, () => applySubagentDelete(plan, loadOwnership(env, context.projectRoot)), {optional: true})
    const result = {...plan, dryRun: false}
    this.log(renderSubagentDeleted(result))
    return result
  }
}
