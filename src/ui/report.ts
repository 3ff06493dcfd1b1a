/**
 * How a failure is shown, shared by the oclif commands (base-command.ts) and the fast path of the
 * read-only commands (fast/run.ts): the same words, exit status and `{error}` object on both.
 * No oclif here: the fast path must not load it.
 */
import {EXIT, explainIoError, isLoadoutError, LoadoutError} from '../core/model/errors.js'
import {safeMessage} from './safe-text.js'
import {writeErr, writeOut} from './output.js'
import {red} from './style.js'

export const debugging = (): boolean => /(^|,)\s*loadout(\*|:|,|$)/.test(process.env.DEBUG ?? '') || process.env.DEBUG === '*'

/** Maps anything thrown to a LoadoutError; `framework` maps what the CLI framework throws (parse errors). */
export const asLoadoutError = (error: unknown, framework?: (error: unknown) => LoadoutError | undefined): LoadoutError => {
  if (isLoadoutError(error)) return error
  const mapped = framework?.(error)
  if (mapped) return mapped
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
  const lines = [`${red('error', 'stderr')}: ${safeMessage(error.message)}`, ...error.suggestions.map((s) => `  ${safeMessage(s)}`)]
  writeErr(`${lines.join('\n')}\n`)
}

/** `--json` output of a result or `{error}`: plain, two-space JSON on stdout. */
export const writeJson = (json: unknown): void => {
  writeOut(`${JSON.stringify(json, null, 2)}\n`)
}

/**
 * What a command does with a failure it caught: sets the exit status, prints the stack under
 * DEBUG=loadout*, and the error as `{error}` under --json (through `json`), else as a line on stderr.
 */
export const reportCommandFailure = (thrown: unknown, error: LoadoutError, json: ((value: unknown) => void) | undefined): void => {
  process.exitCode = error.exitStatus
  if (debugging()) writeErr(`${(thrown as Error)?.stack ?? String(thrown)}\n`)
  if (json) json({error: error.toJSON()})
  else printError(error)
}
