/**
 * Edits one member of a JSON (or JSONC) config file as text, so that every other byte of the file
 * stays as it was: the user's formatting, key order, comments and trailing commas, and the 5 MB of
 * `~/.claude.json` that Claude Code writes and loadout has no business touching.
 *
 * The text is read for the spans of the members of the few objects on the edited path, and an
 * edit splices new text into those spans; nothing is re-serialised except the value being written.
 * The reading is `jsonc-parser`'s (see `json-read.ts`): it accepts JSON and JSONC (comments,
 * trailing commas, as VS Code does) or says at which line and column the text is wrong. Each edit
 * is read back before it is returned. On a 5 MB `~/.claude.json` an edit costs about 50 ms.
 *
 * ## Putting a file back exactly
 *
 * `editJsonMember` returns the new text and a `JsonEditUndo`: a small, JSON-serialisable record of
 * what the set changed (the replaced value's text, how many objects along the path it created, the
 * blank insides of an empty object it filled, the blank document it replaced). Store it with the
 * install record. Then:
 *
 *  - `removeJsonMember(edited, path, key, file, undo)` returns the original text byte for byte when
 *    the key did not exist before, whatever the file looked like (CRLF, tabs, minified, JSONC,
 *    `{ }`, an empty file...), also after other members were added or removed elsewhere meanwhile;
 *  - `undoJsonEdit(edited, undo, file)` does the same and also puts back a value that the set
 *    replaced, exactly as it was written.
 *
 * Without the record, `removeJsonMember` still removes the member and its comma cleanly and gives
 * the original back in the common cases (the parent object existed and was `{}` or had members);
 * what it cannot know is whether a parent object or the whole file was created by the set, so it
 * never removes a parent.
 */
import {validationFailed} from '../../model/errors.js'
import {findMember, findMemberIndex, getJsonMember, isBlank, objectAt, parseJsonText, scanMembers} from '../json/json-read.js'
import type {MemberSpan, ObjectSpan} from '../json/spans.js'

export {getJsonMember, parseJsonText} from '../json/json-read.js'

/** What `editJsonMember` changed, enough to put the text back exactly. Plain data: store it as JSON. */
export interface JsonEditUndo {
  /** The objects leading to the member, from the top level: `['mcpServers']`. */
  path: string[]
  key: string
  /** The member's value text exactly as it was, when the key existed and its value was replaced. */
  previous?: string
  /** How many objects at the end of `path` the set created (0 when the whole path existed). */
  createdParents: number
  /** The inside of the object the set inserted into (between its braces) when it had no members. */
  emptyInterior?: string
  /** The whole text, when it was empty or only whitespace and the set made a new document. */
  emptyDocument?: string
}

export interface JsonEdit {
  text: string
  undo: JsonEditUndo
}

// ---------------------------------------------------------------------------------------------
// Layout

interface Layout {
  nl: string
  unit: string
  /** Whether the text has line breaks at all (a minified file gets minified values). */
  multiline: boolean
}

const lineStartOf = (text: string, pos: number): number => (pos === 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1)

/** The spaces and tabs that start the line `pos` is on. */
const lineIndent = (text: string, pos: number): string => {
  const s = lineStartOf(text, pos)
  let e = s
  while (e < pos) {
    const c = text.charCodeAt(e)
    if (c !== 32 && c !== 9) break
    e++
  }
  return text.slice(s, e)
}

/** Whether only spaces and tabs stand between the start of its line and `pos`. */
const startsLine = (text: string, pos: number): boolean => lineIndent(text, pos).length === pos - lineStartOf(text, pos)

/** The line break that ends the line before the one `lineStart` is on starts here. */
const lineBreakBefore = (text: string, pos: number): number => {
  const s = lineStartOf(text, pos)
  return s >= 2 && text.charCodeAt(s - 2) === 13 ? s - 2 : s - 1
}

/**
 * From `p`, skips spaces, tabs and comments that stay on this line, and returns where the line
 * break that ends the line is (`\r\n` or `\n`); -1 when something else comes first.
 */
