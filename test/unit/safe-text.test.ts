import {describe, expect, it} from 'vitest'
import {CUT_MARKER, MAX_FIELD_CHARS, safeMessage, safeText} from '../../src/ui/safe-text.js'

describe('safeText', () => {
  it('escapes ESC sequences, BEL, backspace, DEL and C1 controls', () => {
    const shown = safeText('a\u001b[2Jb\u0007c\bd\u007fe\u009bf')
    expect(shown).toBe('a\\x1b[2Jb\\x07c\\x08d\\x7fe\\x9bf')
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  })

  it('escapes every bidirectional control', () => {
    for (const ch of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      const shown = safeText(`x${ch}y`)
      expect(shown).toBe(`x\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0').toUpperCase()}y`)
    }
  })

  it('a field is one line; a message keeps its line breaks but not other controls', () => {
    expect(safeText('one\ntwo\tthree\r')).toBe('one\\ntwo\\tthree\\r')
    expect(safeMessage('one\ntwo\u001b]0;title\u0007')).toBe('one\ntwo\\x1b]0;title\\x07')
  })

  it('cuts a long field at 300 code points with a marker, never splitting a character or an escape', () => {
    const long = '😀'.repeat(600_000)
    const shown = safeText(long)
    expect([...shown]).toHaveLength(MAX_FIELD_CHARS + 1)
    expect(shown.endsWith(CUT_MARKER)).toBe(true)
    const escapes = safeText('\u001b'.repeat(1000))
    expect(escapes).toBe('\\x1b'.repeat(MAX_FIELD_CHARS) + CUT_MARKER)
  })

  it('leaves ordinary text, accents and other scripts alone', () => {
    for (const text of ['plain text', 'café résumé', '日本語のプラグイン', 'עברית', 'a'.repeat(MAX_FIELD_CHARS)]) expect(safeText(text)).toBe(text)
    expect(safeText(undefined)).toBe('')
  })
})
