import {Args, Flags} from '@oclif/core'
import {diffInstalled, type PluginDiffs} from '../core/ops/update/diff.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {isOffline, offlineFlag} from '../ui/flags.js'
import {withProgress} from '../ui/progress.js'
import {renderDiffs} from '../ui/render/review.js'

export default class Diff extends LoadoutCommand {
  static override summary =
    'Read-only: what `update` would change in an installed plugin — descriptions and text the model reads, hooks, MCP servers and permissions that run, sources and hosts'
  static override examples = ['<%= config.bin %> diff review@acme', '<%= config.bin %> diff review@acme --json']
  static override strict = false
  static override args = {plugin: Args.string({required: true, description: 'installed plugins to compare with what update would install'})}
  static override flags = {
    scope: Flags.string({char: 's', description: 'only this scope (default: both)', options: ['user', 'project']}),
    offline: offlineFlag,
  }

  async run(): Promise<PluginDiffs> {
    const {argv, flags} = await this.parse(Diff)
    const env = this.environment()
    await this.settlePending(env)
    const result = await withProgress(!this.jsonEnabled(), () =>
      diffInstalled(argv as string[], {
        env,
        context: resolveScope(flags.scope, env),
        offline: isOffline(flags.offline),
        ...(flags.scope ? {scope: flags.scope as 'user' | 'project'} : {}),
      }),
    )
    this.log(renderDiffs(result))
    return result
  }
}
