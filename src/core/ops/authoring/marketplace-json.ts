/**
 * JSON files as an author keeps them: read with every defect reported (size, encoding, a byte-order
 * mark, syntax, duplicate keys), and edited in place, one value at a time, so that `--fix` and
 * `add-plugin` change only the bytes they mean to and keep the author's layout and key order.
 */
import {closeSync, constants, fstatSync, lstatSync, openSync, readSync} from 'node:fs'
import {errnoCode, isLoadoutError} from '../../model/errors.js'
import {resolvesInside, safeRealpath} from '../../kernel/fs/contain.js'
import {jsonLayout as scanLayout} from '../../kernel/json/scan.js'
import {jsonPathJoin} from '../../kernel/json/path.js'
import {parseJsonBounded} from '../../kernel/json/json-depth.js'
import {problem, type Problem} from '../../model/problems.js'
import {lineAndColumn} from '../../kernel/text/text.js'

/** Where one value sits in the text: `text.slice(start, end)` is its JSON. */
export interface JsonSpan {
  start: number
  end: number
}

export interface DuplicateKey {
  /** the JSON path of the repeated member, e.g. `plugins[0].name` */
  path: string
  key: string
  line: number
  column: number
  /** the line where the key first appeared */
  firstLine: number
}

export interface JsonLayout {
  duplicates: DuplicateKey[]
  /** every value by JSON path (for a repeated key, the last one, which is the one JSON.parse keeps) */
  spans: Map<string, JsonSpan>
}

/**
 * Where every value of a JSON text is, and which object keys repeat. `JSON.parse` silently keeps
 * the last of two equal keys; another reader may keep the first, so a repeated key is a defect.
 * The text must already have parsed.
 */
export const jsonLayout = (text: string): JsonLayout => {
  const layout = scanLayout(text)
  const spans = new Map<string, JsonSpan>()
  for (const [path, {start, end}] of layout.spans) spans.set(path, {start, end})
  const duplicates = layout.repeated.map((r): DuplicateKey => {
    const at = lineAndColumn(text, r.at)
    return {path: r.path, key: r.key, line: at.line, column: at.column, firstLine: lineAndColumn(text, r.first).line}
  })
  return {duplicates, spans}
}

export interface TextEdit {
  start: number
  end: number
  text: string
}

/** Applies non-overlapping edits to `text`. */
export const applyEdits = (text: string, edits: readonly TextEdit[]): string => {
  let out = text
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end)
  return out
}

/** The indentation of the line `at` is on, up to `at` (empty when something else comes first). */
const indentBefore = (text: string, at: number): string | undefined => {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1
  const before = text.slice(lineStart, at)
  return /^[ \t]*$/.test(before) ? before : undefined
}

/**
 * The edit that appends `value` to the array at `path`, laid out like its neighbours: on its own
 * line with their indentation when they are on lines of their own, else inline after a comma.
 */
export const appendToArray = (text: string, layout: JsonLayout, path: string, value: unknown): TextEdit => {
  const array = layout.spans.get(path)
  if (!array || text.charAt(array.start) !== '[') throw new Error(`${path} is not an array in this text`)
  const items: JsonSpan[] = []
  for (let index = 0; ; index++) {
    const span = layout.spans.get(jsonPathJoin(path, index))
    if (!span || span.start >= array.end) break
    items.push(span)
  }
  const arrayIndent = indentBefore(text, array.start) ?? lineIndentOf(text, array.start)
  const detected = text.slice(array.start, array.end).match(/\n([ \t]+)\S/)?.[1]
  const step = detected && detected.length > arrayIndent.length ? detected.slice(arrayIndent.length) : '  '
  const last = items.at(-1)
  if (!last) {
    const itemIndent = arrayIndent + step
    const json = indentJson(value, itemIndent, step)
    return {start: array.start, end: array.end, text: `[\n${itemIndent}${json}\n${arrayIndent}]`}
  }
  const ownLine = indentBefore(text, items[0]!.start)
  if (ownLine === undefined) {
    return {start: last.end, end: last.end, text: `, ${JSON.stringify(value)}`}
  }
  return {start: last.end, end: last.end, text: `,\n${ownLine}${indentJson(value, ownLine, step)}`}
}

const lineIndentOf = (text: string, at: number): string => {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1
  return /^[ \t]*/.exec(text.slice(lineStart, at))![0]
}

