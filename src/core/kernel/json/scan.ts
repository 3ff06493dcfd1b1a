/**
 * One way to read JSON text for what `JSON.parse` does not say: where each value sits, which keys
 * an object holds twice, the first mistake with a message a person can act on, and a depth limit.
 * The scanning is Microsoft's `jsonc-parser` (the scanner VS Code reads its settings with); this
 * module adds the two things loadout needs around it:
 *
 *  - it stops at the first mistake and words it by what was expected where (`expected "," or "}"
 *    after a property, found "2"`), pointing into a string at the escape or character that is wrong;
 *  - it stops as soon as nesting passes `maxDepth`. `jsonc-parser` recurses once per level, so a
 *    hostile document of 100,000 `[` would overflow the stack: with the limit, recursion never goes
 *    deeper than `maxDepth`, whatever the text. Keep `maxDepth` at a few thousand at most.
 *
 * A byte-order mark at the start is read as a space, so offsets stay those of the text.
 */
import {ParseErrorCode, type JSONPath, type JSONVisitor} from 'jsonc-parser'
import {jsonc} from './jsonc.js'
import {jsonPathJoin} from './path.js'

export type {JSONPath} from 'jsonc-parser'

/** The first thing wrong with a text: where (an offset) and what. */
export interface JsonMistake {
  at: number
  message: string
  /** Nesting went past `maxDepth` (`message` then only names the limit). */
  tooDeep: boolean
}

export interface JsonScanOptions {
  /** Accept `//` and block comments and trailing commas, as VS Code does in its settings. */
  jsonc?: boolean
  maxDepth: number
}

/** What the scan saw, for the callbacks of `scanJson`. Offsets and lengths are in the text. */
export interface JsonScanVisitor {
  objectBegin?: (offset: number, path: () => JSONPath) => void
  objectEnd?: (offset: number) => void
  arrayBegin?: (offset: number, path: () => JSONPath) => void
  arrayEnd?: (offset: number) => void
  property?: (name: string, offset: number, length: number, path: () => JSONPath) => void
  literal?: (value: unknown, offset: number, length: number, path: () => JSONPath) => void
  separator?: (char: string, offset: number) => void
  comment?: (offset: number, length: number) => void
}

type Expect = 'value' | 'key' | 'colon' | 'object-next' | 'array-next' | 'end'

const STOP = Symbol('stop')

const shown = (text: string, at: number): string => (at >= text.length ? 'the end of the text' : JSON.stringify(text.charAt(at)))

const EXPECTED: Record<Expect, string> = {
  value: 'expected a value',
  key: 'expected a double-quoted property name',
  colon: 'expected ":" after a property name',
  'object-next': 'expected "," or "}" after a property',
  'array-next': 'expected "," or "]" after an array element',
  end: 'unexpected text after the end of the JSON value',
}

/** Everything a JSON string may hold up to its closing quote; where this stops is what is wrong. */
const STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y

/** What is wrong inside the string token at `offset`, and exactly where. */
const stringMistake = (text: string, offset: number): JsonMistake => {
  STRING_BODY.lastIndex = offset + 1
  STRING_BODY.test(text)
  const at = STRING_BODY.lastIndex
  const c = text.charAt(at)
  if (at >= text.length) return {at: offset, message: 'a string that is never closed', tooDeep: false}
  if (c === '\\') {
    if (text.charAt(at + 1) === 'u') return {at, message: 'a \\u escape needs four hexadecimal digits', tooDeep: false}
    return {at, message: `unknown escape \\${text.charAt(at + 1)} in a string`, tooDeep: false}
  }
  return {at, message: 'a control character in a string (write it as an escape such as \\n)', tooDeep: false}
}

const describe = (text: string, code: ParseErrorCode, offset: number, expect: Expect): JsonMistake => {
  switch (code) {
    case ParseErrorCode.InvalidUnicode:
    case ParseErrorCode.InvalidEscapeCharacter:
    case ParseErrorCode.InvalidCharacter:
    case ParseErrorCode.UnexpectedEndOfString:
      return stringMistake(text, offset)
    case ParseErrorCode.UnexpectedEndOfNumber:
    case ParseErrorCode.InvalidNumberFormat:
      return {at: offset, message: 'a malformed number', tooDeep: false}
    case ParseErrorCode.UnexpectedEndOfComment:
      return {at: offset, message: 'a comment that is never closed', tooDeep: false}
    default:
      if (expect === 'value' && offset >= text.length && /^\uFEFF?[ \t\r\n]*$/.test(text)) {
        return {at: offset, message: 'the text is empty', tooDeep: false}
      }
      if (expect === 'end') return {at: offset, message: `unexpected ${shown(text, offset)} after the end of the JSON value`, tooDeep: false}
      return {at: offset, message: `${EXPECTED[expect]}, found ${shown(text, offset)}`, tooDeep: false}
  }
}

/**
 * Reads the whole text, calling `on` for what it finds in order, and returns undefined; or stops
 * at the first mistake (or where nesting passes `maxDepth`) and returns it. Callbacks made before
 * the mistake stay made.
 */
