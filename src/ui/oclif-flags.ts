import {Args, Flags, type Interfaces} from '@oclif/core'
import {argsOf, type CommandSpec, type FlagSpec} from './command-spec.js'

type Char = Interfaces.AlphabetLowercase | Interfaces.AlphabetUppercase

export type OclifFlagOf<F extends FlagSpec> = F extends {type: 'boolean'}
  ? Interfaces.BooleanFlag<boolean>
  : F extends {type: 'integer'}
    ? Interfaces.OptionFlag<number | undefined>
    : F extends {multiple: true}
      ? Interfaces.OptionFlag<string[] | undefined>
      : Interfaces.OptionFlag<string | undefined>

export type OclifFlagsOf<S extends CommandSpec['flags']> = {[K in keyof S]: OclifFlagOf<S[K]>}

/** The oclif flag a neutral spec describes (command-spec.ts). */
export const oclifFlag = <F extends FlagSpec>(spec: F): OclifFlagOf<F> => {
  const common = {
    description: spec.description,
    ...(spec.char ? {char: spec.char as Char} : {}),
    ...(spec.exclusive ? {exclusive: [...spec.exclusive]} : {}),
    ...(spec.required ? {required: true} : {}),
  }
  if (spec.type === 'boolean') {
    return Flags.boolean({
      ...common,
      ...(spec.allowNo ? {allowNo: true} : {}),
      ...(spec.default === undefined ? {} : {default: spec.default === true}),
    }) as unknown as OclifFlagOf<F>
  }
  if (spec.type === 'integer') {
    const bounds = {...(spec.min === undefined ? {} : {min: spec.min}), ...(spec.max === undefined ? {} : {max: spec.max})}
    return Flags.integer({...common, ...bounds, ...(typeof spec.default === 'number' ? {default: spec.default} : {})}) as unknown as OclifFlagOf<F>
  }
  const string = {
    ...common,
    ...(spec.options ? {options: [...spec.options]} : {}),
    ...(spec.helpValue ? {helpValue: spec.helpValue} : {}),
    ...(spec.required ? {required: true} : {}),
  }
  if (!spec.multiple) return Flags.string({...string, ...(typeof spec.default === 'string' ? {default: spec.default} : {})}) as unknown as OclifFlagOf<F>
  return Flags.string({...string, multiple: true, ...(spec.nonGreedy ? {multipleNonGreedy: true} : {})}) as unknown as OclifFlagOf<F>
}

export const oclifFlags = <S extends CommandSpec['flags']>(specs: S): OclifFlagsOf<S> =>
  Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, oclifFlag(spec)])) as OclifFlagsOf<S>

/** The arguments as oclif declares them, in order (a variadic one with `strict = false` on the command). */
export const oclifArgs = (args: CommandSpec['args']) =>
  Object.fromEntries(argsOf(args).map((arg) => [arg.name, Args.string({description: arg.description, ...(arg.required ? {required: true} : {})})]))
