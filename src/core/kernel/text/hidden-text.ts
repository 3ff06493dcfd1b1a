/**
 * Characters a person cannot see but an agent reads: Unicode tag characters (which can spell out a
 * whole hidden instruction), bidirectional controls (which make text display in another order than
 * it is read), zero-width characters and the other format (Cf) characters. Emoji sequences that use
 * some of them legitimately are let through: U+200D between two pictographs, and the tag sequence of
 * a subdivision flag (U+1F3F4, lower-case letters or digits as tags, U+E007F).
 */

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

const FORMAT = /\p{Cf}/u
/** Every character the walk below can report: a format character or a tag. */
const MAY_HIDE = /[\p{Cf}\u{E0000}-\u{E007F}]/u
const PICTOGRAPH = /\p{Extended_Pictographic}/u
/** what may stand between a pictograph and a joiner: a variation selector or a skin-tone modifier */
// eslint-disable-next-line no-misleading-character-class -- the class lists the modifiers themselves, never a modified emoji
const EMOJI_TAIL = /[\uFE0E\uFE0F\u{1F3FB}-\u{1F3FF}]/u
const BLACK_FLAG = 0x1f3f4
const CANCEL_TAG = 0xe007f

const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f
const isFlagTag = (cp: number) => (cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039)

const nameOf = (cp: number): string => {
  if (isTag(cp)) {
    const ascii = cp - 0xe0000
    return ascii >= 0x20 && ascii < 0x7f ? `TAG ${JSON.stringify(String.fromCharCode(ascii))}` : cp === CANCEL_TAG ? 'CANCEL TAG' : 'TAG CHARACTER'
  }
  return NAMES[cp] ?? 'FORMAT CHARACTER'
}

export const codePointLabel = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`

/** Whether the joiner at `i` joins two pictographs (skipping variation selectors and skin tones). */
const joinsEmoji = (chars: readonly string[], i: number): boolean => {
  let before = i - 1
  while (before >= 0 && EMOJI_TAIL.test(chars[before]!)) before--
  return before >= 0 && PICTOGRAPH.test(chars[before]!) && i + 1 < chars.length && PICTOGRAPH.test(chars[i + 1]!)
}

/** The length of a subdivision-flag tag run starting after a black flag at `i`, or 0. */
const flagTagRun = (cps: readonly number[], i: number): number => {
  if (cps[i - 1] !== BLACK_FLAG) return 0
  let j = i
  while (j < cps.length && isFlagTag(cps[j]!)) j++
  return j > i && cps[j] === CANCEL_TAG ? j - i + 1 : 0
}

/** Every hidden character of a text, with its 1-based line and column (in code points). */
export const findHiddenText = (text: string): HiddenChar[] => {
  // nearly every text has none: one regular-expression pass rules that out before the per-character walk
  if (!MAY_HIDE.test(text)) return []
  const chars = [...text]
  const cps = chars.map((c) => c.codePointAt(0)!)
  const found: HiddenChar[] = []
  let line = 1
  let column = 1
  for (let i = 0; i < chars.length; i++) {
    const cp = cps[i]!
    if (cp === 0x0a) {
      line++
      column = 1
      continue
    }
    const run = isTag(cp) ? flagTagRun(cps, i) : 0
    if (run > 0) {
      i += run - 1
      column += run
      continue
    }
    const hidden = isTag(cp) || (FORMAT.test(chars[i]!) && !(cp === 0xfeff && i === 0) && !(cp === 0x200d && joinsEmoji(chars, i)))
    if (hidden) found.push({line, column, codePoint: codePointLabel(cp), name: nameOf(cp)})
    column++
  }
  return found
}
