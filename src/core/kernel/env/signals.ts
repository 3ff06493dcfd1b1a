import {EXIT, LoadoutError} from '../../model/errors.js'

/**
 * SIGINT and SIGTERM during a transaction are noted, not obeyed at once: the transaction stops at
 * its next safe point (`throwIfInterrupted`), rolls back, releases the lock, and the command exits
 * 130 or 143. Outside a transaction nothing is half done, so the process exits at once.
 */
let pending: 'SIGINT' | 'SIGTERM' | undefined
let depth = 0

const statusOf = (signal: 'SIGINT' | 'SIGTERM') => (signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated)

const handler = (signal: 'SIGINT' | 'SIGTERM') => {
  if (depth === 0) process.exit(statusOf(signal))
  if (pending) process.exit(statusOf(signal)) // a second signal: the user insists
  pending = signal
}

const onInt = () => handler('SIGINT')
const onTerm = () => handler('SIGTERM')

/** Marks the start of work that must not be cut short; pair with `leaveCritical`. */
export const enterCritical = (): void => {
  if (depth++ === 0) {
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
  }
}

export const leaveCritical = (): void => {
  if (--depth > 0) return
  depth = 0
  pending = undefined
  process.off('SIGINT', onInt)
  process.off('SIGTERM', onTerm)
}

/** The signal received during the current work, if any. */
export const pendingSignal = (): 'SIGINT' | 'SIGTERM' | undefined => pending

export const interruptedError = (signal: 'SIGINT' | 'SIGTERM', done = false): LoadoutError =>
  new LoadoutError(
    signal === 'SIGINT' ? 'interrupted' : 'terminated',
    statusOf(signal),
    done ? `${signal}: stopped after the change was complete (it is kept)` : `${signal}: stopped; the change was rolled back`,
  )

/** A safe point: lets a signal be delivered, then throws if one came. */
export const throwIfInterrupted = async (): Promise<void> => {
  await new Promise((r) => setImmediate(r))
  if (pending) throw interruptedError(pending)
}
