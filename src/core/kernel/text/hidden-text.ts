/**
 * Characters a person cannot see but an agent reads: Unicode tag characters (which can spell out a
 * whole hidden instruction), bidirectional controls (which make text display in another order than
 * it is read), zero-width characters and the other format (Cf) characters. Emoji sequences that use
 * some of them legitimately are let through: U+200D between two pictographs, and the tag sequence of
 * a subdivision flag: U+1F3F4, then a Unicode subdivision id spelled in tags (a region, two letters or
 * three digits, then one to four letters or digits: `gbsct`), then U+E007F. Any other run of tags,
 * after a flag or not, is reported whole.
 */
import {lazy} from '../env/lazy.js'

export interface HiddenChar {
  line: number
  column: number
  /** `U+202E` */
  codePoint: string
  name: string
}

const NAMES: Record<number, string> = {
  0x00ad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
}

/** Every character the walk below can report: a format character, a tag or a variation selector. */
// eslint-disable-next-line no-misleading-character-class -- the class lists the selectors themselves, never a selected character
const MAY_HIDE = /[\p{Cf}\u{E0000}-\u{E007F}\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u
// the Unicode property classes below are made on first need (a joiner, a variation selector): ~0.5 ms of
// a run to build, and most text has neither
const PICTOGRAPH = lazy(() => /\p{Extended_Pictographic}/u)
/** what may stand between a pictograph and a joiner: a variation selector or a skin-tone modifier */
// eslint-disable-next-line no-misleading-character-class -- the class lists the modifiers themselves, never a modified emoji
const EMOJI_TAIL = /[\uFE0E\uFE0F\u{1F3FB}-\u{1F3FF}]/u
const BLACK_FLAG = 0x1f3f4
const CANCEL_TAG = 0xe007f

const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f
/** A subdivision id (unicode_subdivision_id of UTS #35) as the ASCII its tags spell. */
const SUBDIVISION_ID = /^(?:[a-z]{2}|[0-9]{3})[a-z0-9]{1,4}$/
/** the longest id above: the run of tags a flag may carry */
const MAX_FLAG_TAGS = 7

const isSelector = (cp: number | undefined) => cp !== undefined && ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef))
const IDEOGRAPH = lazy(() => /\p{Ideographic}/u)

/**
 * A variation selector picks how the character before it is drawn; one is normal (U+FE0F after an
 * emoji, U+E0100 and up after a CJK ideograph). Anything else (a run of them, one at the start, the
 * supplementary ones after anything but an ideograph) carries bytes no one sees: "emoji smuggling".
 */
const hiddenSelector = (text: string, at: number, cp: number): boolean => {
  const before = pointBefore(text, at)
  if (!before || isSelector(before.cp) || before.cp === 0x0a) return true
  return cp >= 0xe0100 && !IDEOGRAPH().test(String.fromCodePoint(before.cp))
}

const nameOf = (cp: number): string => {
  if (isSelector(cp)) return `VARIATION SELECTOR-${cp >= 0xe0100 ? cp - 0xe0100 + 17 : cp - 0xfe00 + 1}`
  if (isTag(cp)) {
    const ascii = cp - 0xe0000
    return ascii >= 0x20 && ascii < 0x7f ? `TAG ${JSON.stringify(String.fromCharCode(ascii))}` : cp === CANCEL_TAG ? 'CANCEL TAG' : 'TAG CHARACTER'
  }
  return NAMES[cp] ?? 'FORMAT CHARACTER'
}

export const codePointLabel = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`

/** The code point that ends just before UTF-16 index `end`, and where it starts. */
const pointBefore = (text: string, end: number): {cp: number; start: number} | undefined => {
  if (end <= 0) return undefined
  const low = text.charCodeAt(end - 1)
  const start = low >= 0xdc00 && low <= 0xdfff && end >= 2 && text.charCodeAt(end - 2) >= 0xd800 && text.charCodeAt(end - 2) <= 0xdbff ? end - 2 : end - 1
  return {cp: text.codePointAt(start)!, start}
}

const isPictograph = (cp: number | undefined): boolean => cp !== undefined && PICTOGRAPH().test(String.fromCodePoint(cp))

/** Whether the joiner at index `at` joins two pictographs (skipping variation selectors and skin tones). */
const joinsEmoji = (text: string, at: number): boolean => {
  let before = pointBefore(text, at)
  while (before && EMOJI_TAIL.test(String.fromCodePoint(before.cp))) before = pointBefore(text, before.start)
  return before !== undefined && isPictograph(before.cp) && isPictograph(text.codePointAt(at + 1))
}

/** The UTF-16 length of a well-formed subdivision-flag tag run (id and cancel tag) starting at index `at` after a black flag, or 0. */
const flagTagRun = (text: string, at: number): number => {
  if (pointBefore(text, at)?.cp !== BLACK_FLAG) return 0
  let id = ''
  // each tag is two UTF-16 units
  for (let j = at; j < text.length && (j - at) / 2 <= MAX_FLAG_TAGS; j += 2) {
    const cp = text.codePointAt(j)!
    if (cp === CANCEL_TAG) return SUBDIVISION_ID.test(id) ? j - at + 2 : 0
    if (!isTag(cp)) return 0
    id += String.fromCharCode(cp - 0xe0000)
  }
  return 0
}

// eslint-disable-next-line no-misleading-character-class -- as MAY_HIDE
const MAY_HIDE_ALL = new RegExp(MAY_HIDE.source, 'gu')

/** Code points in text[from, to). */
const countPoints = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i)
    if (!(unit >= 0xdc00 && unit <= 0xdfff && i > from && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) n++
  }
  return n
}

/**
 * Every hidden character of a text, with its 1-based line and column (in code points). Linear in the
 * text: it visits only the characters that may hide, counting lines and columns between them.
 */
export const findHiddenText = (text: string): HiddenChar[] => {
  // nearly every text has none: one regular-expression pass rules that out before the walk
  if (!MAY_HIDE.test(text)) return []
  const found: HiddenChar[] = []
  let line = 1
  // the column of index `counted` on `line`
  let counted = 0
  let column = 1
  let skipTo = 0
  for (const match of text.matchAll(MAY_HIDE_ALL)) {
    const at = match.index
    if (at < skipTo) continue
    const cp = match[0].codePointAt(0)!
    const run = isTag(cp) ? flagTagRun(text, at) : 0
    if (run > 0) {
      skipTo = at + run
      continue
    }
    if (cp === 0xfeff && at === 0) continue
    if (cp === 0x200d && joinsEmoji(text, at)) continue
    if (isSelector(cp) && !hiddenSelector(text, at, cp)) continue
    for (let nl = text.indexOf('\n', counted); nl !== -1 && nl < at; nl = text.indexOf('\n', counted)) {
      line++
      counted = nl + 1
      column = 1
    }
    column += countPoints(text, counted, at)
    counted = at
    found.push({line, column, codePoint: codePointLabel(cp), name: nameOf(cp)})
  }
  return found
}
