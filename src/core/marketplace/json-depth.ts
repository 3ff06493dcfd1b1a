import {validationFailed} from '../errors.js'
import {lineAndColumn} from '../text.js'

/** How deep a catalog may nest: `{"plugins": [{"source": {}}]}` is 4 levels. */
export const MAX_JSON_DEPTH = 64

/**
 * Parses untrusted JSON text whose nesting is bounded. `JSON.parse` recurses, so a file of
 * 100,000 `[` would overflow the stack (a RangeError, not a message a user can act on). So:
 *  1. a quick linear pass counts open arrays and objects, skipping strings and their escapes,
 *     and stops at the first that passes `maxDepth`;
 *  2. text within the limit goes to `JSON.parse`;
 *  3. text that is too deep or not JSON is walked again by a validating scan (also linear, also
 *     without recursion) that finds the first mistake and says where: V8's own messages give a
 *     position for some mistakes and not for others, and quote the text.
 * Valid input, the common case, pays for the quick pass and the parse only.
 *
 * A byte-order mark at the start is skipped (editors on Windows write one; it carries no data).
 * Throws `catalog-not-json` (naming the file, line and column) or `catalog-too-deep`.
 */
export const parseJsonBounded = (text: string, file: string, maxDepth = MAX_JSON_DEPTH): unknown => {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const tooDeepAt = firstTooDeep(body, maxDepth)
  if (tooDeepAt === -1) {
    try {
      return JSON.parse(body) as unknown
    } catch (error) {
      return refuse(body, file, maxDepth, error)
    }
  }
  return refuse(body, file, maxDepth, undefined, tooDeepAt)
}

/** Says precisely why the text was refused: its first grammar error, or where it got too deep. */
const refuse = (text: string, file: string, maxDepth: number, parseError: unknown, tooDeepAt?: number): never => {
  const found = scan(text, maxDepth) ?? (tooDeepAt === undefined ? undefined : {at: tooDeepAt, message: '', tooDeep: true})
  if (!found) {
    // The scan accepts exactly the JSON grammar, so this is not expected; keep V8's word for it.
    throw validationFailed('catalog-not-json', `${file}: not valid JSON: ${(parseError as Error).message}`, {cause: parseError})
  }
  const at = lineAndColumn(text, found.at)
  if (found.tooDeep) {
    throw validationFailed('catalog-too-deep', `${file}: JSON nests more than ${maxDepth} levels deep (at line ${at.line}, column ${at.column})`, {
      suggestions: [`a catalog may nest at most ${maxDepth} arrays and objects inside one another`],
    })
  }
  throw validationFailed('catalog-not-json', `${file}: not valid JSON: ${found.message} at line ${at.line}, column ${at.column}`)
}

