import {usageError} from '../../model/errors.js'
import type {Source} from '../../model/source.js'
import {parseSource, type ParseSourceOptions} from '../sources/parse.js'
import {checkMarketplaceName, checkPluginName} from '../text/names.js'

/**
 * The one parse of what a user types to name a plugin (`install`, `update`, a dependency string).
 * Pure: it reads no files; whether a marketplace exists is the resolver's question.
 *
 * | form | example | parsed |
 * |---|---|---|
 * | `name` | `review` | the plugin in whichever one marketplace lists it |
 * | `name@marketplace` | `review@acme` | the plugin in that marketplace, at its catalog entry |
 * | `name@range` | `review@^1.2`, `review@1.2.0`, `review@>=1 <3` | the one marketplace listing it, at a version the range allows; a range that is also a marketplace name (`1.2.0`) means that marketplace when one is known by it (`rangeOrMarketplace`) |
 * | `name@marketplace@range` | `review@acme@~2.1` | that marketplace at a version the range allows (an exact version is a range of one) |
 * | a source | `owner/repo`, `./dir`, `https://host/x.git`, `npm:pkg` | what `parseSource` makes of it (anything with `/`, `:`, `\`, `~`, or a leading `.`, that is not a form above) |
 *
 * A range is told from a marketplace by its first character: a digit, `^`, `~`, `<`, `>`, `=`, `*`,
 * or `v` and a digit. Everything else (an empty part, a third `@`, a control character, more than
 * MAX_INPUT characters) is refused with `bad-plugin-spec`.
 */
export interface PluginSpec {
  form: 'plugin'
  name: string
  marketplace?: string
  range?: string
  /** `name@X` where X reads as a range and is also a valid marketplace name: a known marketplace X wins */
  rangeOrMarketplace?: boolean
}

export type PluginInput = PluginSpec | {form: 'source'; source: Source}

export const MAX_INPUT = 4096

export const PLUGIN_INPUT_FORMS = ['name', 'name@marketplace', 'name@range', 'name@marketplace@range', 'a source (owner/repo, ./folder, URL, npm:package)']

// name: no "@", path or source characters, no leading "."; the middle part likewise; the range anything but "@"
const PLUGIN_FORM = /^([^@/\\:~.][^@/\\:~]*|)(?:@([^@/\\:]*)(?:@([^@]*))?)?$/
const RANGE_START = /^(?:[\d^~<>=*]|v\d)/
const CONTROL = /[\u0000-\u001f\u007f]/
const SOURCE_SIGN = /[/:\\~]/

const shown = (input: string): string => JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}...` : input)

const refused = (input: string, why: string) =>
  usageError('bad-plugin-spec', `${shown(input)} ${why}`, {
    suggestions: [`write one of: ${PLUGIN_INPUT_FORMS.join(', ')}`],
  })

const looksLikeSource = (input: string): boolean => SOURCE_SIGN.test(input) || input.startsWith('.')

/** The plugin forms only (no source): a dependency string, or the first try on what a user typed. Undefined when the text has no plugin form. */
export const parsePluginSpec = (input: string): PluginSpec | undefined => {
  if (input.length > MAX_INPUT) throw refused(input, `is ${input.length} characters long; the limit is ${MAX_INPUT}`)
  const match = PLUGIN_FORM.exec(input)
  if (!match) return undefined
  if (CONTROL.test(input)) throw refused(input, 'contains a control character')
  const [, name = '', second, third] = match
  if (name === '') throw refused(input, 'has no plugin name before "@"')
  const nameRule = checkPluginName(name)
  if (nameRule) throw refused(input, `names plugin ${JSON.stringify(name)}, which ${nameRule}`)
  if (second === '') throw refused(input, third === undefined ? 'ends with "@" and nothing after it' : 'has an empty marketplace between "@@"')
  if (third === '') throw refused(input, 'ends with "@" and no version or range after it')
  if (second !== undefined && SOURCE_SIGN.test(second) && !RANGE_START.test(second)) return undefined
  if (third !== undefined) return {form: 'plugin', name, marketplace: second!, range: third}
  if (second === undefined) return {form: 'plugin', name}
  if (!RANGE_START.test(second)) return {form: 'plugin', name, marketplace: second}
  return {form: 'plugin', name, range: second, ...(checkMarketplaceName(second) === undefined ? {rangeOrMarketplace: true} : {})}
}

/** What a user typed for a plugin: one of the plugin forms, else a source, else `bad-plugin-spec`. */
export const parsePluginInput = (input: string, sourceOptions: ParseSourceOptions): PluginInput => {
  if (input.trim() === '') throw refused(input, 'is empty')
  const spec = parsePluginSpec(input)
  if (spec) return spec
  if (looksLikeSource(input)) return {form: 'source', source: parseSource(input, sourceOptions)}
  throw refused(input, 'is neither a plugin spec nor a source')
}
