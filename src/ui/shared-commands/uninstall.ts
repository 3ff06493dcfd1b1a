import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {recordsFor, removeInstalled, type RemovalResult} from '../../core/ops/install/remove.js'
import {removeDependencies, unneededDependencies, type PruneResult} from '../../core/ops/install/prune.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {readInstallRecords} from '../../core/kernel/state/records.js'
import {environmentWith} from '../../core/kernel/env/environment.js'
import {agentIds} from '../agent-ids.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {confirmOrFail} from '../prompt.js'
import {renderRemoved} from '../render/install.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    ...WRITER_FLAGS,
    force: {type: 'boolean', char: 'f', description: 'also remove files you changed since they were installed'},
    'keep-dependencies': {type: 'boolean', description: 'keep the dependencies nothing else needs (loadout prune removes them later)'},
  },
  args: {name: 'plugin', description: 'plugin@marketplace (or plugin)', required: true},
} as const

export const uninstall = sharedCommand(spec, async ({flags, argv}, io): Promise<RemovalResult & {dependencies?: PruneResult}> => {
  // a few records among many are read whole: the others are held as their lines
  const env = environmentWith(io.env, {holdRecordLines: true})
  const plugin = argv[0]!
  const context = resolveScope(flags.scope, env)
  const agents = agentIds(flags.agent)
  const options = {force: flags.force === true, dryRun: flags['dry-run'] === true, ...(agents ? {agents} : {})}
  const interactive = env.interactive && !io.json
  // --yes asks nothing: the records are read once, under the lock (the state of 1,000 installs is ~3 MB)
  if (!flags['dry-run'] && !flags.yes) {
    const {mine} = recordsFor(plugin, env, context, agents)
    const question = `Uninstall ${mine[0]!.plugin} from ${mine.map((r) => r.target).join(', ')} (${context.scope} scope)?`
    if (!(await confirmOrFail(question, {yes: false, interactive}))) {
      throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
    }
  }
  const result = await removeInstalled(plugin, env, context, options)
  io.log(renderRemoved(result, 'uninstall'))
  if (flags['keep-dependencies'] || agents) return result
  // Dependencies this plugin was the last to need are offered for removal (--yes removes them).
  const freed = unneededDependencies(readInstallRecords(env, context.projectRoot), context.scope, [result.plugin])
  if (freed.length === 0) return result
  const question = `${result.plugin} was the last plugin needing ${freed.join(', ')}: remove ${freed.length === 1 ? 'it' : 'them'} too?`
  const remove = flags.yes || (interactive && !flags['dry-run'] && (await confirmOrFail(question, {yes: false, interactive: true})))
  if (!remove) {
    io.log(`kept ${freed.join(', ')}; loadout prune removes ${freed.length === 1 ? 'it' : 'them'}`)
    return result
  }
  const dependencies = await removeDependencies(env, context, {ids: freed, dryRun: flags['dry-run'] === true, force: flags.force === true})
  for (const r of dependencies.results) io.log(renderRemoved(r, 'uninstall'))
  return {...result, dependencies}
})
