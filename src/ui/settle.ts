import {existsSync} from 'node:fs'
import {journalFile} from '../core/kernel/env/environment.js'
import {hasMarketplacesLeftover} from '../core/kernel/state/marketplaces.js'
import type {PendingRun, Recovery} from '../core/kernel/state/transaction.js'
import {note, type CommandIo} from './command-io.js'
import {yellow} from './style.js'

/**
 * For read-only commands: finishes or rolls back what a killed run left when the lock is free, and
 * says so; when another process holds it, says what is pending instead of pretending. The
 * transaction code is loaded only when there is a journal (or a killed write's leftover) to look at.
 */
export const settlePending = async (io: CommandIo): Promise<{recovered?: Recovery; pending?: PendingRun}> => {
  if (!existsSync(journalFile(io.env)) && !hasMarketplacesLeftover(io.env)) return {}
  const {recoverIfFree} = await import('../core/kernel/state/transaction.js')
  const settled = await recoverIfFree(io.env)
  if (settled.recovered) note(io, yellow(`recovered an interrupted run (${settled.recovered.label}): ${settled.recovered.action}`, 'stderr'))
  if (settled.pending) {
    note(
      io,
      yellow(
        `${settled.pending.label} is ${settled.pending.running ? `in progress (pid ${settled.pending.pid})` : 'pending'}: what follows may change when it ends`,
        'stderr',
      ),
    )
  }
  return settled
}
