/**
 * Reading a JSON or JSONC config file for `json-edit`: the values (`parseJsonText`, `getJsonMember`)
 * and the spans of the objects on an edited path, with `jsonc-parser` doing the scanning.
 */
import {validationFailed} from '../../model/errors.js'
import {scanJson as scanGrammar, type JsonMistake} from './scan.js'
import {lineAndColumn} from '../text/text.js'
import {strictSpans} from './strict-spans.js'
import type {MemberSpan, ObjectSpan, Scan} from './spans.js'

interface Frame {
  /** Recorded spans, for an object on the tracked path; undefined for everything else. */
  obj: ObjectSpan | undefined
  /** How many keys of the tracked path lead to this object. */
  depth: number
  /** The member being read (tracked objects only). */
  member: MemberSpan | undefined
}

/**
 * How deep a config file may nest for loadout to read it with comments in it. Strict JSON of any
 * depth is read (see strict-spans.ts); `jsonc-parser` recurses once per level, and no config file nests
 * anywhere near this.
 */
const MAX_DEPTH = 1000

/**
 * Reads the text for its spans (with `jsonc-parser` when it is not strict JSON), which checks the JSON grammar plus comments
 * and trailing commas, and records member spans for the top-level object and for each object
 * reached by following `path` from it (all of its members, so that the edit knows its neighbours).
 * Invalid text throws `config-not-json` naming the line and column of its first mistake.
 */
export const scanMembers = (text: string, file: string, path: readonly string[]): Scan => {
  // strict JSON (a multi-MB ~/.claude.json is): the spans without walking every token
  if (isStrictJson(text)) return strictSpans(text, path)
  const scan = scanSpans(text, path)
  if (!('mistake' in scan)) return scan
  const {mistake} = scan
  throw notJson(text, file, mistake.at, mistake.tooDeep ? `it nests more than ${MAX_DEPTH} levels deep` : mistake.message)
}

const isStrictJson = (text: string): boolean => {
  try {
    JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
    return true
  } catch {
    return false
  }
}

const kindOf = (value: unknown): string =>
  typeof value === 'string' ? 'a string' : typeof value === 'boolean' ? 'a boolean' : value === null ? 'null' : 'a number'

const scanSpans = (text: string, path: readonly string[]): Scan | {mistake: JsonMistake} => {
  const junk: number[] = []
  const stack: Frame[] = []
  let root: ObjectSpan | undefined
  let valueStart = -1
  let valueEnd = -1
  let rootKind = ''
  /** A comma not yet followed by a member or item: a trailing comma when a close comes next. */
  let comma = -1
  const begin = (offset: number, kind: string): Frame | undefined => {
    comma = -1
    const top = stack[stack.length - 1]
    if (top === undefined) {
      valueStart = offset
      rootKind = kind
    } else if (top.member) {
      top.member.valueStart = offset
      top.member.kind = kind
    }
    return top
  }
  const end = (at: number): void => {
    const top = stack[stack.length - 1]
    if (top === undefined) valueEnd = at
    else if (top.member) top.member.valueEnd = at
  }
  const close = (offset: number): void => {
    const frame = stack.pop() as Frame
    if (comma >= 0) junk.push(comma, comma + 1)
    comma = -1
    if (frame.obj) frame.obj.close = offset
    end(offset + 1)
  }
  const mistake = scanGrammar(
    text,
    {
      objectBegin: (offset) => {
        const top = begin(offset, 'an object')
        let obj: ObjectSpan | undefined
        let depth = 0
        if (top === undefined) {
          obj = root = {open: offset, close: -1, members: []}
        } else if (top.member && top.depth < path.length && top.member.key === path[top.depth]) {
          obj = top.member.object = {open: offset, close: -1, members: []}
          depth = top.depth + 1
        }
        stack.push({obj, depth, member: undefined})
      },
      arrayBegin: (offset) => {
        begin(offset, 'an array')
        stack.push({obj: undefined, depth: 0, member: undefined})
      },
      objectEnd: close,
      arrayEnd: close,
      property: (key, offset, length) => {
        comma = -1
        const top = stack[stack.length - 1] as Frame
        if (!top.obj) return
        top.member = {key, keyStart: offset, keyEnd: offset + length, valueStart: -1, valueEnd: -1, comma: -1, object: undefined, kind: ''}
        top.obj.members.push(top.member)
      },
      literal: (value, offset, length) => {
        begin(offset, kindOf(value))
        end(offset + length)
      },
      separator: (char, offset) => {
        if (char !== ',') return
        comma = offset
        const top = stack[stack.length - 1]
        if (top?.member) top.member.comma = offset
      },
      comment: (offset, length) => {
        junk.push(offset, offset + length)
      },
    },
    {jsonc: true, maxDepth: MAX_DEPTH},
  )
  return mistake ? {mistake} : {valueStart, valueEnd, root, rootKind, junk}
}

