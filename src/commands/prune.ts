import {Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../core/model/errors.js'
import {removeDependencies, unneededDependencies, type PruneResult} from '../core/ops/install/prune.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {readInstallRecords} from '../core/kernel/state/records.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {dryRunFlag, scopeFlag, yesFlag} from '../ui/flags.js'
import {confirmOrFail} from '../ui/prompt.js'

export default class Prune extends LoadoutCommand {
  static override summary = 'Remove plugins installed only as dependencies that nothing needs any more'
  static override examples = ['<%= config.bin %> prune --yes', '<%= config.bin %> prune --dry-run --json']
  static override flags = {
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    force: Flags.boolean({char: 'f', description: 'also remove files you changed since they were installed'}),
  }

  async run(): Promise<PruneResult> {
    const {flags} = await this.parse(Prune)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const ids = unneededDependencies(readInstallRecords(env, context.projectRoot), context.scope)
    if (ids.length > 0 && !flags['dry-run']) {
      const question = `Remove ${ids.length} unneeded ${ids.length === 1 ? 'dependency' : 'dependencies'} (${ids.join(', ')}) from the ${context.scope} scope?`
      if (!(await confirmOrFail(question, {yes: flags.yes, interactive: env.interactive && !this.jsonEnabled()}))) {
        throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
      }
    }
    const result = await removeDependencies(env, context, {ids, dryRun: flags['dry-run'] === true, force: flags.force === true})
    this.log(ids.length === 0 ? `no unneeded dependencies in the ${context.scope} scope` : `${flags['dry-run'] ? 'would remove' : 'removed'} ${ids.join(', ')}`)
    return result
  }
}
