/**
 * `editJsonMembers`/`removeJsonMembers` and `editTomlTables`/`removeTomlTables` give exactly what one
 * edit per member or table gives (text and undo records), on every layout, and the JSON ones read the
 * file a fixed number of times whatever the number of members: one edit per server read a 5 MB
 * `~/.claude.json` 256 times for a plugin's 256 servers.
 */
import {createRequire} from 'node:module'
import {describe, expect, it, vi} from 'vitest'
import {editJsonMember, editJsonMembers, removeJsonMember, removeJsonMembers} from '../../src/core/kernel/agent-config/json-edit.js'
import {editTomlTable, editTomlTables, removeTomlTable, removeTomlTables, type TomlEntries} from '../../src/core/kernel/agent-config/toml-edit.js'
import {SHAPES} from '../support/json-shapes.js'

const scans = vi.hoisted(() => ({count: 0}))
vi.mock('../../src/core/kernel/json/json-read.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/kernel/json/json-read.js')>()
  const counted =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      scans.count++
      return fn(...args)
    }
  return {...real, scanMembers: counted(real.scanMembers), getJsonMember: counted(real.getJsonMember), parseJsonText: counted(real.parseJsonText)}
})

const FILE = '/home/u/.claude.json'
const server = (i: number) => ({command: 'node', args: [`s${i}.js`], env: {N: `${i}`}})
const entriesOf = (count: number, prefix = 'srv') => Array.from({length: count}, (_, i) => ({key: `${prefix}${i}`, value: server(i)}))

const oneByOne = (text: string, path: string[], entries: ReadonlyArray<{key: string; value: unknown}>) => {
  let out = text
  const undos = []
  for (const {key, value} of entries) {
    const edit = editJsonMember(out, path, key, value, FILE)
    out = edit.text
    undos.push(edit.undo)
  }
  return {text: out, undos}
}

describe('editJsonMembers and removeJsonMembers', () => {
  for (const shape of SHAPES) {
    for (const count of [1, 2, 5]) {
      it(`${shape.name}: ${count} members as one edit each, and back`, () => {
        const entries = entriesOf(count)
        const batch = editJsonMembers(shape.text, shape.path, entries, FILE)
        expect(batch).toEqual(oneByOne(shape.text, shape.path, entries))
        const removals = entries.map(({key}, n) => ({key, undo: batch.undos[n]})).reverse()
        let sequential = batch.text
        for (const {key, undo} of removals) sequential = removeJsonMember(sequential, shape.path, key, FILE, undo)
        const removed = removeJsonMembers(batch.text, shape.path, removals, FILE)
        expect(removed).toBe(sequential)
        expect(removed).toBe(shape.text)
        // some of them, the last ones added: what one by one leaves
        const some = removals.slice(0, Math.max(1, count - 1))
        let partly = batch.text
        for (const {key, undo} of some) partly = removeJsonMember(partly, shape.path, key, FILE, undo)
        expect(removeJsonMembers(batch.text, shape.path, some, FILE)).toBe(partly)
      })
    }
  }

  it('a key already there, a comment between members, removals out of order: the same as one by one', () => {
    const text = '{\n  "mcpServers": {\n    "a": 1,\n    // keep me\n    "b": 2\n  }\n}\n'
    const entries = [
      {key: 'c', value: 3},
      {key: 'a', value: 9},
      {key: 'd', value: 4},
    ]
    const batch = editJsonMembers(text, ['mcpServers'], entries, FILE)
    expect(batch).toEqual(oneByOne(text, ['mcpServers'], entries))
    for (const order of [
      ['a', 'b'],
      ['b', 'a'],
      ['d', 'c', 'b'],
      ['c', 'd'],
    ]) {
      let sequential = batch.text
      for (const key of order) sequential = removeJsonMember(sequential, ['mcpServers'], key, FILE)
      expect(
        removeJsonMembers(
          batch.text,
          ['mcpServers'],
          order.map((key) => ({key})),
          FILE,
        ),
        order.join(),
      ).toBe(sequential)
    }
  })

  it('reads a file a fixed number of times, whatever the number of members', () => {
    const big = `{\n  "projects": ${JSON.stringify(Object.fromEntries(entriesOf(2000, 'p').map((e) => [e.key, e.value])), null, 2)},\n  "mcpServers": {}\n}\n`
    const reads = (count: number) => {
      scans.count = 0
      const batch = editJsonMembers(big, ['mcpServers'], entriesOf(count), FILE)
      const added = scans.count
      scans.count = 0
      const removals = entriesOf(count)
        .map(({key}, n) => ({key, undo: batch.undos[n]}))
        .reverse()
      expect(removeJsonMembers(batch.text, ['mcpServers'], removals, FILE)).toBe(big)
      return {added, removed: scans.count}
    }
    const small = reads(16)
    const large = reads(256)
    expect(large).toEqual(small)
    expect(large.added + large.removed).toBeLessThanOrEqual(10)
    // a minified file takes them on one line, read as often
    const minified = JSON.stringify(JSON.parse(big))
    const added = (count: number) => {
      scans.count = 0
      const batch = editJsonMembers(minified, ['mcpServers'], entriesOf(count), FILE)
      expect(batch.text).not.toContain('\n')
      return scans.count
    }
    expect(added(256)).toBe(added(16))
  })
})

