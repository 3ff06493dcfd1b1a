import {countProblems} from '../../core/ops/install/verify.js'
import type {PendingRun} from '../../core/kernel/state/transaction.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {readInstallRecords, type InstallRecord} from '../../core/kernel/state/records.js'
import {SCOPE_FLAG} from '../command-spec.js'
import {renderInstalledList} from '../render/installed.js'
import {settlePending} from '../settle.js'
import {sharedCommand} from './types.js'

export interface InstalledList {
  /** a run that another process is in the middle of, when there is one */
  pending?: PendingRun
  installs: Array<
    Pick<InstallRecord, 'plugin' | 'scope' | 'target' | 'version' | 'commit' | 'source' | 'enabled' | 'disabledParts' | 'components' | 'skipped'> & {
      problems: number
    }
  >
}

export const list = sharedCommand({flags: {scope: SCOPE_FLAG}}, async ({flags}, io): Promise<InstalledList> => {
  const context = resolveScope(flags.scope, io.env)
  const {pending} = await settlePending(io)
  const records = readInstallRecords(io.env, context.projectRoot).filter((r) => !flags.scope || r.scope === flags.scope)
  const problems = countProblems(records, io.env)
  if (!io.json) io.log(renderInstalledList(records, problems))
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
      ...(r.disabledParts ? {disabledParts: r.disabledParts} : {}),
      components: r.components,
      skipped: r.skipped,
      problems: problems.get(r) ?? 0,
    })),
  }
})
