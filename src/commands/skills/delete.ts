import {Args} from '@oclif/core'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {applySkillDelete, planSkillDelete, type DeletedSkill} from '../../core/ops/skills/delete.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {withStateLock} from '../../core/kernel/state/transaction.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {confirmOrFail} from '../../ui/prompt.js'
import {renderDeleted} from '../../ui/render/skills.js'
import {targetsForWrite} from '../../ui/select-targets.js'

export default class SkillsDelete extends LoadoutCommand {
  static override summary = 'Delete a skill made by hand from the chosen agents (installed ones: loadout uninstall)'
  static override examples = [
    '<%= config.bin %> skills delete pdf-tools --agent claude-code --dry-run',
    '<%= config.bin %> skills delete pdf-tools --scope user --yes',
  ]
  static override args = {name: Args.string({required: true, description: 'skill name'})}
  static override flags = {agent: agentFlag, scope: scopeFlag, yes: yesFlag, 'dry-run': dryRunFlag}

  async run(): Promise<DeletedSkill> {
    const {args, flags} = await this.parse(SkillsDelete)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'skills'})
    const ownership = loadOwnership(env, context.projectRoot)
    const plan = planSkillDelete({name: args.name, targets, env, context, ownership})
    if (flags['dry-run']) {
      const result = {...plan, dryRun: true}
      this.log(renderDeleted(result))
      return result
    }
    const paths = plan.removals.map((r) => r.path).join(', ')
    const yes = await confirmOrFail(`Delete skill "${plan.name}" (${paths})?`, {yes: flags.yes, interactive: env.interactive})
    if (!yes) throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was deleted')
    await withStateLock(env, () => applySkillDelete(plan, loadOwnership(env, context.projectRoot)), {optional: true})
    const result = {...plan, dryRun: false}
    this.log(renderDeleted(result))
    return result
  }
}
