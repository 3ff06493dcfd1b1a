/**
 * Edits one table of a TOML config file (Codex's `config.toml`: `[mcp_servers.<name>]`) as text,
 * keeping every other byte, the user's comments included.
 *
 * smol-toml checks the text (before the edit, to refuse a broken file naming it; after, to be sure
 * the result reads back as exactly the entries written) and reads values. It has no notion of
 * where things are in the text, so a small line scanner of our own finds the table headers; it
 * knows strings of all four kinds, multi-line arrays and inline tables, and comments, so a `[x]`
 * inside a string or an array is never taken for a header. It only ever reads text that smol-toml
 * has accepted.
 *
 * ## Putting a file back exactly
 *
 * `editTomlTable` returns the new text and a `TomlEditUndo` (plain data: store it with the install
 * record). A new table is appended at the end of the file with one blank line before it; the undo
 * record says exactly what was put before it (nothing, one line break, or two when the file did not
 * end with one), so `removeTomlTable(edited, tablePath, file, undo)` returns the original byte for
 * byte. A replaced table's old text, byte for byte, is in `undo.previous`, which `undoTomlEdit` puts
 * back. Without the record, `removeTomlTable` assumes the common case (the file ended with one line
 * break and the set added the blank line).
 */
import {validationFailed} from '../../model/errors.js'
import {isTable, lookup, parseTomlText, showTable, tomlKey, tomlString} from './toml-read.js'

/** The values loadout writes into a table: what an MCP server entry needs. */
export type TomlEntryValue = string | number | boolean | string[] | Record<string, string>
export type TomlEntries = Record<string, TomlEntryValue>

/** What `editTomlTable` changed, enough to put the text back exactly. Plain data: store it as JSON. */
export interface TomlEditUndo {
  tablePath: string[]
  /** The table's text exactly as it was (header, body and sub-tables), when the edit replaced it. */
  previous?: string
  /** What the edit put between the old end of the file and the new table, when it appended one. */
  separator?: string
}

export interface TomlEdit {
  text: string
  undo: TomlEditUndo
}

// ---------------------------------------------------------------------------------------------
// Writing TOML text

const tomlValue = (key: string, value: unknown): string => {
  if (typeof value === 'string') return tomlString(value)
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${key}: ${value} cannot be written to TOML`)
    return String(value)
  }
  if (Array.isArray(value)) {
    return `[${value
      .map((item) => {
        if (typeof item !== 'string') throw new TypeError(`${key}: arrays written to TOML hold strings only`)
        return tomlString(item)
      })
      .join(', ')}]`
  }
  if (isTable(value)) {
    const pairs = Object.entries(value).map(([k, v]) => {
      if (typeof v !== 'string') throw new TypeError(`${key}.${k}: inline tables written to TOML hold strings only`)
      return `${tomlKey(k)} = ${tomlString(v)}`
    })
    return pairs.length === 0 ? '{}' : `{ ${pairs.join(', ')} }`
  }
  throw new TypeError(`${key}: ${value === null ? 'null' : typeof value} cannot be written to TOML`)
}

/** The header line and one `key = value` line per entry, each ending with `nl`. */
const renderTable = (tablePath: readonly string[], entries: TomlEntries, nl: string): string =>
  [showTable(tablePath), ...Object.entries(entries).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(k, v)}`)].map((line) => line + nl).join('')

// ---------------------------------------------------------------------------------------------
// The line scanner

interface TomlItem {
  kind: 'header' | 'array-header' | 'keyval' | 'comment' | 'blank'
  /** From the start of its first line to just after the line break that ends its last line (or EOF). */
  start: number
  end: number
  /** The decoded key path of a header. */
  path: string[]
}

const BARE_RUN = /[A-Za-z0-9_-]*/y

const decodeBasic = (raw: string): string =>
  raw.replace(/\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|([^]))/g, (_m, u?: string, U?: string, x?: string, c?: string) => {
    const hex = u ?? U ?? x
    if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16))
    return ({b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\u001b'} as Record<string, string>)[c as string] ?? (c as string)
  })

const QUOTE = 34
const APOSTROPHE = 39
const HASH = 35
const BACKSLASH = 92

