import {isUtf8} from 'node:buffer'

/**
 * The records of the user state, held as the bytes of their lines until something of a record other
 * than its plugin, target and scope is asked for (issue 27). An uninstall among 1,000 installs reads
 * the plugin and target of each and the paths of a few: parsing every line cost it ~6 ms, and the
 * ~1,000 records parsed, alive through the command, ~10 ms of the collector copying them.
 *
 * A line is held only where what JSON.parse would make of it is known without parsing it: a line
 * written as loadout writes them (`{"plugin":"…","target":"…",…}`, the two first), in a file that is
 * UTF-8 throughout, with no backslash (no escape: every string is its own bytes) and no other
 * `"plugin"` (no second record on the line, as a hand may have joined them). Then the plugin and
 * target are the bytes between their quotes, and a key or a string the line does not hold, byte for
 * byte, is in no value of the record. A held line is parsed the first time anything else is asked of
 * its record; a line that turns out not to be JSON then, or to name another plugin or target (a key
 * given twice), is refused as the state's error.
 *
 * A held record is a Proxy: reading, spreading, JSON.stringify, `in` and changes work as on the plain
 * record (a change makes it parsed, and its line no longer its own); structuredClone refuses it.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const CLOSE = 0x7d
const OPEN = 0x7b
const COLON = 0x3a
const PLUGIN_KEY = Buffer.from('{"plugin":"')
const TARGET_KEY = Buffer.from(',"target":"')
const PLUGIN_NAME = Buffer.from('"plugin"')

/** One reading's lines (where each lies in `bytes`), and where in them the texts asked of them were found. */
export class HeldLines {
  // by text: the first place it is found at or after `from` (-1: nowhere after it). Records are asked
  // in the file's order, so one search moves on through the bytes, and a text found in the first
  // line asked (a folder every record lists) or in none costs one search in all.
  private readonly found = new Map<string, {needle: Buffer; from: number; at: number}>()
  constructor(
    readonly bytes: Buffer,
    readonly starts: readonly number[],
    readonly ends: readonly number[],
    /** the record of line `index`, parsed */
    readonly parse: (index: number) => object,
    /** the keys a record may lack: asked of a held line that does not hold the key, undefined without a parse */
    readonly optional: ReadonlySet<string>,
  ) {}

  /** Whether line `index` holds the bytes of `text`. */
  holds(index: number, text: string): boolean {
    const start = this.starts[index]!
    let search = this.found.get(text)
    if (!search) this.found.set(text, (search = {needle: Buffer.from(text), from: -1, at: -1}))
    if (start < search.from || search.from < 0 || (search.at >= 0 && search.at < start)) {
      search.from = start
      search.at = this.bytes.indexOf(search.needle, start)
    }
    return search.at >= 0 && search.at + search.needle.length <= this.ends[index]!
  }
}

/** Whether `bytes` holds `key` at `at` (a loop: a native compare costs microseconds a call). */
const bytesAt = (bytes: Buffer, at: number, key: Buffer): boolean => {
  for (let i = 0; i < key.length; i++) if (bytes[at + i] !== key[i]) return false
  return true
}

const sameBytes = (bytes: Buffer, a: number, b: number, length: number): boolean => {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false
  return true
}

/** The closing quote of a JSON string whose bytes begin at `at`, or -1 past `end` or at a control character. */
const stringEnd = (bytes: Buffer, at: number, end: number): number => {
  for (let i = at; i < end; i++) {
    const byte = bytes[i]!
    if (byte === QUOTE) return i
    if (byte < 0x20) return -1
  }
  return -1
}

/** Whether line `index` begins as loadout writes a record's line: `{"plugin":"`. */
export const writtenAsLoadout = (lines: HeldLines, index: number): boolean => bytesAt(lines.bytes, lines.starts[index]!, PLUGIN_KEY)

// Buffer#toString reads `arguments`, an object made on every call
const utf8 = (bytes: Buffer, start: number, end: number): string => (bytes as Buffer & {utf8Slice(start: number, end: number): string}).utf8Slice(start, end)