const TOML_TEXTS: Array<[string, string]> = [
  ['empty', ''],
  ['no line break at the end', 'model = "o3"'],
  ['blank line at the end', 'model = "o3"\n\n'],
  ['CRLF with a table', 'model = "o3"\r\n\r\n[mcp_servers.a]\r\ncommand = "a"\r\n'],
  ['comment at the end', '[mcp_servers]\n# nothing yet\n'],
  ['byte-order mark', '\uFEFFmodel = "o3"\n'],
]

describe('editTomlTables and removeTomlTables', () => {
  const tables = (count: number) =>
    Array.from({length: count}, (_, i) => ({tablePath: ['mcp_servers', `srv${i}`], entries: {command: 'node', args: [`s${i}.js`]} as TomlEntries}))
  for (const [name, text] of TOML_TEXTS) {
    for (const count of [1, 2, 5]) {
      it(`${name}: ${count} tables as one edit each, and back`, () => {
        const batch = editTomlTables(text, tables(count), FILE)
        let out = text
        const undos = []
        for (const {tablePath, entries} of tables(count)) {
          const edit = editTomlTable(out, tablePath, entries, FILE)
          out = edit.text
          undos.push(edit.undo)
        }
        expect(batch).toEqual({text: out, undos})
        const removals = tables(count)
          .map(({tablePath}, n) => ({tablePath, undo: undos[n]}))
          .reverse()
        for (const some of [removals, removals.slice(0, Math.max(1, count - 2))]) {
          let sequential = batch.text
          for (const {tablePath, undo} of some) sequential = removeTomlTable(sequential, tablePath, FILE, undo)
          expect(removeTomlTables(batch.text, some, FILE)).toBe(sequential)
        }
        expect(removeTomlTables(batch.text, removals, FILE)).toBe(text)
      })
    }
  }

  it('a table already there, or removals out of order: the same as one by one', () => {
    const text = 'model = "o3"\n\n[mcp_servers.b]\ncommand = "b"\n'
    const edits = [
      {tablePath: ['mcp_servers', 'a'], entries: {command: 'a'}},
      {tablePath: ['mcp_servers', 'b'], entries: {command: 'b2'}},
      {tablePath: ['mcp_servers', 'c'], entries: {command: 'c'}},
    ]
    const batch = editTomlTables(text, edits, FILE)
    let out = text
    for (const {tablePath, entries} of edits) out = editTomlTable(out, tablePath, entries, FILE).text
    expect(batch.text).toBe(out)
    const order = [1, 0, 2].map((n) => ({tablePath: edits[n]!.tablePath, undo: batch.undos[n]}))
    let sequential = batch.text
    for (const {tablePath, undo} of order) sequential = removeTomlTable(sequential, tablePath, FILE, undo)
    expect(removeTomlTables(batch.text, order, FILE)).toBe(sequential)
  })

  it('parse a TOML file a fixed number of times, whatever the number of tables', () => {
    // toml-edit loads smol-toml with require: the same module object, counted here
    const smol = createRequire(import.meta.url)('smol-toml') as {parse: (text: string) => unknown}
    const parse = smol.parse
    let parses = 0
    smol.parse = (text: string) => {
      parses++
      return parse(text)
    }
    try {
      const big = Array.from({length: 2000}, (_, i) => `[projects."/p/${i}"]\ntrust_level = "trusted"\n`).join('\n')
      const count = (n: number) => {
        parses = 0
        const batch = editTomlTables(big, tables(n), FILE)
        const removals = tables(n)
          .map(({tablePath}, i) => ({tablePath, undo: batch.undos[i]}))
          .reverse()
        expect(removeTomlTables(batch.text, removals, FILE)).toBe(big)
        return parses
      }
      const small = count(16)
      expect(count(256)).toBe(small)
      expect(small).toBeLessThanOrEqual(8)
    } finally {
      smol.parse = parse
    }
  })
})