/** A position in valid TOML text and the lexemes the line scanner steps over. */
class TomlCursor {
  i: number
  readonly n: number
  constructor(readonly text: string) {
    this.n = text.length
    this.i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  }

  code(at = this.i): number {
    return this.text.charCodeAt(at)
  }

  spaces(): void {
    while (this.code() === 32 || this.code() === 9) this.i++
  }

  toLineEnd(): void {
    const lf = this.text.indexOf('\n', this.i)
    this.i = lf < 0 ? this.n : lf + 1
  }

  /** Past a basic, literal or multi-line string starting at the cursor. */
  skipString(): void {
    const q = this.text[this.i] as string
    if (this.text.startsWith(q + q + q, this.i)) this.skipMultiline(q)
    else if (q === "'") {
      const e = this.text.indexOf("'", this.i + 1)
      this.i = e < 0 ? this.n : e + 1
    } else {
      this.i++
      this.skipEscapedUntil('"')
    }
  }

  private skipMultiline(q: string): void {
    this.i += 3
    if (q === "'") {
      const e = this.text.indexOf("'''", this.i)
      this.i = e < 0 ? this.n : e + 3
    } else this.skipEscapedUntil('"""')
    // Up to two quotes of content may stand right before the closing three.
    while (this.text[this.i] === q) this.i++
  }

  /** Past the next `close` that no backslash escapes. */
  private skipEscapedUntil(close: string): void {
    while (this.i < this.n) {
      if (this.code() === BACKSLASH) this.i += 2
      else if (this.text.startsWith(close, this.i)) {
        this.i += close.length
        return
      } else this.i++
    }
  }

  /** A dotted key, each part decoded. */
  readKey(): string[] {
    const parts: string[] = []
    for (;;) {
      this.spaces()
      const c = this.code()
      const s = this.i
      if (c === QUOTE || c === APOSTROPHE) {
        this.skipString()
        const raw = this.text.slice(s + 1, this.i - 1)
        parts.push(c === QUOTE ? decodeBasic(raw) : raw)
      } else {
        BARE_RUN.lastIndex = this.i
        BARE_RUN.test(this.text)
        this.i = BARE_RUN.lastIndex
        parts.push(this.text.slice(s, this.i))
      }
      this.spaces()
      if (this.code() !== 46) return parts
      this.i++
    }
  }

  /** Past the value of a key/value line: a string, or an array or inline table however many lines it spans. */
  skipValue(): void {
    this.spaces()
    const c = this.code()
    if (c === QUOTE || c === APOSTROPHE) this.skipString()
    else if (c === 91 || c === 123) this.skipBrackets()
  }

  private skipBrackets(): void {
    let depth = 0
    while (this.i < this.n) {
      const d = this.code()
      if (d === QUOTE || d === APOSTROPHE) {
        this.skipString()
        continue
      }
      if (d === HASH) {
        const lf = this.text.indexOf('\n', this.i)
        this.i = lf < 0 ? this.n : lf
        continue
      }
      this.i++
      if (d === 91 || d === 123) depth++
      else if ((d === 93 || d === 125) && --depth === 0) return
    }
  }

  /** Past the `=` of a key/value line. */
  skipKey(): void {
    while (this.i < this.n) {
      const d = this.code()
      if (d === QUOTE || d === APOSTROPHE) this.skipString()
      else if (d === 61) {
        this.i++
        return
      } else this.i++
    }
  }
}

/** The item that starts at the cursor, read up to the end of its last line. */
const readItem = (at: TomlCursor): TomlItem => {
  const start = at.i
  at.spaces()
  const c = at.code()
  let kind: TomlItem['kind']
  let path: string[] = []
  if (at.i >= at.n || c === 10 || (c === 13 && at.code(at.i + 1) === 10)) kind = 'blank'
  else if (c === HASH) kind = 'comment'
  else if (c === 91) {
    const array = at.code(at.i + 1) === 91
    at.i += array ? 2 : 1
    path = at.readKey()
    kind = array ? 'array-header' : 'header'
  } else {
    kind = 'keyval'
    at.skipKey()
    at.skipValue()
  }
  at.toLineEnd()
  return {kind, start, end: at.i, path}
}

/**
 * Cuts valid TOML into items, each a whole number of lines: headers (with their decoded path),
 * key/value lines (a multi-line value makes one item of several lines), comment lines and blank lines.
 */
