import type {Environment} from '../core/kernel/env/environment.js'
import {writeStderr} from './safe-text.js'

/** What a command shared by the oclif path and the fast path prints through. */
export interface CommandIo {
  env: Environment
  /** --json: `log` prints nothing, the returned result is the output */
  json: boolean
  /** a line (or lines) of the human output on stdout */
  log(text: string): void
}

/** A note for people on stderr; suppressed under --json, where the result carries it. */
export const note = (io: CommandIo, message: string): void => {
  if (!io.json) writeStderr(message)
}
