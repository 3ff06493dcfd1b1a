import {Command, Errors, type Interfaces} from '@oclif/core'
import {environmentFromProcess} from '../core/kernel/env/environment.js'
import {EXIT, LoadoutError} from '../core/model/errors.js'
import {withRequestPolicy} from '../core/kernel/policy/requests.js'
import type {CommandIo} from './command-io.js'
import {asLoadoutError, reportCommandFailure, writeJson} from './report.js'
import {terminalText} from './safe-text.js'

export {printError} from './report.js'

/** oclif's parse failures are usage errors. */
const fromOclif = (error: unknown): LoadoutError | undefined => {
  if (!(error instanceof Errors.CLIError)) return undefined
  // oclif wraps parse errors in a heading and a help hint; keep only the lines that say what is wrong.
  const lines = error.message
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^The following errors? occurred:?$/i.test(l) && !/^See more help with/i.test(l))
  return new LoadoutError(
    'usage',
    EXIT.usage,
    lines.reduce((text, line) => (text === '' ? line : text.endsWith(':') ? `${text} ${line}` : `${text}; ${line}`), '') || error.message,
    {suggestions: ['see: loadout --help, or loadout <command> --help']},
  )
}

/** Maps anything thrown to a LoadoutError: oclif's parse failures are usage errors. */
export const toLoadoutError = (error: unknown): LoadoutError => asLoadoutError(error, fromOclif)

/**
 * The last word on a failure that no command caught (oclif's own, or its plugins'): the exit
 * status oclif asked for when it is an exit, else loadout's error line, or `{error}` under `--json`.
 */
export const reportFailure = (thrown: unknown, argv: readonly string[]): void => {
  if (thrown instanceof Errors.ExitError) {
    process.exitCode = thrown.oclif.exit ?? 0
    return
  }
  reportCommandFailure(thrown, toLoadoutError(thrown), argv.includes('--json') ? writeJson : undefined)
}

/**
 * Every loadout command: `--json` prints the typed result (or `{error}`), and a failure is one line
 * plus suggestions on stderr with a documented exit status, without a stack unless DEBUG=loadout*.
 */
export abstract class LoadoutCommand extends Command {
  static override enableJsonFlag = true

  /**
   * No argument is ever read from standard input: oclif fills a missing argument from a piped stdin
   * (a line piped to `outdated` or `verify` became the plugin to check, and they waited on a stdin left open).
   */
  protected override async parse<F extends Record<string, unknown>, B extends Record<string, unknown>, A extends Record<string, unknown>>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const input = options ?? (this.constructor as unknown as Interfaces.Input<F, B, A>)
    const args = Object.fromEntries(Object.entries(input.args ?? {}).map(([name, arg]) => [name, {...arg, ignoreStdin: true}]))
    // inherited statics (enableJsonFlag, baseFlags) are not copied by a spread of the class
    const explicit = {flags: input.flags, baseFlags: input.baseFlags, enableJsonFlag: input.enableJsonFlag, args}
    return super.parse({...input, ...explicit} as Interfaces.Input<F, B, A>, argv)
  }

  /** What the commands shared with the fast path (src/ui/shared-commands/) print through. */
  protected io(): CommandIo {
    return {env: withRequestPolicy(environmentFromProcess()), json: this.jsonEnabled(), log: (text) => this.log(text)}
  }

  /** Human output, with any control sequence a renderer let through escaped (terminalText). */
  override log(message = '', ...args: unknown[]): void {
    super.log(typeof message === 'string' ? terminalText(message) : message, ...args)
  }

  /** Without a JSON colour theme, oclif's colouring only re-tokenizes the text (slow on large results); print it as is. */
  override logJson(json: unknown): void {
    if (this.config.theme?.json) super.logJson(json)
    else writeJson(json)
  }

  override async catch(thrown: Error & {exitCode?: number}): Promise<unknown> {
    if (thrown instanceof Errors.ExitError) throw thrown
    reportCommandFailure(thrown, toLoadoutError(thrown), this.jsonEnabled() ? (value) => this.logJson(value) : undefined)
    return undefined
  }
}
