import {Flags} from '@oclif/core'
import {resolveScope, SCOPES} from '../core/scope.js'
import {describeTargets, type TargetsResult} from '../core/targets/describe.js'
import {loadTargets, pickTargets, splitList} from '../core/targets/registry.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, scopeFlag} from '../ui/flags.js'
import {renderTargets} from '../ui/render/targets.js'

export type {TargetsResult} from '../core/targets/describe.js'

export default class Targets extends LoadoutCommand {
  static override summary = 'List the agents loadout can write to, which are detected here, and their paths'
  static override examples = ['<%= config.bin %> targets', '<%= config.bin %> targets --scope user --agent claude-code,codex --json']
  static override flags = {
    agent: agentFlag,
    scope: scopeFlag,
    all: Flags.boolean({description: 'show the paths of both scopes'}),
    detected: Flags.boolean({description: 'only the agents detected on this machine'}),
  }

  async run(): Promise<TargetsResult> {
    const {flags} = await this.parse(Targets)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const all = await loadTargets()
    const chosen = flags.agent === undefined ? all : pickTargets(splitList(flags.agent), all)
    let targets = describeTargets(chosen, env, context, flags.all ? SCOPES : [context.scope])
    if (flags.detected) targets = targets.filter((t) => t.detected)
    const result = {scope: flags.all ? 'all' : context.scope, projectRoot: context.projectRoot, targets}
    this.log(renderTargets(result))
    return result
  }
}