/** JSON of `value` with `step` per level, its continuation lines starting at `indent`. */
const indentJson = (value: unknown, indent: string, step: string): string => JSON.stringify(value, null, step).split('\n').join(`\n${indent}`)

/** A JSON file read for checking: the value and its layout, or what kept it from being read. */
export interface AuthoringJson {
  /** the text without its byte-order mark */
  text: string
  bom: boolean
  data: unknown
  layout: JsonLayout
}

export interface ReadAuthoringJsonOptions {
  /** the folder the file must stay inside (a link may not lead out of it) */
  root: string
  /** how the file is named in problems */
  file: string
  maxBytes: number
}

// ignoreBOM keeps a byte-order mark in the text (by default the decoder drops it unseen), so it can be reported
const UTF8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

/**
 * Reads a JSON file that an author wrote. Every defect is a problem naming the file: a link out of
 * `root`, a file that is not a regular file, too large (checked before a byte is read), not UTF-8,
 * not JSON or nested absurdly deep; a byte-order mark and repeated keys are problems too, but the
 * value is still returned so the rest of the file can be checked.
 */
export const readAuthoringJson = (abs: string, options: ReadAuthoringJsonOptions): {json?: AuthoringJson; problems: Problem[]} => {
  const {file} = options
  const fail = (code: string, message: string) => ({problems: [problem('error', code, message, {file})]})
  let link: boolean
  try {
    link = lstatSync(abs).isSymbolicLink()
  } catch (error) {
    return fail('file-unreadable', `cannot read ${file}: ${errnoCode(error) ?? String(error)}`)
  }
  if (link && !resolvesInside(options.root, abs)) {
    return fail('file-link-outside', `${file} is a symbolic link to ${safeRealpath(abs) ?? 'a missing file'}, outside ${options.root}; it is not read`)
  }
  let fd: number
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    return fail('file-unreadable', `cannot read ${file}: ${errnoCode(error) ?? String(error)}`)
  }
  let bytes: Buffer
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return fail('file-not-regular', `${file} is not a regular file`)
    if (info.size > options.maxBytes) {
      return fail('file-too-large', `${file} is ${info.size} bytes; the limit is ${options.maxBytes} bytes (${Math.round(options.maxBytes / 1024 / 1024)} MiB)`)
    }
    bytes = Buffer.alloc(info.size)
    let read = 0
    while (read < info.size) {
      const n = readSync(fd, bytes, read, info.size - read, read)
      if (n === 0) break
      read += n
    }
    bytes = bytes.subarray(0, read)
  } finally {
    closeSync(fd)
  }
  let decoded: string
  try {
    decoded = UTF8.decode(bytes)
  } catch {
    const at = firstInvalidUtf8(bytes)
    return fail('file-not-utf8', `${file} is not valid UTF-8 text (the first bad byte is at offset ${at}); save it as UTF-8`)
  }
  const bom = decoded.charCodeAt(0) === 0xfeff
  const text = bom ? decoded.slice(1) : decoded
  let data: unknown
  try {
    data = parseJsonBounded(text, file)
  } catch (error) {
    if (!isLoadoutError(error)) throw error
    const message = error.message.startsWith(`${file}: `) ? error.message.slice(file.length + 2) : error.message
    return fail(error.code === 'catalog-too-deep' ? 'json-too-deep' : 'json-invalid', `${file}: ${message}`)
  }
  const layout = jsonLayout(text)
  const problems: Problem[] = []
  if (bom) {
    problems.push(
      problem('error', 'json-bom', `${file} starts with a byte-order mark, which JSON forbids and many readers reject; save it as UTF-8 without a BOM`, {file}),
    )
  }
  for (const d of layout.duplicates) {
    problems.push(
      problem(
        'error',
        'json-duplicate-key',
        `the key ${JSON.stringify(d.key)} appears twice in one object (lines ${d.firstLine} and ${d.line}); readers disagree on which one counts, so keep only one`,
        {
          file,
          path: d.path,
        },
      ),
    )
  }
  return {json: {text, bom, data, layout}, problems}
}

/** The offset of the first byte that breaks UTF-8 (a plain walk over the lead and continuation bytes). */
const firstInvalidUtf8 = (bytes: Uint8Array): number => {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    const extra = lead < 0x80 ? 0 : lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1
    if (extra < 0) return i
    for (let k = 1; k <= extra; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i
    i += extra + 1
  }
  return i
}
