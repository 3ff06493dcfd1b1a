import {describe, expect, it} from 'vitest'
import {textFault} from '../../src/core/kernel/fs/utf8.js'
import {checkPluginName} from '../../src/core/kernel/text/names.js'
import {readCatalog} from '../../src/core/kernel/marketplace/catalog.js'
import {confusableWith, nfkcRule, skeleton} from '../../src/core/kernel/text/name-skeleton.js'
import {checkSkillName} from '../../src/core/kernel/skills/name.js'
import {checkSubagentName} from '../../src/core/kernel/subagents/name.js'
import {seededRandom} from '../support/seeded.js'

describe('names must be their NFKC form', () => {
  it('refuses a full-width letter in skill, subagent and plugin names, naming the normal form', () => {
    expect(checkSkillName('ｍy-skill')).toMatchObject({code: 'name-not-normalized', message: expect.stringContaining('"my-skill"')})
    expect(checkSubagentName('ｍy-agent')?.code).toBe('name-not-normalized')
    expect(checkPluginName('ｍy-plugin')).toMatch(/NFKC.*"my-plugin"/)
    expect(nfkcRule('my-skill')).toBeUndefined()
  })
})

describe('confusable names', () => {
  it('maps Cyrillic and Greek look-alikes, case, digits and rn to one skeleton', () => {
    expect(skeleton('mу-skill')).toBe(skeleton('my-skill')) // Cyrillic у
    expect(skeleton('раураl')).toBe(skeleton('paypal')) // Cyrillic р, а, у
    expect(skeleton('ΑΡΙ-tool')).toBe(skeleton('api-tool')) // Greek capitals
    expect(skeleton('rnodel')).toBe(skeleton('model'))
    expect(skeleton('t00l')).toBe(skeleton('tool'))
    expect(skeleton('note-taker')).not.toBe(skeleton('notes-taker'))
  })

  it('maps an ASCII name as the general rule does (held equal over 20,000 random names)', () => {
    // a final "é" sends a name down the general path (NFKC, look-alikes) without touching what is before it
    const alphabet = [...Array.from({length: 128}, (_, c) => String.fromCharCode(c)), ...'rnvvIil01|_-rnvv']
    const random = seededRandom(7)
    for (let i = 0; i < 20_000; i++) {
      const name = Array.from({length: 1 + random(12)}, () => alphabet[random(alphabet.length)]).join('')
      expect(skeleton(`${name}é`), JSON.stringify(name)).toBe(`${skeleton(name)}é`)
      // confusableWith passes over an ASCII name shorter than the wanted skeleton on this alone
      expect(skeleton(name).length, JSON.stringify(name)).toBeLessThanOrEqual(name.length)
    }
  })

  it('finds the existing name a new one looks like, never the same name', () => {
    expect(confusableWith('my-skill', ['other', 'mу-skill'])).toBe('mу-skill')
    expect(confusableWith('my-skill', ['my-skill', 'other'])).toBeUndefined()
    expect(confusableWith('pdf-tools', ['docx-tools'])).toBeUndefined()
    // the first of several, in the order given
    expect(confusableWith('model', ['model', 'rnodel', 'MODEL'])).toBe('rnodel')
  })

  it('a catalog entry that looks like an earlier one is dropped with its reason', () => {
    const read = readCatalog(
      {
        name: 'acme',
        plugins: [
          {name: 'model-kit', source: './a'},
          {name: 'rnodel-kit', source: './b'},
        ],
      },
      {file: 'marketplace.json', origin: 'local'},
    )
    expect(read.catalog.plugins.map((p) => p.name)).toEqual(['model-kit'])
    expect(read.dropped).toEqual([{name: 'rnodel-kit', code: 'entry-confusable-name', message: expect.stringContaining('looks like "model-kit"')}])
  })
})

describe('text agents read is UTF-8 without NUL', () => {
  it('names the byte offset of the first invalid sequence', () => {
    const cases: Array<[number[], number]> = [
      [[0x61, 0xff], 1],
      [[0x61, 0x62, 0xc3, 0x28], 2], // a lead byte without its continuation
      [[0xed, 0xa0, 0x80], 0], // an encoded surrogate
      [[0xe2, 0x82], 0], // cut short at the end
      [[0xc0, 0xaf], 0], // an overlong "/"
      [[0xf4, 0x90, 0x80, 0x80], 0], // beyond U+10FFFF
    ]
    for (const [bytes, offset] of cases) expect(textFault(Uint8Array.from(bytes))).toMatchObject({code: 'file-not-utf8', offset})
  })

  it('names the byte offset of a NUL, and accepts every valid character', () => {
    expect(textFault(Buffer.from('abc\0def'))).toMatchObject({code: 'file-has-nul', offset: 3, why: 'holds a NUL byte at byte 3'})
    expect(textFault(Buffer.from('café 日本 😀 \u{10ffff}'))).toBeUndefined()
  })
})
