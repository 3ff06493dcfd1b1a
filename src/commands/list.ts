import {checkRecord} from '../core/install/verify.js'
import {resolveScope} from '../core/scope.js'
import {readInstallRecords, type InstallRecord} from '../core/state/records.js'
import type {PendingRun} from '../core/install/transaction.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {scopeFlag} from '../ui/flags.js'
import {renderInstalledList} from '../ui/render/install.js'

export interface InstalledList {
  /** a run that another process is in the middle of, when there is one */
  pending?: PendingRun
  installs: Array<Pick<InstallRecord, 'plugin' | 'scope' | 'target' | 'version' | 'commit' | 'source' | 'enabled' | 'components' | 'skipped'> & {problems: number}>
}

export default class List extends LoadoutCommand {
  static override summary = 'List installed plugins per scope and agent: version, commit, enabled state, problems'
  static override examples = ['<%= config.bin %> list', '<%= config.bin %> list --scope user --json']
  static override flags = {scope: scopeFlag}

  async run(): Promise<InstalledList> {
    const {flags} = await this.parse(List)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const {pending} = await this.settlePending(env)
    const records = readInstallRecords(env, context.projectRoot).filter((r) => !flags.scope || r.scope === flags.scope)
    const problems = new Map(records.map((r) => [r, r.enabled ? (({missing, changed}) => missing.length + changed.length)(checkRecord(r)) : 0]))
    this.log(renderInstalledList(records, problems))
    return {
      ...(pending ? {pending} : {}),
      installs: records.map((r) => ({
        plugin: r.plugin,
        scope: r.scope,
        target: r.target,
        ...(r.version ? {version: r.version} : {}),
        ...(r.commit ? {commit: r.commit} : {}),
        source: r.source,
        enabled: r.enabled,
        components: r.components,
        skipped: r.skipped,
        problems: problems.get(r) ?? 0,
      })),
    }
  }
}
