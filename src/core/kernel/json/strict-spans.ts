/**
 * The spans `scanMembers` records, for text that `JSON.parse` has already accepted: what the
 * grammar scan finds, without walking every token of a multi-MB ~/.claude.json. Only the objects on
 * the tracked path are read member by member; every other value is jumped over by its brackets and
 * string quotes (native regular expressions), since the text is known to be valid. Nesting costs
 * no recursion outside the tracked path, so strict JSON of any depth is read.
 */
import type {MemberSpan, ObjectSpan, Scan} from './spans.js'

/** The next quote or bracket, where a jump over a nested value stops to look. */
const STRUCTURE = /["[\]{}]/g
/** The rest of a string after its opening quote, up to and including the closing one. */
const STRING_REST = /(?:[^"\\]|\\.)*"/y
/** JSON's whitespace (a byte-order mark at offset 0 is read as a space). */
const BLANKS = /[ \t\r\n\uFEFF]*/y
/** A number, `true`, `false` or `null`. */
const LITERAL = /[^,\]}\s]*/y

const skipBlanks = (text: string, at: number): number => {
  BLANKS.lastIndex = at
  BLANKS.test(text)
  return BLANKS.lastIndex
}

/** Where the string whose opening quote is at `at` ends (just past its closing quote). */
const stringEnd = (text: string, at: number): number => {
  STRING_REST.lastIndex = at + 1
  STRING_REST.test(text)
  return STRING_REST.lastIndex
}

/** Where the value starting at `at` ends. */
const valueEnd = (text: string, at: number): number => {
  const c = text.charCodeAt(at)
  if (c === 0x22) return stringEnd(text, at)
  if (c !== 0x7b && c !== 0x5b) {
    LITERAL.lastIndex = at
    LITERAL.test(text)
    return LITERAL.lastIndex
  }
  let depth = 0
  STRUCTURE.lastIndex = at
  for (let m = STRUCTURE.exec(text); m; m = STRUCTURE.exec(text)) {
    const s = m[0]
    if (s === '"') STRUCTURE.lastIndex = stringEnd(text, m.index)
    else if (s === '{' || s === '[') depth++
    else if (--depth === 0) return m.index + 1
  }
  return text.length
}

const kindAt = (text: string, at: number): string => {
  const c = text.charAt(at)
  return c === '{' ? 'an object' : c === '[' ? 'an array' : c === '"' ? 'a string' : c === 't' || c === 'f' ? 'a boolean' : c === 'n' ? 'null' : 'a number'
}

/** The object whose `{` is at `open`, its members read, and the objects under `path[depth]` with it. */
const objectSpan = (text: string, open: number, path: readonly string[], depth: number): ObjectSpan => {
  const obj: ObjectSpan = {open, close: -1, members: []}
  let p = skipBlanks(text, open + 1)
  while (text.charCodeAt(p) === 0x22) {
    const keyEnd = stringEnd(text, p)
    const key = JSON.parse(text.slice(p, keyEnd)) as string
    const valueStart = skipBlanks(text, skipBlanks(text, keyEnd) + 1)
    const kind = kindAt(text, valueStart)
    const member: MemberSpan = {key, keyStart: p, keyEnd, valueStart, valueEnd: -1, comma: -1, object: undefined, kind}
    if (kind === 'an object' && depth < path.length && key === path[depth]) {
      member.object = objectSpan(text, valueStart, path, depth + 1)
      member.valueEnd = member.object.close + 1
    } else member.valueEnd = valueEnd(text, valueStart)
    obj.members.push(member)
    p = skipBlanks(text, member.valueEnd)
    if (text.charCodeAt(p) !== 0x2c) break
    member.comma = p
    p = skipBlanks(text, p + 1)
  }
  obj.close = p
  return obj
}

/** `scanMembers`' spans of `text`, which must be strict JSON (`JSON.parse` accepts it). */
export const strictSpans = (text: string, path: readonly string[]): Scan => {
  const valueStart = skipBlanks(text, 0)
  const rootKind = kindAt(text, valueStart)
  const root = rootKind === 'an object' ? objectSpan(text, valueStart, path, 0) : undefined
  return {valueStart, valueEnd: root ? root.close + 1 : valueEnd(text, valueStart), root, rootKind, junk: []}
}
