import {Args} from '@oclif/core'
import {updatePlugins, type PluginsUpdated} from '../core/install/update.js'
import {resolveScope} from '../core/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {allowHiddenTextFlag, dryRunFlag, isOffline, offlineFlag, scopeFlag, yesFlag} from '../ui/flags.js'
import {withProgress} from '../ui/progress.js'
import {confirmOrFail} from '../ui/prompt.js'
import {renderConsent} from '../ui/render/install.js'
import {renderUpdates} from '../ui/render/update.js'

export default class Update extends LoadoutCommand {
  static override summary = 'Install newer versions of installed plugins, asking again when what they run changed'
  static override examples = ['<%= config.bin %> update', '<%= config.bin %> update review@acme --yes', '<%= config.bin %> update --dry-run --json']
  static override strict = false
  static override args = {plugin: Args.string({description: 'plugins to update (default: all installed in the scope)'})}
  static override flags = {scope: scopeFlag, yes: yesFlag, 'dry-run': dryRunFlag, offline: offlineFlag, 'allow-hidden-text': allowHiddenTextFlag}

  async run(): Promise<PluginsUpdated> {
    const {argv, flags} = await this.parse(Update)
    const env = this.environment()
    const interactive = env.interactive && !this.jsonEnabled()
    const result = await withProgress(!this.jsonEnabled(), (onProgress) =>
      updatePlugins(argv as string[], {
        env,
        context: resolveScope(flags.scope, env),
        dryRun: flags['dry-run'],
        prefix: true,
        offline: isOffline(flags.offline),
        yes: flags.yes,
        allowHiddenText: flags['allow-hidden-text'],
        onProgress,
        ...(interactive
          ? {
              confirm: async (summary: Parameters<typeof renderConsent>[0], id: string) => {
                process.stderr.write(`${renderConsent(summary, id)}\n`)
                return confirmOrFail(`${id} changed what it runs. Update and allow it?`, {yes: false, interactive: true})
              },
            }
          : {}),
      }),
    )
    this.log(renderUpdates(result))
    return result
  }
}
