import type {PolicyShown} from '../../core/kernel/policy/show.js'
import {showPolicy} from '../../core/kernel/policy/show.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {renderPolicy} from '../../ui/render/policy.js'

export default class PolicyShow extends LoadoutCommand {
  static override summary = 'Show the effective policy (system, user, project files merged, each only tightening) and the file of each rule'
  static override examples = ['<%= config.bin %> policy show', '<%= config.bin %> policy show --json']

  async run(): Promise<PolicyShown> {
    await this.parse(PolicyShow)
    const env = this.environment()
    const shown = showPolicy(env, resolveScope(undefined, env).projectRoot)
    this.log(renderPolicy(shown))
    return shown
  }
}