const lineEndAfter = (text: string, p: number): number => {
  for (;;) {
    const c = text.charCodeAt(p)
    if (c === 32 || c === 9) {
      p++
    } else if (c === 10) {
      return p
    } else if (c === 13) {
      return text.charCodeAt(p + 1) === 10 ? p : -1
    } else if (c === 47 && text.charCodeAt(p + 1) === 47) {
      const lf = text.indexOf('\n', p)
      if (lf < 0) return -1
      return text.charCodeAt(lf - 1) === 13 ? lf - 1 : lf
    } else if (c === 47 && text.charCodeAt(p + 1) === 42) {
      const e = text.indexOf('*/', p + 2)
      if (e < 0 || text.slice(p, e).includes('\n')) return -1
      p = e + 2
    } else {
      return -1
    }
  }
}

const INDENTED_LINE = /\n([ \t]+)["}\]]/

const detectLayout = (text: string, root: ObjectSpan): Layout => {
  const lf = text.indexOf('\n')
  const nl = lf > 0 && text.charCodeAt(lf - 1) === 13 ? '\r\n' : '\n'
  let unit = ''
  const first = root.members[0]
  if (first && startsLine(text, first.keyStart)) {
    const indent = lineIndent(text, first.keyStart)
    const outer = lineIndent(text, root.open)
    unit = indent.startsWith(outer) ? indent.slice(outer.length) : indent
  }
  if (unit === '') unit = INDENTED_LINE.exec(text.slice(0, 65_536))?.[1] ?? '  '
  if (unit.length > 8) unit = unit.slice(0, 8)
  return {nl, unit, multiline: lf >= 0}
}

/** JSON text of `value`, its lines after the first indented by `indent`; one line when `unit` is ''. */
const serialize = (value: unknown, unit: string, indent: string, nl: string): string => {
  const json = JSON.stringify(value, null, unit) as string | undefined
  if (json === undefined) throw new TypeError('the value to write is not representable as JSON')
  return unit === '' ? json : json.replace(/\n/g, nl + indent)
}

/** A change to the text: [start, end) becomes `insert`. */
type Change = [start: number, end: number, insert: string]

/** The text of [from, to) with the changes (sorted, not overlapping, all inside it) made, in one concatenation. */
const apply = (text: string, changes: Change[], from = 0, to = text.length): string => {
  let out = ''
  let p = from
  for (const [start, end, insert] of changes) {
    out += text.slice(p, start) + insert
    p = end
  }
  return out + text.slice(p, to)
}

const spaceOnly = (text: string): boolean => /^[ \t\r\n]*$/.test(text)

/** `": "` or whatever the object's last member puts between name and value, when that is plain. */
const colonOf = (text: string, member: MemberSpan | undefined, compact: boolean): string => {
  if (member) {
    const between = text.slice(member.keyEnd, member.valueStart)
    if (/^[ \t]*:[ \t]*$/.test(between)) return between
  }
  return compact ? ':' : ': '
}

// ---------------------------------------------------------------------------------------------
// Inserting and removing members

/**
 * The changes that append member `key: value` to `obj`. The layouts below are exactly what
 * `removeMember` takes away, which is what makes set-then-remove give back the original text.
 *  - Empty object, blank inside: the inside becomes the member (with line breaks and indentation
 *    when the file has lines); the old inside goes into the undo record.
 *  - Empty object with comments inside: the member goes right after `{`, the comments stay.
 *  - Last member on a line of its own (with at most a comment after it): the new member gets a
 *    line of its own after that line, with the same indentation; a comma goes right after the old
 *    last value, or after the new one when the object uses trailing commas.
 *  - Otherwise (members on one line): `, "key": value` right after the last value (or
 *    `"key": value,` after its trailing comma), spaced like the members before it.
 */
const insertMember = (text: string, obj: ObjectSpan, layout: Layout, key: string, value: unknown): {changes: Change[]; emptyInterior?: string} => {
  const {nl} = layout
  const members = obj.members
  const last = members[members.length - 1]
  const name = JSON.stringify(key)
  if (!last) {
    const interior = text.slice(obj.open + 1, obj.close)
    const end = spaceOnly(interior) ? obj.close : obj.open + 1
    if (layout.multiline) {
      const braceIndent = lineIndent(text, obj.open)
      const indent = braceIndent + layout.unit
      const member = nl + indent + `${name}: ${serialize(value, layout.unit, indent, nl)}`
      return {changes: [[obj.open + 1, end, end === obj.close ? member + nl + braceIndent : member]], emptyInterior: interior}
    }
    return {changes: [[obj.open + 1, end, `${name}:${serialize(value, '', '', nl)}`]], emptyInterior: interior}
  }
  const compact = !layout.multiline || text.lastIndexOf('\n', obj.close) < obj.open
  const colon = colonOf(text, last, compact)
  const trailing = last.comma >= 0
  const lastEnd = trailing ? last.comma + 1 : last.valueEnd
  const indent = lineIndent(text, last.keyStart)
  const member = name + colon + serialize(value, compact ? '' : layout.unit, indent, nl)
  const eol = compact ? -1 : lineEndAfter(text, lastEnd)
  if (eol >= 0 && startsLine(text, last.keyStart)) {
    const line: Change = [eol, eol, nl + indent + member + (trailing ? ',' : '')]
    return {changes: trailing ? [line] : [[last.valueEnd, last.valueEnd, ','], line]}
  }
  const before = members[members.length - 2]
  const gap = text.slice(before ? before.comma + 1 : obj.open + 1, last.keyStart)
  const sep = spaceOnly(gap) ? gap : compact ? '' : ' '
  return {changes: [[lastEnd, lastEnd, trailing ? sep + member + ',' : `,${sep}${member}`]]}
}

/**
 * The changes that remove member `index` of `obj` with its comma: the exact inverse of
 * `insertMember` for a member it appended, and a clean cut for any other (a member on a line of its
 * own takes its line with it). `emptyInterior`, when the object ends up empty, is what its inside
 * becomes (else `{}`).
 */
const removeMember = (text: string, obj: ObjectSpan, index: number, emptyInterior: string | undefined): Change[] => {
  const members = obj.members
  const m = members[index] as MemberSpan
  const end = m.comma >= 0 ? m.comma + 1 : m.valueEnd
  const eol = lineEndAfter(text, end)
  const ownLine = eol >= 0 && startsLine(text, m.keyStart)
  if (members.length === 1) {
    if (spaceOnly(text.slice(obj.open + 1, m.keyStart))) {
      return spaceOnly(text.slice(end, obj.close)) ? [[obj.open + 1, obj.close, emptyInterior ?? '']] : [[obj.open + 1, end, '']]
    }
    return ownLine ? [[lineBreakBefore(text, m.keyStart), eol, '']] : [[m.keyStart, end, '']]
  }
  if (index === members.length - 1) {
    const prev = members[index - 1] as MemberSpan
    if (ownLine) {
      const line: Change = [lineBreakBefore(text, m.keyStart), eol, '']
      return m.comma >= 0 ? [line] : [[prev.comma, prev.comma + 1, ''], line]
    }
    return m.comma >= 0 ? [[prev.comma + 1, end, '']] : [[prev.comma, end, '']]
  }
  if (ownLine) return [[lineBreakBefore(text, m.keyStart), eol, '']]
  let after = end
  while (text.charCodeAt(after) === 32 || text.charCodeAt(after) === 9) after++
  return [[m.keyStart, after, '']]
}

/** Whether removing the only member of `obj` leaves nothing but whitespace between its braces. */
const onlyMember = (text: string, obj: ObjectSpan, name: string): boolean => {
  const m = obj.members[0]
  return (
    obj.members.length === 1 &&
    m !== undefined &&
    m.key === name &&
    spaceOnly(text.slice(obj.open + 1, m.keyStart)) &&
    spaceOnly(text.slice(m.comma >= 0 ? m.comma + 1 : m.valueEnd, obj.close))
  )
}

// ---------------------------------------------------------------------------------------------
// Editing

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** `mcpServers["my.server"]`: a path as a user would read it. */
const showPath = (path: readonly string[]): string =>
  path.map((k, n) => (IDENTIFIER.test(k) ? (n === 0 ? k : `.${k}`) : `[${JSON.stringify(k)}]`)).join('') || '(top level)'

const notAnObject = (file: string, path: readonly string[], kind: string, key: string) =>
  validationFailed(
    'config-not-object',
    path.length === 0
      ? `${file}: the top level is ${kind}, not a JSON object, so loadout cannot add ${JSON.stringify(key)} to it`
      : `${file}: ${showPath(path)} is ${kind}, not an object, so loadout cannot add ${JSON.stringify(key)} under it`,
    {details: {file, path: [...path]}, suggestions: [`fix ${file} by hand, or move the value aside, and run the command again`]},
  )

/** `{p1: {p2: ... {key: value}}}` for the keys of `path` from `from` on; own properties even for `__proto__`. */
const nest = (path: readonly string[], from: number, key: string, value: unknown): unknown => {
  let v: unknown = Object.fromEntries([[key, value]])
  for (let d = path.length - 1; d >= from; d--) v = Object.fromEntries([[path[d] as string, v]])
  return v
}

/**
 * The edit is text surgery on a file the user cares about, so its result is read back before it
 * is handed out. Only the object that changed is read, and in it each member value that the edit
 * did not touch is read as `0`: every byte outside the changes is as it was in text that was
 * already checked, so a valid reduced object means a valid file, and checking costs the size of
 * the object's own structure, not of the 5 MB under it. `keys` lead from that object to the
 * member, which must then hold `expected.value` (undefined: be absent); without `expected`, only
 * the JSON is checked.
 */
const verify = (text: string, changes: Change[], obj: ObjectSpan, keys: readonly string[], file: string, expected?: {value: unknown}): void => {
  const touched = (m: MemberSpan): boolean =>
    changes.some(([start, end]) => (start === end ? start > m.valueStart && start < m.valueEnd : start < m.valueEnd && end > m.valueStart))
  const reduced: Change[] = [...changes]
  for (const m of obj.members) if (m.valueEnd - m.valueStart > 1 && !touched(m)) reduced.push([m.valueStart, m.valueEnd, '0'])
  reduced.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let got: unknown
  try {
    got = getJsonMember(apply(text, reduced, obj.open, obj.close + 1), keys.slice(0, -1), keys[keys.length - 1] as string, file)
  } catch (error) {
    throw new Error(`internal error: an edit of ${file} did not leave valid JSON in the object at offset ${obj.open}`, {cause: error})
  }
  if (expected && JSON.stringify(got) !== JSON.stringify(expected.value)) {
    throw new Error(`internal error: an edit of ${file} did not read back as written`)
  }
}

/**
 * Sets member `key` of the object at `path` to `value` and says how to undo it.
 *  - The key exists (its last appearance, as JSON.parse reads it): only its value's text changes.
 *  - It does not: it is appended after the object's last member (see `insertMember`), matching the
 *    file's indentation unit and line breaks; missing objects along `path` are created.
 *  - The text is empty or only whitespace: a new document (2-space indent) replaces it.
 * Invalid JSON throws `config-not-json`; a top level or a value on `path` that is not an object
 * throws `config-not-object`, naming the file and the path. `value` must be representable as JSON.
 */
export const editJsonMember = (text: string, path: readonly string[], key: string, value: unknown, file: string): JsonEdit => {
  const undoPath = [...path]
  serialize(value, '', '', '\n')
  if (isBlank(text)) {
    const nl = text.includes('\r\n') ? '\r\n' : '\n'
    const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : ''
    const out = bom + serialize(nest(path, 0, key, value), '  ', '', nl) + nl
    if (JSON.stringify(getJsonMember(out, path, key, file)) !== JSON.stringify(value)) throw new Error('internal error: a new JSON document did not read back')
    return {text: out, undo: {path: undoPath, key, createdParents: path.length, emptyDocument: text}}
  }
  const scan = scanMembers(text, file, path)
  const at = objectAt(scan, path, path.length)
  if (at.notObject) {
    const {depth, kind} = at.notObject
    throw notAnObject(file, path.slice(0, depth), kind, depth === path.length ? key : (path[depth] as string))
  }
  const layout = detectLayout(text, scan.root as ObjectSpan)
  let changes: Change[]
  let undo: JsonEditUndo
  let obj: ObjectSpan
  let keys: string[]
  if (at.found) {
    obj = at.found
    keys = [key]
    const member = findMember(obj, key)
    if (member) {
      const compact = !layout.multiline || text.lastIndexOf('\n', obj.close) < obj.open
      const indent = lineIndent(text, member.keyStart)
      changes = [[member.valueStart, member.valueEnd, serialize(value, compact ? '' : layout.unit, indent, layout.nl)]]
      undo = {path: undoPath, key, previous: text.slice(member.valueStart, member.valueEnd), createdParents: 0}
    } else {
      const inserted = insertMember(text, obj, layout, key, value)
      changes = inserted.changes
      undo = {path: undoPath, key, createdParents: 0, ...(inserted.emptyInterior === undefined ? {} : {emptyInterior: inserted.emptyInterior})}
    }
  } else {
    const depth = at.missing as number
    obj = objectAt(scan, path, depth).found as ObjectSpan
    keys = [...path.slice(depth), key]
    const inserted = insertMember(text, obj, layout, path[depth] as string, nest(path, depth + 1, key, value))
    changes = inserted.changes
    undo = {
      path: undoPath,
      key,
      createdParents: path.length - depth,
      ...(inserted.emptyInterior === undefined ? {} : {emptyInterior: inserted.emptyInterior}),
    }
  }
  verify(text, changes, obj, keys, file, {value})
  return {text: apply(text, changes), undo}
}

/** `editJsonMember(...).text`: the text with member `key` of the object at `path` set to `value`. */
export const setJsonMember = (text: string, path: readonly string[], key: string, value: unknown, file: string): string =>
  editJsonMember(text, path, key, value, file).text

const EMPTY_DOCUMENT = /^\uFEFF?[ \t\r\n]*\{[ \t\r\n]*\}[ \t\r\n]*$/

/**
 * Removes member `key` of the object at `path`, with its separating comma (and its line, when it
 * has one to itself). Nothing there (no such key, or the path leads nowhere): the text comes back
 * unchanged. Invalid JSON throws `config-not-json`.
 *
 * With `undo` (the record `editJsonMember` returned when it added this key), the text comes back
 * exactly as it was before that edit: parent objects the edit created are removed too, as long as
 * nothing else has moved into them; an object the edit filled gets its old blank inside back; a
 * document the edit made out of a blank file becomes that blank text again. Undo records of
 * several edits of one file are undone in the reverse order of the edits: out of order, a parent
 * created by one and shared with another may stay behind, empty.
 */
export const removeJsonMember = (text: string, path: readonly string[], key: string, file: string, undo?: JsonEditUndo): string => {
  if (isBlank(text)) return text
  const scan = scanMembers(text, file, path)
  let obj = objectAt(scan, path, path.length).found
  if (!obj || findMemberIndex(obj, key) < 0) return text
  const created = Math.max(0, Math.min(undo?.createdParents ?? 0, path.length))
  const stop = path.length - created
  // A parent the edit created goes with the member when nothing else has moved into it since.
  let level = path.length
  let name = key
  while (level > stop && onlyMember(text, obj, name)) {
    level--
    name = path[level] as string
    obj = objectAt(scan, path, level).found as ObjectSpan
  }
  const index = findMemberIndex(obj, name)
  const changes = removeMember(text, obj, index, level === stop ? undo?.emptyInterior : undefined)
  // With the key twice in the object (JSON.parse keeps the last), the earlier one is what remains.
  const earlier = obj.members.slice(0, index).some((m) => m.key === name)
  verify(text, changes, obj, [name], file, earlier ? undefined : {value: undefined})
  if (undo?.emptyDocument !== undefined && level === 0 && stop === 0 && obj.members.length === 1) {
    const out = apply(text, changes)
    if (out.length < 1024 && EMPTY_DOCUMENT.test(out)) return undo.emptyDocument
    return out
  }
  return apply(text, changes)
}

/**
 * Reverts the edit `undo` records: puts the previous value text back when the edit replaced one,
 * else removes the member it added (see `removeJsonMember`).
 */
export const undoJsonEdit = (text: string, undo: JsonEditUndo, file: string): string => {
  if (undo.previous === undefined) return removeJsonMember(text, undo.path, undo.key, file, undo)
  const scan = scanMembers(text, file, undo.path)
  const obj = objectAt(scan, undo.path, undo.path.length).found
  const member = obj && findMember(obj, undo.key)
  if (!obj || !member) return text
  const changes: Change[] = [[member.valueStart, member.valueEnd, undo.previous]]
  verify(text, changes, obj, [undo.key], file, {value: parseJsonText(undo.previous, 'the undo record')})
  return apply(text, changes)
}

// ---------------------------------------------------------------------------------------------
// Many members of one object at once

/**
 * Sets several members of the object at `path`, with the same result and undo records as calling
 * `editJsonMember` once per entry in order, in time linear in the file and the entries. The first
 * entry goes through `editJsonMember`; the rest, when they are new keys after a last member on a
 * line of its own (what every agent and loadout itself writes) or in an object on one line (a
 * minified file), are spliced in one change read once; any other layout takes them one by one.
 */
export const editJsonMembers = (
  text: string,
  path: readonly string[],
  entries: ReadonlyArray<{key: string; value: unknown}>,
  file: string,
): {text: string; undos: JsonEditUndo[]} => {
  const [first, ...rest] = entries
  if (!first) return {text, undos: []}
  const head = editJsonMember(text, path, first.key, first.value, file)
  const undos = [head.undo]
  const appended = rest.length === 0 ? {text: head.text, changes: []} : appendMembers(head.text, path, first.key, rest, file)
  if (appended) {
    for (const {key} of rest) undos.push({path: [...path], key, createdParents: 0})
    return {text: appended.text, undos}
  }
  let out = head.text
  for (const {key, value} of rest) {
    const edit = editJsonMember(out, path, key, value, file)
    out = edit.text
    undos.push(edit.undo)
  }
  return {text: out, undos}
}

/** The object at `path` (undefined when it is missing or not an object): one read for all of its members. */
export const objectValue = (text: string, path: readonly string[], file: string): Record<string, unknown> | undefined => {
  if (isBlank(text)) return undefined
  const value = path.length === 0 ? parseJsonText(text, file) : getJsonMember(text, path.slice(0, -1), path.at(-1) as string, file)
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/**
 * The text with `entries` appended to the object at `path` when its last member is `lastKey` (on a
 * line of its own, or in an object on one line) and none of the keys is there yet; undefined
 * otherwise. One by one, each insertion would find the one before it as the last member, laid out
 * the same way: the same line break, indentation, spacing, colon and comma style every time, which
 * is what is spliced here.
 */
const appendMembers = (
  text: string,
  path: readonly string[],
  lastKey: string,
  entries: ReadonlyArray<{key: string; value: unknown}>,
  file: string,
): {text: string; changes: Change[]} | undefined => {
  const scan = scanMembers(text, file, path)
  const obj = objectAt(scan, path, path.length).found
  const last = obj?.members.at(-1)
  if (!obj || !last || last.key !== lastKey) return undefined
  const keys = new Set([lastKey])
  for (const m of obj.members) keys.add(m.key)
  for (const {key} of entries) {
    if (keys.has(key)) return undefined
    keys.add(key)
  }
  const layout = detectLayout(text, scan.root as ObjectSpan)
  const trailing = last.comma >= 0
  const lastEnd = trailing ? last.comma + 1 : last.valueEnd
  let changes: Change[]
  if (!layout.multiline || text.lastIndexOf('\n', obj.close) < obj.open) {
    // on one line: each right after the one before, spaced as the last two were
    const before = obj.members.at(-2)
    const gap = text.slice(before ? before.comma + 1 : obj.open + 1, last.keyStart)
    const sep = spaceOnly(gap) ? gap : ''
    const colon = colonOf(text, last, true)
    const members = entries.map(({key, value}) => JSON.stringify(key) + colon + serialize(value, '', '', layout.nl))
    changes = [[lastEnd, lastEnd, members.map((m) => (trailing ? `${sep}${m},` : `,${sep}${m}`)).join('')]]
  } else {
    const eol = lineEndAfter(text, lastEnd)
    if (eol < 0 || !startsLine(text, last.keyStart)) return undefined
    const colon = colonOf(text, last, false)
    const indent = lineIndent(text, last.keyStart)
    const lines = entries.map(({key, value}) => layout.nl + indent + JSON.stringify(key) + colon + serialize(value, layout.unit, indent, layout.nl))
    changes = trailing
      ? [[eol, eol, lines.map((l) => l + ',').join('')]]
      : [
          [last.valueEnd, last.valueEnd, ','],
          [eol, eol, lines.join(',')],
        ]
  }
  const out = apply(text, changes)
  const written = objectValue(out, path, file)
  for (const {key, value} of entries) {
    if (!written || !Object.hasOwn(written, key) || JSON.stringify(written[key]) !== JSON.stringify(value)) {
      throw new Error(`internal error: an edit of ${file} did not read back as written`)
    }
  }
  return {text: out, changes}
}

/**
 * Removes the members `removals` name from the object at `path`, in the order given, with the same
 * result as `removeJsonMember` once per removal, in time linear in the file and the removals. When
 * they are the object's last members in reverse order of insertion, each on a line of its own, with
 * at least one member left before them (how `editJsonMembers` leaves what it appended), their lines
 * go in one cut; any other case takes them one by one.
 */
export const removeJsonMembers = (text: string, path: readonly string[], removals: ReadonlyArray<{key: string; undo?: JsonEditUndo}>, file: string): string => {
  let out = text
  let done = 0
  // all but the last removal (an object emptied takes its first member out the careful way, with its undo record)
  for (const count of [removals.length, removals.length - 1]) {
    const cut = count > 1 && !isBlank(text) ? cutOwnLines(text, path, removals.slice(0, count), file) : undefined
    if (cut === undefined) continue
    out = cut
    done = count
    break
  }
  for (const {key, undo} of removals.slice(done)) out = removeJsonMember(out, path, key, file, undo)
  return out
}

const cutOwnLines = (text: string, path: readonly string[], removals: ReadonlyArray<{key: string}>, file: string): string | undefined => {
  const obj = objectAt(scanMembers(text, file, path), path, path.length).found
  if (!obj || obj.members.length <= removals.length) return undefined
  const count = obj.members.length
  const tail = obj.members.slice(count - removals.length)
  const kept = obj.members.slice(0, count - removals.length)
  const keptKeys = new Set(kept.map((m) => m.key))
  const last = tail.at(-1) as MemberSpan
  const trailing = last.comma >= 0
  for (const [n, m] of tail.entries()) {
    if (removals[removals.length - 1 - n]?.key !== m.key || keptKeys.has(m.key)) return undefined
    if (!startsLine(text, m.keyStart)) return undefined
    if (m !== last && !trailing && m.comma !== m.valueEnd) return undefined
    const eol = lineEndAfter(text, m.comma >= 0 ? m.comma + 1 : m.valueEnd)
    const next = tail[n + 1]
    // a line between two of them (a comment, a blank line) stays when they go one by one
    if (eol < 0 || (next && eol !== lineBreakBefore(text, next.keyStart))) return undefined
  }
  if (new Set(tail.map((m) => m.key)).size !== tail.length) return undefined
  const before = kept.at(-1) as MemberSpan
  const end = lineEndAfter(text, trailing ? last.comma + 1 : last.valueEnd)
  const line: Change = [lineBreakBefore(text, (tail[0] as MemberSpan).keyStart), end, '']
  const changes: Change[] = trailing ? [line] : [[before.comma, before.comma + 1, ''], line]
  const out = apply(text, changes)
  const left = objectValue(out, path, file)
  if (!left || Object.keys(left).length !== keptKeys.size || tail.some((m) => Object.hasOwn(left, m.key))) {
    throw new Error(`internal error: a removal from ${file} did not read back as intended`)
  }
  return out
}
