import {Args, Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../core/model/errors.js'
import {recordsFor, removeInstalled, type RemovalResult} from '../core/ops/install/remove.js'
import {removeDependencies, unneededDependencies, type PruneResult} from '../core/ops/install/prune.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {readInstallRecords} from '../core/kernel/state/records.js'
import {agentIds} from '../ui/agent-ids.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, dryRunFlag, scopeFlag, yesFlag} from '../ui/flags.js'
import {confirmOrFail} from '../ui/prompt.js'
import {renderRemoved} from '../ui/render/install.js'

export default class Uninstall extends LoadoutCommand {
  static override summary = 'Remove exactly the files and config entries an install wrote, then its record'
  static override examples = ['<%= config.bin %> uninstall review@acme --yes', '<%= config.bin %> uninstall review@acme --agent codex --dry-run']
  static override args = {plugin: Args.string({required: true, description: 'plugin@marketplace (or plugin)'})}
  static override flags = {
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    force: Flags.boolean({char: 'f', description: 'also remove files you changed since they were installed'}),
    'keep-dependencies': Flags.boolean({description: 'keep the dependencies nothing else needs (loadout prune removes them later)'}),
  }

  async run(): Promise<RemovalResult & {dependencies?: PruneResult}> {
    const {args, flags} = await this.parse(Uninstall)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const agents = agentIds(flags.agent)
    const options = {force: flags.force, dryRun: flags['dry-run'], ...(agents ? {agents} : {})}
    // --yes asks nothing: the records are read once, under the lock (the state of 1,000 installs is ~3 MB)
    if (!flags['dry-run'] && !flags.yes) {
      const {mine} = recordsFor(args.plugin, env, context, agents)
      const question = `Uninstall ${mine[0]!.plugin} from ${mine.map((r) => r.target).join(', ')} (${context.scope} scope)?`
      if (!(await confirmOrFail(question, {yes: flags.yes, interactive: env.interactive && !this.jsonEnabled()}))) {
        throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
      }
    }
    const result = await removeInstalled(args.plugin, env, context, options)
    this.log(renderRemoved(result, 'uninstall'))
    if (flags['keep-dependencies'] || agents) return result
    // Dependencies this plugin was the last to need are offered for removal (--yes removes them).
    const freed = unneededDependencies(readInstallRecords(env, context.projectRoot), context.scope, [result.plugin])
    if (freed.length === 0) return result
    const question = `${result.plugin} was the last plugin needing ${freed.join(', ')}: remove ${freed.length === 1 ? 'it' : 'them'} too?`
    const remove =
      flags.yes || (env.interactive && !this.jsonEnabled() && !flags['dry-run'] && (await confirmOrFail(question, {yes: false, interactive: true})))
    if (!remove) {
      this.log(`kept ${freed.join(', ')}; loadout prune removes ${freed.length === 1 ? 'it' : 'them'}`)
      return result
    }
    const dependencies = await removeDependencies(env, context, {ids: freed, dryRun: flags['dry-run'] === true, force: flags.force === true})
    for (const r of dependencies.results) this.log(renderRemoved(r, 'uninstall'))
    return {...result, dependencies}
  }
}
