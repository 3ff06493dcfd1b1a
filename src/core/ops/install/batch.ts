/**
 * Several plugins installed as one transaction: every check and question first (before the lock),
 * then one lock, one recovery, the records read once under it, every plugin applied in turn on the
 * records as the batch left them, one state write, one journal. A failure of any undoes them all.
 */
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {markRecords} from '../../kernel/state/mark.js'
import {
  applyInTransaction,
  commitRecords,
  preflightInstall,
  refusePackOnly,
  unlessTakenMeanwhile,
  type InstallOptions,
  type InstallResult,
  type PendingInstall,
  type Prepared,
} from './install.js'
import {transaction} from '../../kernel/state/transaction.js'

export interface BatchItem {
  prepared: Prepared
  /** what differs for this plugin from the batch's options (its agents, why it is installed, its skills) */
  options: InstallOptions
}

export const installBatch = async (
  items: readonly BatchItem[],
  options: Pick<InstallOptions, 'env' | 'context' | 'dryRun' | 'frozen'>,
): Promise<InstallResult[]> => {
  for (const item of items) refusePackOnly(item.options.targets)
  // read without the lock, for the answers before any question; judged again under the lock
  const preflightAll = async (all: readonly InstallRecord[]) => {
    const checked: Array<{done: InstallResult} | {pending: PendingInstall}> = []
    for (const item of items) checked.push(await preflightInstall(item.prepared, item.options, all))
    return checked
  }
  const early = await unlessTakenMeanwhile(preflightAll(readInstallRecords(options.env, options.context.projectRoot)), options)
  if (options.dryRun) return early!.map((c) => ('done' in c ? c.done : undefined)).filter((r): r is InstallResult => r !== undefined)
  const label = items.length === 1 ? `install ${items[0]!.prepared.id}` : `install ${items.length} plugins: ${items.map((i) => i.prepared.id).join(', ')}`
  return transaction(options.env, options.context.projectRoot, label, async (tx) => {
    const recovered = tx.recovered ? {recovered: tx.recovered} : {}
    let records: InstallRecord[] = tx.records()
    const checked = early ?? (await preflightAll(records))
    let changed = false
    const results: InstallResult[] = []
    for (const [i, item] of items.entries()) {
      const c = checked[i]!
      let result: InstallResult
      if ('pending' in c) {
        const applied = await applyInTransaction(tx, c.pending, records)
        records = applied.records
        changed ||= applied.changed
        result = applied.result
      } else result = c.done
      // the same content installed already: being needed by one more plugin, or asked for by name, is still recorded
      const mark = item.options.dependency
      if (result.status === 'already-installed' && mark) {
        records = markRecords(records, item.prepared.id, item.options.context.scope, mark)
        changed = true
      }
      results.push({...result, ...recovered})
    }
    if (changed) commitRecords(tx, options, records)
    return results
  })
}
