import {parseArgs, type ParseArgsConfig} from 'node:util'
import type {CommandSpec} from '../command-spec.js'

export interface FastParsed {
  flags: Record<string, string | boolean | undefined>
  argv: string[]
  json: boolean
}

type Options = NonNullable<ParseArgsConfig['options']>

/** The parseArgs options a spec describes (the same spec the oclif flags are made from), plus --json. */
export const parseOptions = (spec: CommandSpec): Options => {
  const options: Options = {json: {type: 'boolean'}}
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = {type: flag.type, ...(flag.char ? {short: flag.char} : {})}
  return options
}

/**
 * argv as oclif would read it, or undefined whenever the fast path cannot be sure it reads it the
 * same: a parse error, an unknown or repeated flag, `--`, a value oclif would refuse or might read
 * differently (empty, starting with `-`, `-s=x`, not one of its options), arguments to a command
 * that takes none (or more than its one, or none when it needs one), a multiple flag, and help. Undefined sends the command to oclif, whose words then apply.
 */
export const fastParse = (spec: CommandSpec, argv: readonly string[]): FastParsed | undefined => {
  if (argv.some((a) => a === '--help' || a === '-h' || a === '--')) return undefined
  let parsed
  try {
    parsed = parseArgs({args: [...argv], options: parseOptions(spec), strict: true, allowPositionals: spec.args !== undefined, tokens: true})
  } catch {
    return undefined
  }
  const seen = new Set<string>()
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue
    if (seen.has(token.name)) return undefined
    seen.add(token.name)
    if (token.inlineValue && !token.rawName.startsWith('--')) return undefined
    const flag = spec.flags[token.name]
    // oclif's multiple flags also take the words after them: leave those to oclif
    if (flag?.multiple) return undefined
    if (flag?.type !== 'string') continue
    const value = token.value ?? ''
    if (value === '' || value.startsWith('-')) return undefined
    if (flag.options && !flag.options.includes(value)) return undefined
  }
  if (parsed.positionals.some((p) => p.startsWith('-'))) return undefined
  if (spec.args && !spec.args.variadic && (parsed.positionals.length > 1 || (spec.args.required && parsed.positionals.length === 0))) return undefined
  const {json, ...flags} = parsed.values as Record<string, string | boolean | undefined>
  return {flags, argv: parsed.positionals, json: json === true}
}