export const scanJson = (text: string, on: JsonScanVisitor, options: JsonScanOptions): JsonMistake | undefined => {
  const body = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text
  const arrays: boolean[] = []
  let expect: Expect = 'value'
  // What was expected just before the last container ended: the one to name when its end is missing.
  let beforeEnd: Expect = 'value'
  let mistake: JsonMistake | undefined
  const afterValue = (): void => {
    expect = arrays.length === 0 ? 'end' : arrays[arrays.length - 1] ? 'array-next' : 'object-next'
  }
  const open = (array: boolean, offset: number): void => {
    if (arrays.length >= options.maxDepth) {
      mistake = {at: offset, message: `nests more than ${options.maxDepth} levels deep`, tooDeep: true}
      throw STOP
    }
    arrays.push(array)
    expect = array ? 'value' : 'key'
  }
  const visitor: JSONVisitor = {
    onObjectBegin: (offset, _length, _line, _column, path) => {
      open(false, offset)
      on.objectBegin?.(offset, path)
    },
    onObjectEnd: (offset) => {
      beforeEnd = expect
      arrays.pop()
      afterValue()
      on.objectEnd?.(offset)
    },
    onArrayBegin: (offset, _length, _line, _column, path) => {
      open(true, offset)
      on.arrayBegin?.(offset, path)
    },
    onArrayEnd: (offset) => {
      beforeEnd = expect
      arrays.pop()
      afterValue()
      on.arrayEnd?.(offset)
    },
    onObjectProperty: (name, offset, length, _line, _column, path) => {
      expect = 'colon'
      on.property?.(name, offset, length, path)
    },
    onLiteralValue: (value, offset, length, _line, _column, path) => {
      afterValue()
      on.literal?.(value, offset, length, path)
    },
    onSeparator: (char, offset) => {
      expect = char === ':' || arrays[arrays.length - 1] ? 'value' : 'key'
      on.separator?.(char, offset)
    },
    onComment: (offset, length) => on.comment?.(offset, length),
    onError: (code, offset) => {
      const unclosed = code === ParseErrorCode.CloseBraceExpected || code === ParseErrorCode.CloseBracketExpected
      mistake = describe(body, code, offset, unclosed ? beforeEnd : expect)
      throw STOP
    },
  }
  try {
    jsonc().visit(body, visitor, {allowTrailingComma: options.jsonc === true, disallowComments: options.jsonc !== true})
  } catch (error) {
    if (error !== STOP) throw error
  }
  return mistake
}

/** Where one value sits in the text: `text.slice(start, end)` is its JSON. */
export interface JsonValueSpan {
  start: number
  end: number
  /** The value is a string (its span includes the quotes). */
  string: boolean
}

/** A key that an object holds more than once. */
export interface RepeatedKey {
  /** The path of the object that holds it ('' for the top level). */
  parent: string
  /** The path of the repeated member. */
  path: string
  key: string
  /** Where this appearance of the key starts, and where its first appearance did. */
  at: number
  first: number
}

export interface JsonLayoutScan {
  /** Every value by path; for a repeated key, the last, which is the one JSON.parse keeps. */
  spans: Map<string, JsonValueSpan>
  repeated: RepeatedKey[]
}

/**
 * Where every value of a JSON text is, by path, and which object keys repeat (`JSON.parse`
 * silently keeps the last of two equal keys; another reader may keep the first). Keys are compared
 * decoded, so `"a"` and `"\u0061"` are the same key. Paths are spelled by jsonPathJoin (`plugins[3].source`).
 * Check the text first: this reads up to its first mistake and stops there.
 */
export const jsonLayout = (text: string): JsonLayoutScan => {
  const spans = new Map<string, JsonValueSpan>()
  const repeated: RepeatedKey[] = []
  const open: Array<{start: number; path: string; keys: Map<string, number>}> = []
  const spell = (path: JSONPath): string => path.reduce<string>((base, key) => jsonPathJoin(base, key), '')
  const begin = (offset: number, path: () => JSONPath): void => {
    open.push({start: offset, path: spell(path()), keys: new Map()})
  }
  const end = (offset: number): void => {
    const frame = open.pop()
    if (frame) spans.set(frame.path, {start: frame.start, end: offset + 1, string: false})
  }
  scanJson(
    text,
    {
      objectBegin: begin,
      arrayBegin: begin,
      objectEnd: end,
      arrayEnd: end,
      property: (key, offset) => {
        const frame = open[open.length - 1]
        if (!frame) return
        const first = frame.keys.get(key)
        if (first === undefined) frame.keys.set(key, offset)
        else repeated.push({parent: frame.path, path: jsonPathJoin(frame.path, key), key, at: offset, first})
      },
      literal: (value, offset, length, path) => {
        spans.set(spell(path()), {start: offset, end: offset + length, string: typeof value === 'string'})
      },
    },
    {maxDepth: 1000},
  )
  return {spans, repeated}
}
