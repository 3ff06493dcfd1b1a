import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {compareIds, readInstallRecords, userStateFile, writeInstallRecords, type InstallRecord} from '../../src/core/kernel/state/records.js'

// The user state is read once per command and written once (issue 27): a reading is kept while the file
// is the same one, records read back are written without a copy. Neither may change what is read or written.

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, {recursive: true, force: true})
})

const environment = (): {env: Environment; project: string} => {
  const home = mkdtempSync(join(tmpdir(), 'loadout-state-read-'))
  homes.push(home)
  const project = join(home, 'project')
  mkdirSync(project)
  mkdirSync(join(home, '.loadout'))
  return {env: {vars: {HOME: home, LOADOUT_HOME: join(home, '.loadout')}, home, cwd: project, platform: 'linux', interactive: false}, project}
}

const record = (plugin: string, target: string, home: string): InstallRecord => ({
  plugin,
  target,
  scope: 'user',
  source: `./plugins/${plugin}`,
  integrity: `sha256-${plugin}`,
  enabled: true,
  components: [`${plugin}/skill/s`],
  skipped: [],
  files: [{path: join(home, '.agents/skills', plugin.split('@')[0]!, 'SKILL.md'), sha256: 'ab'.repeat(32), component: `${plugin}/skill/s`}],
  dirs: [join(home, '.agents/skills', plugin.split('@')[0]!)],
  config: [],
})

describe('reading and writing the user state', () => {
  it('reads again a state changed since, by this process or another, and hands out arrays of its own', () => {
    const {env, project} = environment()
    writeInstallRecords(env, project, 'user', [record('a@m', 'codex', env.home)])
    const first = readInstallRecords(env, project)
    expect(first.map((r) => r.plugin)).toEqual(['a@m'])
    first.push(record('x@m', 'codex', env.home))
    expect(readInstallRecords(env, project).map((r) => r.plugin)).toEqual(['a@m'])

    // written by this process: read anew
    writeInstallRecords(env, project, 'user', [record('a@m', 'codex', env.home), record('b@m', 'codex', env.home)])
    expect(readInstallRecords(env, project).map((r) => r.plugin)).toEqual(['a@m', 'b@m'])

    // changed in place by someone else (same file, new bytes): read anew
    const file = userStateFile(env)
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.replace('"enabled": true', '"enabled": false'))
    expect(readInstallRecords(env, project).map((r) => r.enabled)).toEqual([false, true])

    // removed, then made again with other records of the same size: never the old reading
    writeInstallRecords(env, project, 'user', [])
    expect(readInstallRecords(env, project)).toEqual([])
    writeInstallRecords(env, project, 'user', [record('c@m', 'codex', env.home), record('d@m', 'codex', env.home)])
    expect(readInstallRecords(env, project).map((r) => r.plugin)).toEqual(['c@m', 'd@m'])
  })

  it('fills the fields a record lacks and sets its scope, as the state was always read', () => {
    const {env, project} = environment()
    writeFileSync(userStateFile(env), JSON.stringify({installs: [{plugin: 'a@m', target: 'codex', scope: 'project'}]}))
    expect(readInstallRecords(env, project)).toEqual([
      {plugin: 'a@m', target: 'codex', scope: 'user', enabled: true, components: [], skipped: [], dirs: [], config: [], files: [], integrity: '', source: ''},
    ])
  })

  it('writes the records in order, keys sorted, whether they were read back, made new or both', () => {
    const {env, project} = environment()
    const unsorted = [record('b@m', 'codex', env.home), record('a@m', 'universal', env.home), record('a@m', 'codex', env.home)]
    writeInstallRecords(env, project, 'user', unsorted)
    const written = readFileSync(userStateFile(env), 'utf8')
    const parsed = JSON.parse(written) as {installs: InstallRecord[]; version: number}
    expect(Object.keys(parsed)).toEqual(['installs', 'version'])
    expect(parsed.installs.map((r) => `${r.plugin} ${r.target}`)).toEqual(['a@m codex', 'a@m universal', 'b@m codex'])
    for (const r of parsed.installs) expect(Object.keys(r)).toEqual([...Object.keys(r)].sort())

    // read back and written again, with one new record whose keys are not in order: the same text for the old ones
    const again = [...readInstallRecords(env, project), {...record('c@m', 'codex', env.home), zz: 1, aa: 2} as unknown as InstallRecord]
    writeInstallRecords(env, project, 'user', again)
    const next = readFileSync(userStateFile(env), 'utf8')
    expect(next.startsWith(written.slice(0, written.lastIndexOf('\n    }') + 6))).toBe(true)
    const last = (JSON.parse(next) as {installs: Array<Record<string, unknown>>}).installs.at(-1)!
    expect(Object.keys(last)).toEqual([...Object.keys(last)].sort())
  })
})

describe('the order of records', () => {
  it("is String#localeCompare's, for ids of the characters compared without the collator and for any other", () => {
    const collator = new Intl.Collator()
    const alphabet = '_-.@0123456789abcdefghijklmnopqrstuvwxyz'
    // each character alone: the ranks are the collator's order
    for (const a of alphabet) for (const b of alphabet) expect(compareIds(a, b)).toBe(collator.compare(a, b))
    let seed = 27
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const word = (chars: string) => Array.from({length: 1 + random(8)}, () => chars[random(chars.length)]).join('')
    const odd = `${alphabet}ABZ é~/ `
    for (let i = 0; i < 20_000; i++) {
      const chars = i % 4 === 0 ? odd : alphabet
      const a = word(chars)
      const b = i % 3 === 0 ? a + word(chars) : word(chars)
      expect(compareIds(a, b)).toBe(collator.compare(a, b))
      expect(compareIds(b, a)).toBe(collator.compare(b, a))
    }
    for (const [a, b] of [
      ['p001@many', 'p0010@many'],
      ['a-b@m', 'a_b@m'],
      ['a.b@m', 'ab@m'],
      ['Review@m', 'review@m'],
      ['p1@m', 'p1@m'],
    ])
      expect(compareIds(a!, b!)).toBe(collator.compare(a!, b!))
  })
})