const scanToml = (text: string): TomlItem[] => {
  const at = new TomlCursor(text)
  const items: TomlItem[] = []
  while (at.i < at.n) items.push(readItem(at))
  return items
}

// ---------------------------------------------------------------------------------------------
// Finding a table

interface TableSpan {
  /** Start of the header's line. */
  start: number
  /** Just after the table's last non-blank line (sub-tables that follow it included). */
  bodyEnd: number
  /** Also past the blank lines after it, up to the comments that sit on the next header. */
  segmentEnd: number
}

const isHeader = (item: TomlItem): boolean => item.kind === 'header' || item.kind === 'array-header'
const samePath = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((k, n) => k === b[n])
const isUnder = (path: readonly string[], prefix: readonly string[]): boolean => path.length > prefix.length && prefix.every((k, n) => k === path[n])

const shapeError = (file: string, message: string) =>
  validationFailed('config-toml-shape', `${file}: ${message}, so loadout cannot edit it`, {
    details: {file},
    suggestions: [`edit ${file} by hand, or remove that entry, and run the command again`],
  })

/**
 * Where the `[tablePath]` table is: its header, its key/value lines and the headers of its
 * sub-tables that follow it, up to the next other header (the comment lines directly above that
 * header belong to it) or the end of the file. Undefined when there is no such header.
 */
const locateTable = (items: TomlItem[], tablePath: readonly string[], file: string): TableSpan | undefined => {
  const h = items.findIndex((item) => isHeader(item) && samePath(item.path, tablePath))
  if (h < 0) return undefined
  const header = items[h] as TomlItem
  if (header.kind === 'array-header') throw shapeError(file, `[${showTable(tablePath)}] is an array of tables`)
  let k = h + 1
  while (k < items.length && !(isHeader(items[k] as TomlItem) && !isUnder((items[k] as TomlItem).path, tablePath))) k++
  for (let j = 0; j < items.length; j++) {
    const item = items[j] as TomlItem
    if ((j < h || j >= k) && isHeader(item) && isUnder(item.path, tablePath)) {
      throw shapeError(file, `${showTable(item.path)} stands apart from ${showTable(tablePath)}`)
    }
  }
  let last = k - 1
  if (k < items.length) while (last > h && (items[last] as TomlItem).kind === 'comment') last--
  let body = last
  while (body > h && (items[body] as TomlItem).kind === 'blank') body--
  return {start: header.start, bodyEnd: (items[body] as TomlItem).end, segmentEnd: (items[last] as TomlItem).end}
}

const newlineOf = (text: string): string => {
  const lf = text.indexOf('\n')
  return lf > 0 && text.charCodeAt(lf - 1) === 13 ? '\r\n' : '\n'
}

/** What goes between the end of the file and an appended table, so that one blank line is before it. */
const separatorFor = (text: string, nl: string): string => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (body === '') return ''
  if (!body.endsWith('\n')) return nl + nl
  return /(?:^|\n)[ \t]*\r?\n$/.test(body) ? '' : nl
}

const sameData = (a: unknown, b: unknown): boolean => {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, n) => sameData(v, b[n]))
  }
  if (isTable(a) || isTable(b)) {
    if (!isTable(a) || !isTable(b)) return false
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameData(a[k], b[k]))
  }
  return a === b
}

/** Reads an edit's result back; a result that is not TOML means the file had something in the way. */
const parseEdited = (text: string, file: string, tablePath: readonly string[]): Record<string, unknown> => {
  try {
    return parseTomlText(text, file)
  } catch (error) {
    throw validationFailed(
      'config-toml-conflict',
      `${file}: writing ${showTable(tablePath)} would clash with what the file already has (${(error as Error).message.replace(`${file}: `, '')})`,
      {
        details: {file, path: [...tablePath]},
        suggestions: [`look at how ${file} defines ${tablePath.slice(0, -1).map(tomlKey).join('.') || 'the table'}`],
        cause: error,
      },
    )
  }
}

// ---------------------------------------------------------------------------------------------
// Editing

