/**
 * Reading a TOML config file (Codex's `config.toml`) and the quoting its messages and edits share:
 * what `list`, `verify` and the install plan need, apart from the editing in toml-edit.ts, which
 * only a change loads.
 */
import {validationFailed} from '../../model/errors.js'
import {smolToml} from '../text/toml-lazy.js'

/**
 * Parses TOML text (a leading byte-order mark is skipped). Invalid text throws `config-not-toml`
 * naming the file, line and column.
 */
export const parseTomlText = (text: string, file: string): Record<string, unknown> => {
  try {
    return smolToml().parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as Record<string, unknown>
  } catch (error) {
    if (!(error instanceof smolToml().TomlError)) throw error
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '')
    throw validationFailed('config-not-toml', `${file}: not valid TOML: ${reason} at line ${error.line}, column ${error.column}`, {
      details: {file, line: error.line, column: error.column},
      suggestions: [`fix ${file} (loadout edits only a file it can read) and run the command again`],
      cause: error,
    })
  }
}

export const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)

export const lookup = (data: Record<string, unknown>, path: readonly string[]): unknown => {
  let value: unknown = data
  for (const key of path) {
    if (!isTable(value) || !Object.hasOwn(value, key)) return undefined
    value = value[key]
  }
  return value
}

/**
 * The table at `tablePath` (`['mcp_servers', 'review-lint']`), or undefined when there is none.
 * Something other than a table there throws `config-not-table`; invalid TOML throws `config-not-toml`.
 */
export const getTomlTable = (text: string, tablePath: readonly string[], file = 'TOML text'): Record<string, unknown> | undefined =>
  tomlTableIn(parseTomlText(text, file), tablePath, file)

/** `getTomlTable` on what `parseTomlText` returned: many tables of one file, parsed once. */
export const tomlTableIn = (data: Record<string, unknown>, tablePath: readonly string[], file: string): Record<string, unknown> | undefined => {
  const value = lookup(data, tablePath)
  if (value === undefined || isTable(value)) return value
  throw validationFailed('config-not-table', `${file}: ${showTable(tablePath)} is not a table`, {details: {file, path: [...tablePath]}})
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/
const LONE_SURROGATE = /\p{Surrogate}/u
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f]/g
const SHORT_ESCAPES: Record<string, string> = {'\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\'}

/** A TOML basic string: quotes, backslashes and control characters escaped; other characters as they are. */
export const tomlString = (value: string): string => {
  if (LONE_SURROGATE.test(value)) throw new TypeError(`${JSON.stringify(value)} has a lone surrogate, which TOML cannot hold`)
  return `"${value.replace(NEEDS_ESCAPE, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`
}

/** A key as TOML writes it: bare when it can be (`A-Za-z0-9_-`), quoted otherwise (`"my.server"`). */
export const tomlKey = (key: string): string => (BARE_KEY.test(key) ? key : tomlString(key))

/** `[mcp_servers."my.server"]` */
export const showTable = (path: readonly string[]): string => `[${path.map(tomlKey).join('.')}]`
