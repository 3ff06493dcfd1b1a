import type {ParseArgsConfig} from 'node:util'
import {argsOf, type CommandSpec, type FlagSpec} from '../command-spec.js'

export interface FastParsed {
  flags: Record<string, string | boolean | number | string[] | undefined>
  argv: string[]
  /** the words after `--`, for a command whose spec takes them */
  passthrough?: string[]
  json: boolean
}

type Options = NonNullable<ParseArgsConfig['options']>

/** The parseArgs options a spec describes (the same spec the oclif flags are made from), plus --json. */
export const parseOptions = (spec: CommandSpec): Options => {
  const options: Options = {json: {type: 'boolean'}}
  for (const [name, flag] of Object.entries(spec.flags)) {
    options[name] = {type: flag.type === 'boolean' ? 'boolean' : 'string', ...(flag.char ? {short: flag.char} : {}), ...(flag.multiple ? {multiple: true} : {})}
  }
  return options
}

/** An integer flag's value as oclif reads it, or undefined when oclif might read it otherwise (or refuse it). */
const integerOf = (flag: FlagSpec, value: string): number | undefined => {
  if (!/^-?\d+$/.test(value)) return undefined
  const n = Number(value)
  if (!Number.isSafeInteger(n) || (flag.min !== undefined && n < flag.min) || (flag.max !== undefined && n > flag.max)) return undefined
  return n
}

/** `--no-<name>` of the flags that allow it, taken out of argv and answered as false; undefined for a `--no-` flag that does not exist. */
const negations = (spec: CommandSpec, argv: readonly string[]): {rest: string[]; negated: string[]} | undefined => {
  const rest: string[] = []
  const negated: string[] = []
  for (const word of argv) {
    const name = word.startsWith('--no-') ? word.slice(5) : undefined
    if (name === undefined || spec.flags[word.slice(2)]) rest.push(word)
    else if (spec.flags[name]?.allowNo) negated.push(name)
    else return undefined
  }
  return {rest, negated}
}

/** One flag given: its name, the word that named it, and its value (a string flag's). */
interface FlagToken {
  name: string
  rawName: string
  value?: string
  inlineValue: boolean
}

/**
 * argv read by `options`, strictly and only in its plain forms: `--name`, `--name=value`, `--name
 * value`, `-c`, `-c value` of a known flag, and words. Anything else (an unknown flag, a value left out
 * or given to a switch, `-abc`, a word where the command takes none) is undefined: oclif reads it.
 * Node's `util.parseArgs` read it before, at ~0.9 ms of every run (loading it, and its first call).
 */
const readFlags = (
  options: Options,
  args: readonly string[],
  allowPositionals: boolean,
): {tokens: FlagToken[]; positionals: string[]; values: Record<string, string | boolean | Array<string | boolean>>} | undefined => {
  const tokens: FlagToken[] = []
  const positionals: string[] = []
  const values: Record<string, string | boolean | Array<string | boolean>> = {}
  const byShort = new Map(Object.entries(options).flatMap(([name, option]) => (option.short ? [[option.short, name] as const] : [])))
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!
    if (!word.startsWith('-') || word === '-') {
      if (!allowPositionals) return undefined
      positionals.push(word)
      continue
    }
    const equals = word.startsWith('--') ? word.indexOf('=') : -1
    const name = word.startsWith('--') ? word.slice(2, equals === -1 ? undefined : equals) : word.length === 2 ? byShort.get(word[1]!) : undefined
    const option = name !== undefined && Object.hasOwn(options, name) ? options[name] : undefined
    if (name === undefined || !option) return undefined
    const inline = equals === -1 ? undefined : word.slice(equals + 1)
    if (option.type === 'boolean' && inline !== undefined) return undefined
    const value = option.type === 'boolean' ? undefined : (inline ?? args[++i])
    if (option.type === 'string' && value === undefined) return undefined
    tokens.push({name, rawName: word, ...(value === undefined ? {} : {value}), inlineValue: inline !== undefined})
    const read = value ?? true
    if (option.multiple) {
      const list = values[name]
      values[name] = Array.isArray(list) ? [...list, read] : [read]
    } else values[name] = read
  }
  return {tokens, positionals, values}
}

/**
 * argv as oclif would read it, or undefined whenever the fast path cannot be sure it reads it the
 * same: a parse error, an unknown or repeated flag, `--` (unless the command takes the words after it),
 * a value oclif would refuse or might read differently (empty, starting with `-`, `-s=x`, not one of
 * its options, an integer out of bounds), flags given together that exclude each other, a required flag
 * missing, arguments to a command that takes none (or more than it takes, or fewer than it needs), a
 * greedy multiple flag, and help. Undefined sends the command to oclif, whose words then apply.
 */
export const fastParse = (spec: CommandSpec, argv: readonly string[]): FastParsed | undefined => {
  const split = argv.indexOf('--')
  if (split !== -1 && !spec.passthrough) return undefined
  const own = split === -1 ? argv : argv.slice(0, split)
  if (own.some((a) => a === '--help' || a === '-h')) return undefined
  const negation = negations(spec, own)
  if (!negation) return undefined
  const args = argsOf(spec.args)
  const parsed = readFlags(parseOptions(spec), negation.rest, args.length > 0)
  if (!parsed) return undefined
  const seen = new Set<string>(negation.negated)
  const flags: FastParsed['flags'] = {}
  for (const token of parsed.tokens) {
    const flag = spec.flags[token.name]
    if (seen.has(token.name) && !flag?.multiple) return undefined
    seen.add(token.name)
    if (token.inlineValue && !token.rawName.startsWith('--')) return undefined
    // oclif's greedy multiple flags also take the words after them: leave those to oclif
    if (flag?.multiple && !flag.nonGreedy) return undefined
    if (flag === undefined || flag.type === 'boolean') continue
    const value = token.value ?? ''
    if (value === '' || value.startsWith('-')) return undefined
    if (flag.options && !flag.options.includes(value)) return undefined
    if (flag.type === 'integer') {
      const n = integerOf(flag, value)
      if (n === undefined) return undefined
      flags[token.name] = n
    }
  }
  for (const name of seen) if (spec.flags[name]?.exclusive?.some((other) => seen.has(other))) return undefined
  if (Object.entries(spec.flags).some(([name, flag]) => flag.required && !seen.has(name))) return undefined
  if (parsed.positionals.some((p) => p.startsWith('-'))) return undefined
  if (args.some((arg, i) => arg.required && parsed.positionals.length <= i)) return undefined
  if (!args.some((arg) => arg.variadic) && parsed.positionals.length > args.length) return undefined
  const {json, ...values} = parsed.values as Record<string, string | boolean | string[] | undefined>
  for (const [name, flag] of Object.entries(spec.flags)) {
    if (flags[name] === undefined) flags[name] = negation.negated.includes(name) ? false : (values[name] ?? flag.default)
  }
  return {
    flags: Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)),
    argv: parsed.positionals,
    ...(split === -1 ? {} : {passthrough: argv.slice(split + 1)}),
    json: json === true,
  }
}
