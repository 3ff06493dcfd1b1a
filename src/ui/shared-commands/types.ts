import type {CommandIo} from '../command-io.js'
import type {CommandSpec} from '../command-spec.js'

export type FlagValues<F extends CommandSpec['flags']> = {
  [K in keyof F]?: F[K] extends {type: 'boolean'} ? boolean : F[K] extends {type: 'integer'} ? number : F[K] extends {multiple: true} ? string[] : string
}

export interface SharedInput<S extends CommandSpec> {
  flags: FlagValues<S['flags']>
  /** the words of the argument (one, or any number for a variadic one) */
  argv: string[]
  /** with `spec.passthrough`: the words after `--`, verbatim (undefined when there was no `--`) */
  passthrough?: string[]
}

/**
 * A read-only command as both paths run it: the oclif command (src/commands) parses with oclif flags
 * made from `spec`, the fast path (src/ui/fast) with parseArgs options made from the same `spec`;
 * both then call `run`, which calls the core and renders.
 */
export interface SharedCommand<S extends CommandSpec, R> {
  spec: S
  run(input: SharedInput<S>, io: CommandIo): Promise<R>
  /** the fast path takes the command only when this holds (a writer: only off a terminal, where it asks nothing) */
  fastWhen?(io: CommandIo): boolean
  /** it makes requests: its environment carries the policy that judges each one (only such commands load it) */
  requests?: true
}

export const sharedCommand = <S extends CommandSpec, R>(
  spec: S,
  run: SharedCommand<S, R>['run'],
  options: Pick<SharedCommand<S, R>, 'fastWhen' | 'requests'> = {},
): SharedCommand<S, R> => ({spec, run, ...options})