/** The plugin and target of each line that can be held (see above), undefined for the others. */
export const skimLines = (lines: HeldLines): {plugins: Array<string | undefined>; targets: Array<string | undefined>} => {
  const {bytes, starts, ends} = lines
  const plugins = new Array<string | undefined>(starts.length)
  const targets = new Array<string | undefined>(starts.length)
  if (starts.length === 0 || !isUtf8(bytes)) return {plugins, targets}
  // the lines with a backslash (an escape: the rare record) are parsed; most files have none
  let escape = bytes.indexOf(BACKSLASH)
  // the next `"plugin"`: the one that begins the next line, unless a line holds another
  let plugin = bytes.indexOf(PLUGIN_NAME, starts[0])
  // the target of the line before: most are one of a few agents, decoded once
  let target = ''
  let targetAt = 0
  let targetLength = 0
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i]!
    const end = ends[i]!
    while (escape >= 0 && escape < start) escape = bytes.indexOf(BACKSLASH, end)
    if (plugin >= 0 && plugin < start) plugin = bytes.indexOf(PLUGIN_NAME, start)
    // `{"plugin":"` (its `"plugin"` the one found), then no other `"plugin"` on the line: two records
    // on one line (joined by hand) are read as the whole text says, the line parsed
    const keyed = plugin === start + 1 && bytes[start] === OPEN && bytes[start + 9] === COLON && bytes[start + 10] === QUOTE
    if (plugin >= 0 && plugin <= start + 1) plugin = bytes.indexOf(PLUGIN_NAME, start + 2)
    if (!keyed || (plugin >= 0 && plugin < end) || (escape >= 0 && escape < end) || bytes[end - 1] !== CLOSE) continue
    const pluginEnd = stringEnd(bytes, start + PLUGIN_KEY.length, end)
    if (pluginEnd < 0 || !bytesAt(bytes, pluginEnd + 1, TARGET_KEY)) continue
    const targetStart = pluginEnd + 1 + TARGET_KEY.length
    const targetEnd = stringEnd(bytes, targetStart, end)
    if (targetEnd < 0) continue
    plugins[i] = utf8(bytes, start + PLUGIN_KEY.length, pluginEnd)
    if (targetEnd - targetStart !== targetLength || !sameBytes(bytes, targetAt, targetStart, targetLength)) {
      target = utf8(bytes, targetStart, targetEnd)
      targetAt = targetStart
      targetLength = targetEnd - targetStart
    }
    targets[i] = target
  }
  return {plugins, targets}
}

/** A record held as its line: its plugin, target and scope, and the record once parsed. */
export interface Held {
  plugin: string
  target: string
  scope: string
  /** its line among `lines`; -1 once the record was changed in place (its line is no longer its own) */
  index: number
  readonly lines: HeldLines
  /** the reading of the state file whose records it is among (records.ts) */
  reading: object
  whole?: object
}

const wholeOf = (held: Held): object => {
  if (held.whole) return held.whole
  const whole = held.lines.parse(held.index)
  held.whole = whole
  return whole
}

const changed = (held: Held): object => {
  const whole = wholeOf(held)
  held.index = -1
  return whole
}

// every operation but reading the three known fields (and the optional ones a line does not hold) is
// the parsed record's: spreading, JSON.stringify, `in`, a change
const handler: ProxyHandler<Held> = {
  get(held, key) {
    if (held.whole) return Reflect.get(held.whole, key)
    if (key === 'plugin') return held.plugin
    if (key === 'target') return held.target
    if (key === 'scope') return held.scope
    if (typeof key === 'string' && held.lines.optional.has(key) && !held.lines.holds(held.index, `"${key}"`)) return undefined
    return Reflect.get(wholeOf(held), key)
  },
  set(held, key, value) {
    if (key === 'plugin' || key === 'target' || key === 'scope') held[key] = value as string
    return Reflect.set(changed(held), key, value)
  },
  has: (held, key) => Reflect.has(wholeOf(held), key),
  ownKeys: (held) => Reflect.ownKeys(wholeOf(held)),
  getOwnPropertyDescriptor: (held, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(wholeOf(held), key)
    // the proxy's target is the holder, not the record: what it reports must be changeable
    return descriptor && {...descriptor, configurable: true}
  },
  defineProperty: (held, key, descriptor) => Reflect.defineProperty(changed(held), key, descriptor),
  deleteProperty: (held, key) => Reflect.deleteProperty(changed(held), key),
  getPrototypeOf: (held) => Reflect.getPrototypeOf(wholeOf(held)),
}

/** The record of line `index` of `lines`: parsed by `lines.parse` when more than its plugin, target and scope is asked. */
export const heldRecord = <T extends object>(plugin: string, target: string, scope: string, index: number, lines: HeldLines, reading: object): T => {
  const held: Held = {plugin, target, scope, index, lines, reading}
  const record = new Proxy(held, handler)
  holders.set(record, held)
  return record as unknown as T
}

// a WeakMap, not a key the proxy answers: a trap is a call, and a write asks this of every record several times
const holders = new WeakMap<object, Held>()

/** The holder of a held record, undefined for any other value. */
export const heldOf = (record: object): Held | undefined => holders.get(record)

/** Whether `a` and `b` are held lines of one reading, `a` before `b` in the file. */
export const heldInOrder = (a: object, b: object): boolean => {
  const first = heldOf(a)
  const second = heldOf(b)
  return first !== undefined && second !== undefined && first.lines === second.lines && first.index >= 0 && first.index < second.index
}

/**
 * Whether a record may hold `text` in its JSON (a string `"…"`, or the start of one): false only for
 * a record whose line is held unparsed and does not hold those bytes. What the record would be parsed
 * from is the line, so this says nothing false; a parsed record is asked its fields instead.
 */
export const mayHold = (record: object, text: string): boolean => {
  const held = heldOf(record)
  return !held || held.whole !== undefined || held.lines.holds(held.index, text)
}

/** A JSON string's text as it stands in a line, without the closing quote when `open`. */
export const jsonText = (value: string, open = false): string => {
  const quoted = JSON.stringify(value)
  return open ? quoted.slice(0, -1) : quoted
}
