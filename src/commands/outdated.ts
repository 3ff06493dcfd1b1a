import {Args} from '@oclif/core'
import {findOutdated, type OutdatedResult} from '../core/ops/update/outdated.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {withProgress} from '../ui/progress.js'
import {renderOutdated} from '../ui/render/update.js'

export default class Outdated extends LoadoutCommand {
  static override summary = 'Show installed plugins with newer versions or content: current, wanted, latest (read-only)'
  static override examples = ['<%= config.bin %> outdated', '<%= config.bin %> outdated review@acme --json']
  static override strict = false
  static override args = {plugin: Args.string({description: 'plugins to check (default: all installed)'})}

  async run(): Promise<OutdatedResult> {
    const {argv} = await this.parse(Outdated)
    const env = this.environment()
    await this.settlePending(env)
    const result = await withProgress(!this.jsonEnabled(), () => findOutdated(env, resolveScope(undefined, env), argv as string[]))
    this.log(renderOutdated(result))
    return result
  }
}