/**
 * Adds the table `[tablePath]` with `entries` (one `key = value` line each, in order: strings,
 * numbers, booleans, arrays of strings, inline tables of strings), or replaces the existing one
 * (its header, key/value lines and sub-tables; the blank lines and the comments on the next
 * header stay). A new table goes at the end of the file with one blank line before it, using the
 * file's line breaks. Every other byte stays.
 *
 * Throws `config-not-toml` for a file that is not TOML, `config-toml-shape` when the table is
 * defined in a way loadout does not rewrite (dotted keys, an inline table, an array of tables, or
 * sub-tables apart from it) and `config-toml-conflict` when the result would not be TOML (say
 * `mcp_servers = {}` is an inline table). The result is read back and must hold exactly `entries`.
 */
export const editTomlTable = (text: string, tablePath: readonly string[], entries: TomlEntries, file: string): TomlEdit => {
  if (tablePath.length === 0) throw new TypeError('a TOML table path needs at least one key')
  const nl = newlineOf(text)
  const block = renderTable(tablePath, entries, nl)
  const data = parseTomlText(text, file)
  const span = locateTable(scanToml(text), tablePath, file)
  let out: string
  let undo: TomlEditUndo
  if (span) {
    out = text.slice(0, span.start) + block + text.slice(span.bodyEnd)
    undo = {tablePath: [...tablePath], previous: text.slice(span.start, span.bodyEnd)}
  } else {
    if (lookup(data, tablePath) !== undefined) {
      throw shapeError(file, `${showTable(tablePath)} is defined without a header of its own (with dotted keys or an inline table)`)
    }
    for (let d = 1; d < tablePath.length; d++) {
      const parent = lookup(data, tablePath.slice(0, d))
      if (parent !== undefined && !isTable(parent)) throw shapeError(file, `${tablePath.slice(0, d).map(tomlKey).join('.')} is not a table`)
    }
    const separator = separatorFor(text, nl)
    out = text + separator + block
    undo = {tablePath: [...tablePath], separator}
  }
  if (!sameData(lookup(parseEdited(out, file, tablePath), tablePath), entries)) {
    throw new Error(`internal error: writing ${showTable(tablePath)} to ${file} did not read back as written`)
  }
  return {text: out, undo}
}

/** `editTomlTable(...).text`. */
export const setTomlTable = (text: string, tablePath: readonly string[], entries: TomlEntries, file: string): string =>
  editTomlTable(text, tablePath, entries, file).text

/**
 * Removes the table `[tablePath]` (header, key/value lines, sub-tables, the blank lines after it);
 * no such table gives the text back unchanged. At the end of the file it also takes away the blank
 * line before it: with `undo` (what `editTomlTable` returned when it added this table) exactly what
 * that edit put there, so the text is byte for byte what it was; without, one line break when there
 * is a blank line.
 */
export const removeTomlTable = (text: string, tablePath: readonly string[], file: string, undo?: TomlEditUndo): string => {
  const data = parseTomlText(text, file)
  const span = locateTable(scanToml(text), tablePath, file)
  if (!span) {
    if (lookup(data, tablePath) !== undefined) {
      throw shapeError(file, `${showTable(tablePath)} is defined without a header of its own (with dotted keys or an inline table)`)
    }
    return text
  }
  let before = text.slice(0, span.start)
  const after = text.slice(span.segmentEnd)
  if (after === '') {
    if (undo?.separator !== undefined) {
      if (before.endsWith(undo.separator)) before = before.slice(0, before.length - undo.separator.length)
    } else if (/\n[ \t]*\r?\n$/.test(before)) {
      before = before.slice(0, before.endsWith('\r\n') ? -2 : -1)
    }
  }
  const out = before + after
  parseEdited(out, file, tablePath)
  return out
}

/** Reverts the edit `undo` records: the replaced table's old text goes back, or the added table goes. */
export const undoTomlEdit = (text: string, undo: TomlEditUndo, file: string): string => {
  if (undo.previous === undefined) return removeTomlTable(text, undo.tablePath, file, undo)
  parseTomlText(text, file)
  const span = locateTable(scanToml(text), undo.tablePath, file)
  if (!span) return text
  const out = text.slice(0, span.start) + undo.previous + text.slice(span.bodyEnd)
  parseEdited(out, file, undo.tablePath)
  return out
}

// ---------------------------------------------------------------------------------------------
// Many tables at once