const notJson = (text: string, file: string, at: number, message: string) => {
  const {line, column} = lineAndColumn(text, Math.min(at, text.length))
  return validationFailed('config-not-json', `${file}: not valid JSON: ${message} at line ${line}, column ${column}`, {
    details: {file, line, column},
    suggestions: [`fix ${file} (loadout edits only a file it can read) and run the command again`],
  })
}

/** JSON.parse of text[start, end), with comments and trailing commas in it turned into spaces. */
const parseSpan = (text: string, start: number, end: number, junk: number[]): unknown => {
  const cuts: Array<[number, number]> = []
  for (let k = 0; k < junk.length; k += 2) {
    const s = junk[k] as number
    if (s >= start && s < end) cuts.push([s, junk[k + 1] as number])
  }
  if (cuts.length === 0) return JSON.parse(text.slice(start, end)) as unknown
  cuts.sort((a, b) => a[0] - b[0])
  const parts: string[] = []
  let p = start
  for (const [s, e] of cuts) {
    parts.push(text.slice(p, s), ' ')
    p = e
  }
  parts.push(text.slice(p, end))
  return JSON.parse(parts.join('')) as unknown
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Whether the text is empty or only whitespace (after a byte-order mark); stops at the first other character. */
export const isBlank = (text: string): boolean => {
  for (let p = text.charCodeAt(0) === 0xfeff ? 1 : 0; p < text.length; p++) {
    const c = text.charCodeAt(p)
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return false
  }
  return true
}

/**
 * Parses JSON or JSONC text (comments and trailing commas are accepted where VS Code accepts
 * them). Invalid text throws `config-not-json` naming the file, line and column. A byte-order mark
 * is skipped. Text that is empty or only whitespace is not JSON either.
 */
export const parseJsonText = (text: string, file: string): unknown => {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown
  } catch {
    const scan = scanMembers(text, file, [])
    return parseSpan(text, scan.valueStart, scan.valueEnd, scan.junk)
  }
}

/**
 * The value of member `key` of the object at `path`, or undefined when there is none (also when
 * the text is blank or something on the path is not an object). Invalid text throws, as above.
 */
export const getJsonMember = (text: string, path: readonly string[], key: string, file = 'JSON text'): unknown => {
  if (isBlank(text)) return undefined
  let value: unknown
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown
  } catch {
    const scan = scanMembers(text, file, path)
    const obj = objectAt(scan, path, path.length)
    const member = obj.found && findMember(obj.found, key)
    return member ? parseSpan(text, member.valueStart, member.valueEnd, scan.junk) : undefined
  }
  for (const k of [...path, key]) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, k)) return undefined
    value = (value as Record<string, unknown>)[k]
  }
  return value
}

export const findMember = (obj: ObjectSpan, key: string): MemberSpan | undefined => {
  for (let k = obj.members.length - 1; k >= 0; k--) {
    const m = obj.members[k] as MemberSpan
    if (m.key === key) return m
  }
  return undefined
}

export const findMemberIndex = (obj: ObjectSpan, key: string): number => {
  for (let k = obj.members.length - 1; k >= 0; k--) if ((obj.members[k] as MemberSpan).key === key) return k
  return -1
}

/**
 * Follows `path[0..depth)` from the top level. `found` is the object there; otherwise `missing`
 * is how many keys were found before one was absent, or `notObject` says which value is in the way.
 * A key that appears twice counts as its last appearance, as for JSON.parse.
 */
export const objectAt = (
  scan: Scan,
  path: readonly string[],
  depth: number,
): {found?: ObjectSpan; missing?: number; notObject?: {depth: number; kind: string}} => {
  if (!scan.root) return {notObject: {depth: 0, kind: scan.rootKind}}
  let obj = scan.root
  for (let d = 0; d < depth; d++) {
    const m = findMember(obj, path[d] as string)
    if (!m) return {missing: d}
    if (!m.object) return {notObject: {depth: d + 1, kind: m.kind}}
    obj = m.object
  }
  return {found: obj}
}
