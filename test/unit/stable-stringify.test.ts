import {describe, expect, it} from 'vitest'
import {stableStringify} from '../../src/core/kernel/fs/json.js'

// What stableStringify wrote before it was made one pass (issue 27): a sorted copy, then JSON.stringify.
// Every consent fingerprint and every state file was made by it, so the text must not change by a byte.
const sortedCopy = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(sortedCopy)
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortedCopy((v as Record<string, unknown>)[k])]),
    )
  return v
}
const reference = (value: unknown): string => `${JSON.stringify(sortedCopy(value), null, 2)}\n`

const record = (i: number) => ({
  plugin: `p${i}@market`,
  target: i % 2 ? 'codex' : 'claude-code',
  scope: 'user',
  enabled: true,
  version: undefined,
  components: [`p${i}/skills/s${i}`],
  skipped: [],
  files: [{path: `/home/u/.agents/skills/s${i}/SKILL.md`, sha256: 'ab'.repeat(32), mode: 0o644}],
  dirs: [`/home/u/.agents/skills/s${i}`],
  config: [{file: '/home/u/.claude.json', key: ['mcpServers', `m${i}`], created: true, before: null}],
  zeta: {b: 1, a: [3, 2, {y: 'é\u2028"\\', x: -0}]},
})

describe('stableStringify', () => {
  it('writes what the sorted copy gave JSON.stringify, for records and for the odd values JSON has rules for', () => {
    const values: unknown[] = [
      {version: 1, installs: Array.from({length: 50}, (_, i) => record(i))},
      // eslint-disable-next-line no-sparse-arrays
      [1, , undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY, null, 'x'],
      {u: undefined, f: () => 1, s: Symbol('s'), n: null, e: {}, a: [], nested: {z: [[]], y: [{}]}},
      {date: new Date(0), boxed: Object(1), map: new Map([[1, 2]]), __proto__: null, '10': 'ten', '9': 'nine', B: 1, a: 2},
      'text',
      42,
      true,
      null,
      undefined,
      [],
      {},
    ]
    for (const value of values) expect(stableStringify(value)).toBe(reference(value))
  })

  it('gives the same text for values whose keys are already in order (what it reads back from its own files), written without a copy', () => {
    const state = {version: 1, installs: Array.from({length: 50}, (_, i) => record(i))}
    const readBack = JSON.parse(reference(state)) as unknown
    expect(stableStringify(readBack)).toBe(reference(state))
    // in order at the top, but a Date, a Map or boxed number below: JSON.stringify of the value itself would differ
    for (const odd of [new Date(0), new Map([[1, 2]]), Object(1)]) expect(stableStringify({a: 1, b: [odd]})).toBe(reference({a: 1, b: [odd]}))
    expect(stableStringify({'2': 'two', '10': 'ten', a: {b: 1, c: undefined}})).toBe(reference({'2': 'two', '10': 'ten', a: {b: 1, c: undefined}}))
  })

  it('gives the same text when only some objects are out of order (one new record among those read back)', () => {
    const state = {installs: Array.from({length: 20}, (_, i) => record(i)), version: 1}
    const readBack = JSON.parse(reference(state)) as {installs: unknown[]; version: number}
    readBack.installs.splice(7, 0, record(99), {...record(98), config: [{z: 1, a: [{y: 2, b: 3}]}]})
    expect(stableStringify(readBack)).toBe(reference(readBack))
    // the values themselves are left as they were
    expect(Object.keys(readBack.installs[7] as object)[0]).toBe('plugin')
  })
})
