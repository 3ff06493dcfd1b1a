import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {removeDependencies, unneededDependencies, type PruneResult} from '../../core/ops/install/prune.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {readInstallRecords} from '../../core/kernel/state/records.js'
import {environmentWith} from '../../core/kernel/env/environment.js'
import {DRY_RUN_FLAG, SCOPE_FLAG, YES_FLAG} from '../command-spec.js'
import {confirmOrFail} from '../prompt.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    scope: SCOPE_FLAG,
    yes: YES_FLAG,
    'dry-run': DRY_RUN_FLAG,
    force: {type: 'boolean', char: 'f', description: 'also remove files you changed since they were installed'},
  },
} as const

export const prune = sharedCommand(spec, async ({flags}, io): Promise<PruneResult> => {
  // a few records among many are read whole: the others are held as their lines
  const env = environmentWith(io.env, {holdRecordLines: true})
  const context = resolveScope(flags.scope, env)
  const ids = unneededDependencies(readInstallRecords(env, context.projectRoot), context.scope)
  if (ids.length > 0 && !flags['dry-run']) {
    const question = `Remove ${ids.length} unneeded ${ids.length === 1 ? 'dependency' : 'dependencies'} (${ids.join(', ')}) from the ${context.scope} scope?`
    if (!(await confirmOrFail(question, {yes: flags.yes === true, interactive: env.interactive && !io.json}))) {
      throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
    }
  }
  const result = await removeDependencies(env, context, {ids, dryRun: flags['dry-run'] === true, force: flags.force === true})
  io.log(ids.length === 0 ? `no unneeded dependencies in the ${context.scope} scope` : `${flags['dry-run'] ? 'would remove' : 'removed'} ${ids.join(', ')}`)
  return result
})
