import {Args, Flags} from '@oclif/core'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {createSkill, SKILL_EXTRAS, type CreatedSkill} from '../../core/ops/skills/create.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {splitList} from '../../core/kernel/targets/registry.js'
import {withStateLock} from '../../core/kernel/state/transaction.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {askText} from '../../ui/prompt.js'
import {renderCreated} from '../../ui/render/skills.js'
import {targetsForWrite} from '../../ui/select-targets.js'

export default class SkillsCreate extends LoadoutCommand {
  static override summary = 'Scaffold a new skill (SKILL.md folder) into the chosen agents'
  static override examples = [
    '<%= config.bin %> skills create pdf-tools --description "Fill and merge PDF forms" --agent claude-code,codex',
    '<%= config.bin %> skills create release-notes --with scripts,references --scope user --yes',
  ]
  static override args = {name: Args.string({required: true, description: 'skill name: lowercase letters, digits and single hyphens'})}
  static override flags = {
    description: Flags.string({char: 'd', description: 'what the skill does and when to use it (up to 1024 characters)'}),
    with: Flags.string({description: `extra folders to add: ${SKILL_EXTRAS.join(',')}`, helpValue: 'scripts,references'}),
    force: Flags.boolean({char: 'f', description: 'replace an existing skill of the same name'}),
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<CreatedSkill> {
    const {args, flags} = await this.parse(SkillsCreate)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'skills'})
    let {description} = flags
    if (description === undefined && env.interactive && !flags.yes && !this.jsonEnabled()) {
      description = await askText('Description (what it does, when to use it):', `Describe what the ${args.name} skill does and when an agent should use it.`)
    }
    // made under the lock, judged on the records as they are then
    const create = () =>
      createSkill({
        name: args.name,
        description,
        extras: splitList(flags.with),
        targets,
        env,
        context,
        ownership: loadOwnership(env, context.projectRoot),
        force: flags.force === true,
        dryRun: flags['dry-run'] === true,
      })
    const created = flags['dry-run'] ? create() : await withStateLock(env, create, {optional: true})
    this.log(renderCreated(created))
    return created
  }
}
