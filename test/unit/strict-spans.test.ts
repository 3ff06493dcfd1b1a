import {describe, expect, it} from 'vitest'
import {scanMembers} from '../../src/core/kernel/json/json-read.js'

/**
 * Strict JSON is read for its spans without the grammar scan (src/core/kernel/json/strict-spans.ts):
 * on generated documents, every span must be the one the grammar scan records. The same text with a
 * comment after it is not strict JSON, so it takes the grammar scan: both must agree, comment aside.
 */
describe('the spans of strict JSON', () => {
  let seed = 7
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T
  const ws = () => pick(['', ' ', '\n  ', '\r\n\t', '\t', '   '])
  // keys repeat (JSON.parse keeps the last), and two are escaped spellings of "m"
  const KEYS = ['m', 'a', 'b', '"m"', '"\\u006d"', '"a\\"}"', '"ü😀"']
  const key = () => {
    const k = pick(KEYS)
    return k.startsWith('"') ? k : JSON.stringify(k)
  }
  const value = (depth: number): string => {
    const r = rnd()
    if (depth > 3 || r < 0.35) return pick(['1', '-2.5e3', '0', 'true', 'false', 'null', '"s"', '"a\\\\"', '"]}{[\\""', '"\\u0041"', '[]', '{}'])
    if (r < 0.55) return `[${Array.from({length: Math.floor(rnd() * 3)}, () => ws() + value(depth + 1) + ws()).join(',')}]`
    return object(depth + 1)
  }
  const object = (depth: number): string =>
    `{${Array.from({length: Math.floor(rnd() * 4)}, () => `${ws()}${key()}${ws()}:${ws()}${value(depth)}${ws()}`).join(',')}${ws()}}`

  it('are the grammar scan spans, on 400 generated documents and paths', () => {
    let compared = 0
    for (let n = 0; n < 400; n++) {
      const text = `${pick(['', '\uFEFF'])}${ws()}${n % 20 === 0 ? value(0) : object(0)}${ws()}`
      const path = Array.from({length: Math.floor(rnd() * 3)}, () => pick(['m', 'a', 'b', 'a"}']))
      const strict = scanMembers(text, 'f.json', path)
      const grammar = scanMembers(`${text}\n// not strict JSON any more\n`, 'f.json', path)
      expect(grammar.junk.length, text).toBe(2)
      expect({...strict, junk: []}, `${JSON.stringify(text)} at ${JSON.stringify(path)}`).toEqual({...grammar, junk: []})
      compared++
    }
    expect(compared).toBe(400)
  })

  it('reads strict JSON nested far deeper than the grammar scan walks', () => {
    const text = `{"z": ${'['.repeat(50_000)}${']'.repeat(50_000)}, "m": {"k": 1}}`
    const scan = scanMembers(text, 'f.json', ['m'])
    const m = scan.root?.members[1]
    expect(m?.key).toBe('m')
    expect(text.slice(m!.valueStart, m!.valueEnd)).toBe('{"k": 1}')
    expect(m?.object?.members.map((x) => x.key)).toEqual(['k'])
  })
})
