import type {Interfaces} from '@oclif/core'
import {LoadoutCommand} from './base-command.js'
import type {CommandSpec} from './command-spec.js'
import {oclifArgs, oclifFlags} from './oclif-flags.js'
import type {SharedCommand, SharedInput} from './shared-commands/types.js'

/** What oclif shows of a command beyond its flags: `loadout <command> --help`, the README table, completion. */
export interface CommandText {
  summary: string
  description?: string
  examples: string[]
}

/**
 * The oclif command of a shared body (src/ui/shared-commands): oclif parses with flags made from the
 * same spec the fast path reads, then the body runs. oclif keeps what only it does: help, completion
 * and the manifest, and every argv the fast path leaves to it.
 */
export const oclifCommand = <S extends CommandSpec, R>(shared: SharedCommand<S, R>, text: CommandText) => {
  class SharedBody extends LoadoutCommand {
    static override summary = text.summary
    static override examples = text.examples
    // a variadic argument: any number of words
    static override strict = !shared.spec.args?.variadic
    static override args = oclifArgs(shared.spec.args)
    static override flags = oclifFlags(shared.spec.flags)

    async run(): Promise<R> {
      // the words after `--` are the command's own, never read as flags (`mcp add x -- docker run --rm`)
      const split = shared.spec.passthrough ? this.argv.indexOf('--') : -1
      const own = split === -1 ? this.argv : this.argv.slice(0, split)
      // taken before the parse, which leaves in this.argv only the words it was given
      const passthrough = split === -1 ? {} : {passthrough: this.argv.slice(split + 1)}
      const {argv, flags} = await this.parse(
        SharedBody as unknown as Interfaces.Input<Record<string, unknown>, Record<string, unknown>, Record<string, unknown>>,
        own,
      )
      const input = {
        flags: flags as SharedInput<S>['flags'],
        argv: argv as string[],
        ...passthrough,
      }
      return shared.run(input, this.io())
    }
  }
  if (text.description) SharedBody.description = text.description
  return SharedBody
}
