/**
 * Text that came from a catalog, a manifest or a plugin, made safe to print to a terminal: control
 * characters (C0, DEL, C1: ESC sequences, BEL, backspace) and bidirectional controls (which can make
 * `evil` display as `live`) are shown as escapes, and a long field is cut with a marker. `--json`
 * output keeps the full, unescaped text; only human output goes through here.
 */
import {writeErr} from './output.js'

/** Code points a field shown to a person may hold at most before it is cut. */
export const MAX_FIELD_CHARS = 300
export const CUT_MARKER = '…'
/** A message (an error, a problem) may quote several fields, so it is allowed more. */
export const MAX_MESSAGE_CHARS = 2000

// C0 (tab and newline included: a field is one line), DEL, C1, and the bidi controls:
// U+061C, U+200E/F, U+202A-202E, U+2066-2069.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const NAMED: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

const escapeOne = (ch: string): string => {
  if (NAMED[ch]) return NAMED[ch]
  const code = ch.codePointAt(0)!
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`
}

export interface SafeTextOptions {
  /** cut after this many code points (default 300); Infinity keeps it whole */
  max?: number
  /** keep line breaks (for multi-line text such as a message); other controls are still escaped */
  multiline?: boolean
}

/** One field of fetched text, safe to print: escaped controls and bidi characters, cut when long. */
export const safeText = (text: string | undefined, options: SafeTextOptions = {}): string => {
  if (text === undefined) return ''
  const max = options.max ?? MAX_FIELD_CHARS
  let shown = text
  // Cut by code points before escaping, so an escape is never cut in half.
  if (shown.length > max) {
    const points = [...shown]
    if (points.length > max) shown = points.slice(0, max).join('') + CUT_MARKER
  }
  return shown.replace(UNSAFE, (ch) => (options.multiline && ch === '\n' ? ch : escapeOne(ch)))
}

/** A message that may quote fetched text: line breaks kept, cut at MAX_MESSAGE_CHARS. */
export const safeMessage = (text: string): string => safeText(text, {max: MAX_MESSAGE_CHARS, multiline: true})

// The styles src/ui/style.ts writes (bold, dim, red, green, yellow and their ends): the only escape
// sequences human output may carry.
const OWN_STYLE = /\u001B\[(?:1|2|22|31|32|33|39)m/y

/**
 * Human output as a whole, just before it reaches the terminal: whatever a renderer let through (a
 * field it did not pass through safeText) cannot move the cursor, set the clipboard (OSC 52), make a
 * link (OSC 8) or reorder text. Line breaks and tabs stay; loadout's own colours stay.
 */
export const terminalText = (text: string): string => {
  let out = ''
  let last = 0
  for (const match of text.matchAll(UNSAFE)) {
    const at = match.index
    const ch = match[0]
    if (ch === '\n' || ch === '\t') continue
    OWN_STYLE.lastIndex = at
    const style = ch === '\u001B' ? OWN_STYLE.exec(text) : null
    if (style) continue
    out += text.slice(last, at) + escapeOne(ch)
    last = at + 1
  }
  return out + text.slice(last)
}

/** A block of human output on stderr, through terminalText. */
export const writeStderr = (text: string): void => {
  writeErr(`${terminalText(text)}\n`)
}
