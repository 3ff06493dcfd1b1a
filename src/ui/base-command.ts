import {Command, Errors} from '@oclif/core'
import {environmentFromProcess, type Environment} from '../core/environment.js'
import {EXIT, explainIoError, isLoadoutError, LoadoutError} from '../core/errors.js'
import {recoverIfFree, type PendingRun, type Recovery} from '../core/install/transaction.js'
import {safeMessage} from './safe-text.js'
import {red, yellow} from './style.js'

const debugging = () => /(^|,)\s*loadout(\*|:|,|$)/.test(process.env.DEBUG ?? '') || process.env.DEBUG === '*'

/** Maps anything thrown to a LoadoutError: oclif's parse failures are usage errors. */
export const toLoadoutError = (error: unknown): LoadoutError => {
  if (isLoadoutError(error)) return error
  if (error instanceof Errors.CLIError) {
    // oclif wraps parse errors in a heading and a help hint; keep only the lines that say what is wrong.
    const lines = error.message
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !/^The following errors? occurred:?$/i.test(l) && !/^See more help with/i.test(l))
    return new LoadoutError('usage', EXIT.usage, lines.reduce((text, line) => (text === '' ? line : text.endsWith(':') ? `${text} ${line}` : `${text}; ${line}`), '') || error.message, {suggestions: ['see: loadout --help, or loadout <command> --help']})
  }
  const io = explainIoError(error)
  if (isLoadoutError(io)) return io
  const message = error instanceof Error ? error.message : String(error)
  return new LoadoutError('unexpected', EXIT.unexpected, `unexpected: ${message}`, {
    suggestions: ['run again with DEBUG=loadout* for details, and report it if it persists'],
    cause: error,
  })
}

/** A failure as people read it: one line, then what to do next, on stderr. */
export const printError = (error: LoadoutError): void => {
  const lines = [`${red('error', process.stderr)}: ${safeMessage(error.message)}`, ...error.suggestions.map((s) => `  ${safeMessage(s)}`)]
  process.stderr.write(`${lines.join('\n')}\n`)
}

/**
 * The last word on a failure that no command caught (oclif's own, or its plugins'): the exit
 * status oclif asked for when it is an exit, else loadout's error line, or `{error}` under `--json`.
 */
export const reportFailure = (thrown: unknown, argv: readonly string[]): void => {
  if (thrown instanceof Errors.ExitError) {
    process.exitCode = thrown.oclif.exit ?? 0
    return
  }
  const error = toLoadoutError(thrown)
  process.exitCode = error.exitStatus
  if (debugging()) process.stderr.write(`${(thrown as Error)?.stack ?? String(thrown)}\n`)
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({error: error.toJSON()}, null, 2)}\n`)
  else printError(error)
}

/**
 * Every loadout command: `--json` prints the typed result (or `{error}`), and a failure is one line
 * plus suggestions on stderr with a documented exit status, without a stack unless DEBUG=loadout*.
 */
export abstract class LoadoutCommand extends Command {
  static override enableJsonFlag = true

  protected environment(): Environment {
    return environmentFromProcess()
  }

  /** Without a JSON colour theme, oclif's colouring only re-tokenizes the text (slow on large results); print it as is. */
  override logJson(json: unknown): void {
    if (this.config.theme?.json) super.logJson(json)
    else process.stdout.write(`${JSON.stringify(json, null, 2)}\n`)
  }

  override async catch(thrown: Error & {exitCode?: number}): Promise<unknown> {
    if (thrown instanceof Errors.ExitError) throw thrown
    const error = toLoadoutError(thrown)
    process.exitCode = error.exitStatus
    if (debugging()) process.stderr.write(`${(thrown as Error).stack ?? String(thrown)}\n`)
    if (this.jsonEnabled()) {
      this.logJson({error: error.toJSON()})
      return undefined
    }
    printError(error)
    return undefined
  }

  /**
   * For read-only commands: finishes or rolls back what a killed run left when the lock is free, and
   * says so; when another process holds it, says what is pending instead of pretending.
   */
  protected async settlePending(env: Environment): Promise<{recovered?: Recovery; pending?: PendingRun}> {
    const settled = await recoverIfFree(env)
    if (settled.recovered) this.note(yellow(`recovered an interrupted run (${settled.recovered.label}): ${settled.recovered.action}`, process.stderr))
    if (settled.pending) {
      this.note(yellow(`${settled.pending.label} is ${settled.pending.running ? `in progress (pid ${settled.pending.pid})` : 'pending'}: what follows may change when it ends`, process.stderr))
    }
    return settled
  }

  /** A note for people; suppressed under --json, where the result carries it. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${message}\n`)
  }
}