/**
 * Adds or replaces several tables, with the same text and undo records as `editTomlTable` once per
 * table in order, reading the file a fixed number of times: the first goes through `editTomlTable`;
 * the rest, when none of them is there yet and each goes under a table that exists, are appended
 * with the separator one by one would put before each, and read back once. Otherwise one by one.
 */
export const editTomlTables = (
  text: string,
  tables: ReadonlyArray<{tablePath: readonly string[]; entries: TomlEntries}>,
  file: string,
): {text: string; undos: TomlEditUndo[]} => {
  const [first, ...rest] = tables
  if (!first) return {text, undos: []}
  const head = editTomlTable(text, first.tablePath, first.entries, file)
  const undos = [head.undo]
  if (rest.length === 0) return {text: head.text, undos}
  const data = parseTomlText(head.text, file)
  const names = new Set<string>([JSON.stringify(first.tablePath)])
  const appendable = rest.every(({tablePath}) => {
    const fresh = !names.has(JSON.stringify(tablePath)) && tablePath.length > 1 && lookup(data, tablePath) === undefined
    names.add(JSON.stringify(tablePath))
    return fresh && isTable(lookup(data, tablePath.slice(0, -1)))
  })
  if (!appendable) {
    let out = head.text
    for (const {tablePath, entries} of rest) {
      const edit = editTomlTable(out, tablePath, entries, file)
      out = edit.text
      undos.push(edit.undo)
    }
    return {text: out, undos}
  }
  const nl = newlineOf(head.text)
  let tail = head.text
  const parts = [head.text]
  for (const {tablePath, entries} of rest) {
    const block = renderTable(tablePath, entries, nl)
    // the separator depends only on how the text ends: here, with the block before
    const separator = separatorFor(tail, nl)
    parts.push(separator, block)
    undos.push({tablePath: [...tablePath], separator})
    tail = block
  }
  const out = parts.join('')
  const written = parseEdited(out, file, rest[0]!.tablePath)
  for (const {tablePath, entries} of rest) {
    if (!sameData(lookup(written, tablePath), entries))
      throw new Error(`internal error: writing ${showTable(tablePath)} to ${file} did not read back as written`)
  }
  return {text: out, undos}
}

/**
 * Removes several tables, in the order given, with the same result as `removeTomlTable` once per
 * table: when they are the file's last tables in reverse order of their appending (each with the
 * separator its undo record names before it), they go in one cut, read back once; otherwise one by one.
 */
export const removeTomlTables = (text: string, removals: ReadonlyArray<{tablePath: readonly string[]; undo?: TomlEditUndo}>, file: string): string => {
  const cut = removals.length > 1 ? cutTrailingTables(text, removals, file) : undefined
  if (cut !== undefined) return cut
  let out = text
  for (const {tablePath, undo} of removals) out = removeTomlTable(out, tablePath, file, undo)
  return out
}

const cutTrailingTables = (text: string, removals: ReadonlyArray<{tablePath: readonly string[]; undo?: TomlEditUndo}>, file: string): string | undefined => {
  parseTomlText(text, file)
  const items = scanToml(text)
  const ordered = [...removals].reverse()
  const spans: TableSpan[] = []
  for (const {tablePath, undo} of ordered) {
    const span = locateTable(items, tablePath, file)
    if (!span || undo?.separator === undefined || undo.previous !== undefined) return undefined
    spans.push(span)
  }
  for (const [n, span] of spans.entries()) {
    const next = spans[n + 1]
    const separator = (ordered[n + 1]?.undo as TomlEditUndo | undefined)?.separator ?? ''
    // each ends where the next one's separator begins, the last at the end of the file
    if (next ? span.segmentEnd !== next.start || !text.slice(0, next.start).endsWith(separator) : span.segmentEnd !== text.length) return undefined
  }
  const firstSpan = spans[0] as TableSpan
  const separator = (ordered[0]?.undo as TomlEditUndo).separator as string
  let before = text.slice(0, firstSpan.start)
  if (before.endsWith(separator)) before = before.slice(0, before.length - separator.length)
  const left = parseEdited(before, file, ordered[0]!.tablePath)
  if (ordered.some(({tablePath}) => lookup(left, tablePath) !== undefined))
    throw new Error(`internal error: a removal from ${file} did not read back as intended`)
  return before
}