const OUTSIDE_STRING_RUN = /[^"[\]{}]*/y
const INSIDE_STRING_RUN = /[^"\\]*/y

/**
 * Where nesting first passes `maxDepth`, or -1. Only brackets outside strings count; a backslash
 * in a string skips the character after it, so `"\""` and `"\\"` end where JSON says they do.
 * Up to the first grammar error this reads the text exactly as `JSON.parse` does, so text that
 * passes cannot make the parser recurse deeper than `maxDepth`.
 */
const firstTooDeep = (text: string, maxDepth: number): number => {
  const end = text.length
  let depth = 0
  let i = 0
  for (;;) {
    OUTSIDE_STRING_RUN.lastIndex = i
    OUTSIDE_STRING_RUN.test(text)
    i = OUTSIDE_STRING_RUN.lastIndex
    if (i >= end) return -1
    const c = text.charCodeAt(i)
    i++
    if (c === QUOTE) {
      for (;;) {
        INSIDE_STRING_RUN.lastIndex = i
        INSIDE_STRING_RUN.test(text)
        i = INSIDE_STRING_RUN.lastIndex
        if (i >= end) return -1
        if (text.charCodeAt(i) === QUOTE) break
        i += 2 // a backslash and the character it escapes
      }
      i++
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth++
      if (depth > maxDepth) return i - 1
    } else {
      depth--
    }
  }
}

interface Found {
  at: number
  message: string
  tooDeep?: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39

const isDigit = (c: number) => c >= ZERO && c <= NINE
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
const SPACE_RUN = /[ \t\n\r]*/y
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y
const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) // " \ / b f n r t

/** What is at `i`, safe to print whatever it is. */
const shown = (text: string, i: number): string => (i >= text.length ? 'the end of the text' : JSON.stringify(text.charAt(i)))

/**
 * One pass over the text: returns the first grammar error or the point where nesting passes
 * `maxDepth`, or undefined when the text is one well-formed JSON value. The stack of open
 * containers is an array of at most `maxDepth` flags, never the call stack.
 */
const scan = (text: string, maxDepth: number): Found | undefined => {
  const end = text.length
  const open: boolean[] = [] // true for an object, false for an array
  let i = 0

  const skipSpace = () => {
    if (!isSpace(text.charCodeAt(i))) return
    SPACE_RUN.lastIndex = i
    SPACE_RUN.test(text)
    i = SPACE_RUN.lastIndex
  }

  /** A string starting at the quote at `i`; leaves `i` after its closing quote. */
  const string = (): Found | undefined => {
    const start = i
    i++
    while (i < end) {
      // Jump over plain characters in one step; stop at a quote, a backslash or a control character.
      PLAIN_RUN.lastIndex = i
      PLAIN_RUN.test(text)
      i = PLAIN_RUN.lastIndex
      if (i >= end) break
      const c = text.charCodeAt(i)
      if (c === QUOTE) {
        i++
        return undefined
      }
      if (c === BACKSLASH) {
        const next = text.charCodeAt(i + 1)
        if (next === 0x75) {
          for (let k = 2; k < 6; k++) {
            if (!isHex(text.charCodeAt(i + k))) return {at: i, message: 'a \\u escape needs four hexadecimal digits'}
          }
          i += 6
        } else if (SIMPLE_ESCAPES.has(next)) {
          i += 2
        } else {
          return {at: i, message: `unknown escape \\${i + 1 < end ? text.charAt(i + 1) : ''} in a string`}
        }
      } else if (c < 0x20) {
        return {at: i, message: 'a control character in a string (write it as an escape such as \\n)'}
      } else {
        i++
      }
    }
    return {at: start, message: 'a string that is never closed'}
  }

  const number = (): Found | undefined => {
    const start = i
    if (text.charCodeAt(i) === MINUS) i++
    if (text.charCodeAt(i) === ZERO) {
      i++
    } else if (isDigit(text.charCodeAt(i))) {
      while (isDigit(text.charCodeAt(i))) i++
    } else {
      return {at: start, message: 'a malformed number'}
    }
    if (text.charCodeAt(i) === DOT) {
      i++
      if (!isDigit(text.charCodeAt(i))) return {at: start, message: 'a malformed number (a digit must follow ".")'}
      while (isDigit(text.charCodeAt(i))) i++
    }
    const e = text.charCodeAt(i)
    if (e === 0x65 || e === 0x45) {
      i++
      const sign = text.charCodeAt(i)
      if (sign === PLUS || sign === MINUS) i++
      if (!isDigit(text.charCodeAt(i))) return {at: start, message: 'a malformed number (a digit must follow the exponent)'}
      while (isDigit(text.charCodeAt(i))) i++
    }
    return undefined
  }

  /** A property name and its colon, starting at `i` (after any space). */
  const key = (): Found | undefined => {
    if (text.charCodeAt(i) !== QUOTE) return {at: i, message: `expected a double-quoted property name, found ${shown(text, i)}`}
    const broken = string()
    if (broken) return broken
    skipSpace()
    if (text.charCodeAt(i) !== COLON) return {at: i, message: `expected ":" after a property name, found ${shown(text, i)}`}
    i++
    return undefined
  }

  const push = (isObject: boolean): Found | undefined => {
    if (open.length >= maxDepth) return {at: i, message: 'too deep', tooDeep: true}
    open.push(isObject)
    i++
    return undefined
  }

  skipSpace()
  if (i >= end) return {at: i, message: 'the text is empty'}
  for (;;) {
    // Here a value must start.
    skipSpace()
    const c = text.charCodeAt(i)
    let broken: Found | undefined
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      broken = push(c === OPEN_OBJECT)
      if (broken) return broken
      skipSpace()
      if (text.charCodeAt(i) === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        open.pop()
        i++
      } else if (c === OPEN_OBJECT) {
        broken = key()
        if (broken) return broken
        continue
      } else {
        continue
      }
    } else if (c === QUOTE) {
      broken = string()
    } else if (c === MINUS || isDigit(c)) {
      broken = number()
    } else if (text.startsWith('true', i)) {
      i += 4
    } else if (text.startsWith('false', i)) {
      i += 5
    } else if (text.startsWith('null', i)) {
      i += 4
    } else {
      return {at: i, message: `expected a value, found ${shown(text, i)}`}
    }
    if (broken) return broken

    // A value has ended: close containers until one continues with a comma, or the text ends.
    for (;;) {
      skipSpace()
      if (open.length === 0) {
        return i < end ? {at: i, message: `unexpected ${shown(text, i)} after the end of the JSON value`} : undefined
      }
      const inObject = open[open.length - 1]!
      const next = text.charCodeAt(i)
      if (next === COMMA) {
        i++
        if (inObject) {
          skipSpace()
          broken = key()
          if (broken) return broken
        }
        break
      }
      if (next === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
        open.pop()
        i++
        continue
      }
      return {at: i, message: inObject ? `expected "," or "}" after a property, found ${shown(text, i)}` : `expected "," or "]" after an array element, found ${shown(text, i)}`}
    }
  }
}
