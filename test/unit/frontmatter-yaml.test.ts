// The flat frontmatter writer skips the `yaml` package for flat fields: it must write what the
// package-based writer writes, byte for byte, and decline whatever it cannot write that way.
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {flatFrontmatter, frontmatterByLibrary, frontmatterYaml} from '../../src/core/kernel/text/frontmatter-yaml.js'
import {seededRandom} from '../support/seeded.js'

/** Flat fields the direct writer writes. */
const WRITTEN: Record<string, unknown>[] = [
  {name: 'code-reviewer', description: 'Reviews diffs for bugs', tools: 'Read, Grep, Glob', model: 'inherit'},
  {name: 'x', description: 'Use when: the user asks "why"', color: 'blue', maxTurns: 12},
  {description: 'Backslash \\ and quote " and colon: and # hash', readonly: true, max_steps: 25},
  {name: 'über-agent', description: 'Prüft Änderungen — schnell, gründlich (v2)'},
  {description: 'yes', model: 'no', name: 'null', other: 'True'},
  {description: '1e3', name: '0o17', tools: '-', a: ' leading space', b: 'trailing space ', c: ''},
  {description: "it's fine", name: "'quoted'", tools: '[Read]', model: '{a: b}', color: '*alias', k: '&anchor', l: '!tag'},
  {description: '% directive', name: '@at', tools: '`tick`', model: '| block', color: '> folded', k: '? key', l: '- item'},
  {description: 'nbsp\u00a0here', name: 'CJK 日本語のエージェント'},
  {negative: -5, zero: 0},
]

/** What only the package can write: line breaks, tabs, invisible and astral characters, unsafe integers, fractions, lists, maps, odd keys, nothing at all. */
const DECLINED: Record<string, unknown>[] = [
  {description: 'tab\tinside'},
  {description: 'line\nbreak'},
  {description: 'emoji 🎉 here'},
  {description: 'zero\u200bwidth'},
  {big: 2 ** 53},
  {fraction: 1.5},
  {list: ['a', 'b']},
  {map: {read: true}},
  {on: 'x'},
  {'two words': 'x'},
  {},
]

const SAMPLES = [...WRITTEN, ...DECLINED]

/** Strings from a pool of characters YAML treats specially, for the writers to disagree on if they can. */
const randomStrings = (count: number): string[] => {
  const pool = [
    'a',
    'Z',
    '0',
    ' ',
    ':',
    '#',
    '"',
    "'",
    '\\',
    '-',
    '?',
    ',',
    '[',
    ']',
    '{',
    '}',
    '&',
    '*',
    '!',
    '|',
    '>',
    '%',
    '@',
    '`',
    'é',
    'ß',
    '日',
    '\u00a0',
    '\u2014',
    '.',
    '/',
    '+',
    '(',
    ')',
    '_',
    '~',
    '=',
  ]
  const random = seededRandom(42)
  return Array.from({length: count}, () => Array.from({length: 1 + random(12)}, () => pool[random(pool.length)]).join(''))
}

describe('flatFrontmatter', () => {
  it.each(SAMPLES.map((fields) => [JSON.stringify(fields), fields]))('writes %s as the yaml package does, or declines', (_shown, fields) => {
    const flat = flatFrontmatter(fields)
    const library = (() => {
      try {
        return frontmatterByLibrary(fields)
      } catch {
        return undefined
      }
    })()
    if (flat !== undefined) expect(flat).toBe(library)
    if (library !== undefined) expect(frontmatterYaml(fields)).toBe(library)
  })

  it('writes the flat fields, and declines what only the package can write', () => {
    for (const fields of WRITTEN) expect(flatFrontmatter(fields), JSON.stringify(fields)).toBeDefined()
    for (const fields of DECLINED) expect(flatFrontmatter(fields), JSON.stringify(fields)).toBeUndefined()
  })

  it('agrees with the package on 2,000 random strings, each reading back as itself in YAML 1.2 and 1.1', () => {
    let written = 0
    for (const text of randomStrings(2000)) {
      const fields = {description: text}
      const flat = flatFrontmatter(fields)
      if (flat === undefined) continue
      written++
      expect(flat).toBe(frontmatterByLibrary(fields))
      for (const version of ['1.2', '1.1'] as const) expect(parseYaml(flat, {version})).toEqual(fields)
    }
    expect(written).toBeGreaterThan(1900)
  })
})
