import {Args, Flags} from '@oclif/core'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {loadOwnership} from '../../core/kernel/state/records.js'
import {createSubagent, type CreatedSubagent} from '../../core/ops/agents/create.js'
import {withStateLock} from '../../core/kernel/state/transaction.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {askText} from '../../ui/prompt.js'
import {renderSubagentCreated} from '../../ui/render/subagents.js'
import {targetsForWrite} from '../../ui/select-targets.js'

export default class AgentsCreate extends LoadoutCommand {
  static override summary = 'Write a new subagent into the chosen agents, each in its own format'
  static override examples = [
    '<%= config.bin %> agents create code-reviewer --description "Reviews a diff for bugs" --tools Read,Grep,Glob --agent claude-code,cst-agent',
    '<%= config.bin %> agents create planner --model gpt-5 --readonly --max-steps 20 --agent deepagents,cst-agent --scope user --yes',
  ]
  static override args = {name: Args.string({required: true, description: 'subagent name: lowercase letters, digits and single hyphens'})}
  static override flags = {
    description: Flags.string({char: 'd', description: 'what the subagent does and when to hand it a task (up to 1024 characters)'}),
    tools: Flags.string({description: "tools it may use, comma-separated; default: the agent's own defaults", helpValue: 'Read,Grep'}),
    model: Flags.string({description: 'the model it runs on; Claude aliases (sonnet, opus, haiku) are dropped for agents that do not know them'}),
    readonly: Flags.boolean({
      description: 'cst-agent: may not change files (--no-readonly: may); default: read-only when every tool only reads',
      allowNo: true,
    }),
    'max-steps': Flags.integer({description: "cst-agent's max_steps, Claude Code's maxTurns", min: 1}),
    force: Flags.boolean({char: 'f', description: 'replace an existing subagent of the same name'}),
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<CreatedSubagent> {
    const {args, flags} = await this.parse(AgentsCreate)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const targets = await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'subagents'})
    let {description} = flags
    if (description === undefined && env.interactive && !flags.yes && !this.jsonEnabled()) {
      description = await askText(
        'Description (what it does, when to hand it a task):',
        `Describe what the ${args.name} subagent does and when an agent should hand it a task.`,
      )
    }
    // made under the lock, judged on the records as they are then
    const create = () =>
      createSubagent({
        name: args.name,
        description,
        tools: flags.tools,
        model: flags.model,
        readonly: flags.readonly,
        maxSteps: flags['max-steps'],
        targets,
        env,
        context,
        ownership: loadOwnership(env, context.projectRoot),
        force: flags.force === true,
        dryRun: flags['dry-run'] === true,
      })
    const created = flags['dry-run'] ? create() : await withStateLock(env, create, {optional: true})
    this.log(renderSubagentCreated(created))
    return created
  }
}
