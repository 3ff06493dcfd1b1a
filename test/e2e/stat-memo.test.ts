/**
 * The memos of what files held (src/core/kernel/fs/stat-memo.ts): `list` takes a recorded file's
 * sha256, and `skills list` and the budget a SKILL.md's reading, from a memo in loadout's cache
 * while the file's metadata (device, inode, size, modification and change times) is as remembered.
 * Hashes for any number of files, SKILL.md readings over 64 files only; only files unchanged for 3 s
 * are remembered, so each sandbox here waits for its files to settle once.
 *
 * What must hold: a file edited behind loadout's back is reported even when its size is the same and
 * its modification time is set back (the change time still moves); a damaged memo is passed over; a
 * memo of the right form is used (a forged one shows, in list, what it says: proof that it is read,
 * and that `verify` and `skills info` read every file themselves); nothing is written when nothing
 * changed.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes, skillsFolder, writeSkill} from './helpers.js'
import {moduleTrace} from '../support/module-trace.js'

const sandbox = sandboxes()
/** a little more than the memo's 3 s, so that every file written before it is remembered */
const SETTLE_MS = 3200
const FILES = 70

const memoDir = (sb: Sandbox) => join(sb.home, '.cache', 'loadout', 'stat-memo')
const memoPath = (sb: Sandbox, name: string) => join(memoDir(sb), name)

type Entries = Record<string, [string, string, string, string, string, unknown]>

const readMemo = (sb: Sandbox, name: string): {header: Record<string, unknown>; entries: Entries} => {
  const text = readFileSync(memoPath(sb, name), 'utf8')
  const newline = text.indexOf('\n')
  return {header: JSON.parse(text.slice(0, newline)), entries: JSON.parse(text.slice(newline + 1))}
}

/** Writes a memo back with a header whose length matches: what a forger would write, and believed. */
const writeMemo = (sb: Sandbox, name: string, header: Record<string, unknown>, entries: Entries): void => {
  const body = JSON.stringify(entries)
  writeFileSync(memoPath(sb, name), `${JSON.stringify({...header, bytes: body.length})}\n${body}`)
}

/** Rewrites a file in place with other bytes of the same length and sets its modification time back. */
const editKeepingSizeAndMtime = (file: string, from: string, to: string): void => {
  const before = statSync(file, {bigint: true})
  const text = readFileSync(file, 'utf8')
  expect(text).toContain(from)
  expect(to.length).toBe(from.length)
  writeFileSync(file, text.replace(from, to))
  // to the nanosecond, as `touch -d` sets it (utimes through a Date keeps milliseconds only)
  const at = (ns: bigint) => `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`
  const touched = spawnSync('touch', ['-m', '-d', at(before.mtimeNs), file], {encoding: 'utf8'})
  expect(touched.status, touched.stderr).toBe(0)
  const after = statSync(file, {bigint: true})
  expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs])
  expect(after.ctimeNs).not.toBe(before.ctimeNs)
}

const problemsOf = async (sb: Sandbox): Promise<number> => {
  const listed = await loadout(sb, ['list', '--json'])
  expect(listed.status, listed.stderr).toBe(0)
  return listed.json<{installs: Array<{problems: number}>}>().installs[0]!.problems
}

/** A plugin of one skill with FILES files: over the memo's threshold. */
const installBig = async (sb: Sandbox): Promise<string> => {
  const root = join(sb.dir, 'big')
  const skill = join(root, 'skills', 'big')
  mkdirSync(join(skill, 'references'), {recursive: true})
  mkdirSync(join(root, '.claude-plugin'))
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'big', version: '1.0.0'}))
  writeFileSync(join(skill, 'SKILL.md'), '---\nname: big\ndescription: Use when a test needs many files.\n---\n\nBody.\n')
  for (let i = 1; i < FILES; i++) writeFileSync(join(skill, 'references', `ref-${i}.md`), `reference ${i}: the text of it, version A.\n`)
  const installed = await loadout(sb, ['install', root, '--agent', 'universal', '--scope', 'user', '--yes'])
  expect(installed.status, installed.stderr).toBe(0)
  return join(skillsFolder(sb, 'universal', 'user'), 'big')
}

describe('list, over a few files', () => {
  it('takes their hashes from the memo once they settle, and then loads no node:crypto; nor does a search, nor the catalog code', async () => {
    const sb = sandbox()
    const root = join(sb.dir, 'small')
    mkdirSync(join(root, '.claude-plugin'), {recursive: true})
    writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'small', version: '1.0.0'}))
    writeSkill(join(root, 'skills'), 'small')
    const market = join(sb.dir, 'market')
    mkdirSync(join(market, '.claude-plugin'), {recursive: true})
    writeFileSync(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({name: 'm', owner: {name: 'o'}, plugins: [{name: 'small', source: root}]}))
    for (const args of [
      ['install', root, '--agent', 'universal', '--scope', 'user', '--yes'],
      ['marketplace', 'add', market, '--scope', 'user'],
    ]) {
      const done = await loadout(sb, args)
      expect(done.status, done.stderr).toBe(0)
    }
    await sleep(SETTLE_MS)
    const trace = moduleTrace()
    try {
      const crypto = async (args: string[]) => {
        trace.reset()
        const result = await loadout(sb, args, {env: trace.env})
        expect(result.status, result.stderr).toBe(0)
        return trace.loaded().includes('node:crypto')
      }
      // the first of each hashes the files (list) or writes the index (search); the trace sees node:crypto
      expect(await crypto(['list', '--json'])).toBe(true)
      expect(readdirSync(memoDir(sb))).toEqual(['file-sha256'])
      expect(await crypto(['list', '--json'])).toBe(false)
      // the first search reads and indexes each catalog (the built-in one too) with the catalog code
      // (marketplace/browse.ts, a chunk of its own); a search over indexed catalogs loads neither
      const catalogCode = () => trace.loaded().some((m) => /\/dist\/fast\/browse-[^/]*\.cjs$/.test(m))
      await crypto(['search', 'small', '--json'])
      expect(catalogCode()).toBe(true)
      expect(await crypto(['search', 'small', '--json'])).toBe(false)
      expect(catalogCode()).toBe(false)
      // verify reads every byte
      expect(await crypto(['verify', '--json'])).toBe(true)
    } finally {
      trace.cleanup()
    }
  })
})

describe('list, over many files', () => {
  const made: Array<{sb: Sandbox; skill: string}> = []
  beforeAll(async () => {
    for (let i = 0; i < 4; i++) {
      const sb = sandbox()
      made.push({sb, skill: await installBig(sb)})
    }
    await sleep(SETTLE_MS)
  }, 120_000)

  it('remembers the hashes, and writes nothing more while nothing changes', async () => {
    const {sb} = made[0]!
    expect(await problemsOf(sb)).toBe(0)
    const memo = readMemo(sb, 'file-sha256')
    expect(Object.keys(memo.entries)).toHaveLength(FILES)
    const written = statSync(memoPath(sb, 'file-sha256'), {bigint: true})
    expect(await problemsOf(sb)).toBe(0)
    const again = statSync(memoPath(sb, 'file-sha256'), {bigint: true})
    expect([again.ino, again.mtimeNs]).toEqual([written.ino, written.mtimeNs])
    // written by renaming a whole file in: no temporary file left beside it
    expect(readdirSync(memoDir(sb))).toEqual(['file-sha256'])
  })

  it('is kept by cache clean while anything is installed, and goes with it once nothing is', async () => {
    const {sb} = made[0]!
    expect((await loadout(sb, ['cache', 'clean', '--json'])).status).toBe(0)
    expect(existsSync(memoPath(sb, 'file-sha256'))).toBe(true)
    expect((await loadout(sb, ['uninstall', 'big', '--scope', 'user', '--yes'])).status).toBe(0)
    expect((await loadout(sb, ['cache', 'clean', '--json'])).status).toBe(0)
    expect(existsSync(memoDir(sb))).toBe(false)
  })

  it('reports a file edited to the same size with its modification time set back, as verify does', async () => {
    const {sb, skill} = made[1]!
    expect(await problemsOf(sb)).toBe(0)
    editKeepingSizeAndMtime(join(skill, 'references', 'ref-7.md'), 'version A', 'version B')
    expect(await problemsOf(sb)).toBe(1)
    const verified = await loadout(sb, ['verify', '--json'])
    expect(verified.status).toBe(7)
    expect((jsonError(verified).details as {records: Array<{changed: string[]}>}).records[0]!.changed).toEqual([join(skill, 'references', 'ref-7.md')])
  })

  it('takes a hash from the memo while the metadata matches (a forged one shows in list, never in verify)', async () => {
    const {sb, skill} = made[2]!
    expect(await problemsOf(sb)).toBe(0)
    const {header, entries} = readMemo(sb, 'file-sha256')
    const file = join(skill, 'references', 'ref-3.md')
    entries[file]![5] = '0'.repeat(64)
    writeMemo(sb, 'file-sha256', header, entries)
    expect(await problemsOf(sb)).toBe(1)
    const verified = await loadout(sb, ['verify', '--json'])
    expect(verified.status, verified.stdout).toBe(0)
  })

  it('passes over a damaged memo: an edit the memo would hide is reported', async () => {
    const {sb, skill} = made[3]!
    expect(await problemsOf(sb)).toBe(0)
    const file = join(skill, 'references', 'ref-5.md')
    const {header, entries} = readMemo(sb, 'file-sha256')
    const recorded = entries[file]![5]
    editKeepingSizeAndMtime(file, 'version A', 'version C')
    // the entry a forger would write: the file's metadata now, with the hash it was installed with
    const now = statSync(file, {bigint: true})
    entries[file] = [`${now.dev}`, `${now.ino}`, `${now.size}`, `${now.mtimeNs}`, `${now.ctimeNs}`, recorded]
    const body = JSON.stringify(entries)
    const damaged: Array<[string, string]> = [
      ['longer', `${JSON.stringify({...header, bytes: body.length})}\n${body} `],
      ['build', `${JSON.stringify({...header, build: 'another', bytes: body.length})}\n${body}`],
      ['cut short', `${JSON.stringify({...header, bytes: body.length})}\n${body.slice(0, -40)}`],
      ['no header', body],
      ['not JSON', '\u0000\u0001garbage'],
    ]
    for (const [what, text] of damaged) {
      writeFileSync(memoPath(sb, 'file-sha256'), text)
      expect(await problemsOf(sb), what).toBe(1)
    }
    // an entry of the wrong shape in a well-formed memo is passed over too
    writeMemo(sb, 'file-sha256', header, {...entries, [file]: [...entries[file]!.slice(0, 5), 42] as Entries[string]})
    expect(await problemsOf(sb)).toBe(1)
    // and the same entry well formed is believed: the damage above is what kept it out
    writeMemo(sb, 'file-sha256', header, entries)
    expect(await problemsOf(sb)).toBe(0)
  })
})

describe('skills list and the budget, over many skills', () => {
  const made: Sandbox[] = []
  const description = (i: number) => `Use when test ${String(i).padStart(2, '0')} asks, version A.`
  beforeAll(async () => {
    for (let s = 0; s < 3; s++) {
      const sb = sandbox()
      for (let i = 0; i < FILES; i++) {
        const name = `hand-${String(i).padStart(2, '0')}`
        writeSkill(join(sb.home, '.claude', 'skills'), name, `---\nname: ${name}\ndescription: ${description(i)}\n---\n\nBody.\n`)
      }
      made.push(sb)
    }
    await sleep(SETTLE_MS)
  }, 60_000)

  const listed = async (sb: Sandbox, env: NodeJS.ProcessEnv = {}) => {
    const result = await loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--scope', 'user', '--json'], {env})
    expect(result.status, result.stderr).toBe(0)
    return new Map(result.json<{skills: Array<{name: string; description: string}>}>().skills.map((s) => [s.name, s.description]))
  }

  it('remembers each SKILL.md read, sees one edited to the same size with its time set back, and writes nothing while nothing changes', async () => {
    const sb = made[0]!
    expect((await listed(sb)).get('hand-07')).toBe(description(7))
    expect(Object.keys(readMemo(sb, 'skill-md').entries)).toHaveLength(FILES)
    const written = statSync(memoPath(sb, 'skill-md'), {bigint: true})
    expect((await listed(sb)).size).toBe(FILES)
    const again = statSync(memoPath(sb, 'skill-md'), {bigint: true})
    expect([again.ino, again.mtimeNs]).toEqual([written.ino, written.mtimeNs])
    editKeepingSizeAndMtime(join(sb.home, '.claude', 'skills', 'hand-07', 'SKILL.md'), 'version A', 'version B')
    expect((await listed(sb)).get('hand-07')).toBe(description(7).replace('version A', 'version B'))
  })

  it('takes a reading from the memo while the metadata matches; skills info reads the file itself; a damaged memo is passed over', async () => {
    const sb = made[1]!
    await listed(sb)
    const {header, entries} = readMemo(sb, 'skill-md')
    const key = Object.keys(entries).find((k) => k.endsWith('/hand-03/SKILL.md'))!
    ;(entries[key]![5] as {description: string}).description = 'A forged description.'
    writeMemo(sb, 'skill-md', header, entries)
    expect((await listed(sb)).get('hand-03')).toBe('A forged description.')
    const info = await loadout(sb, ['skills', 'info', 'hand-03', '--agent', 'claude-code', '--json'])
    expect(info.json<{description: string}>().description).toBe(description(3))
    // damaged: its length is not the one its header says
    writeFileSync(memoPath(sb, 'skill-md'), readFileSync(memoPath(sb, 'skill-md'), 'utf8').replace('A forged description.', 'A forged description, cut'))
    expect((await listed(sb)).get('hand-03')).toBe(description(3))
  })

  it('the budget warning still fires after an install, counting a description edited behind the memo', async () => {
    const sb = made[2]!
    const budget = async (env: NodeJS.ProcessEnv = {}) => {
      const result = await loadout(sb, ['budget', '--agent', 'claude-code', '--scope', 'user', '--json'], {env})
      expect(result.status, result.stderr).toBe(0)
      return result.json<{agents: Array<{over: boolean; items: Array<{name: string; chars: number}>}>}>().agents[0]!
    }
    const chars = (row: {items: Array<{name: string; chars: number}>}) => row.items.find((i) => i.name === 'hand-10')!.chars
    const before = await budget()
    expect(existsSync(memoPath(sb, 'skill-md'))).toBe(true)
    // the same size on disk, a longer description: the body's word moves up into it
    editKeepingSizeAndMtime(join(sb.home, '.claude', 'skills', 'hand-10', 'SKILL.md'), 'version A.\n---\n\nBody.\n', 'version A. Body.\n---\n\n')
    expect(chars(await budget())).toBe(chars(before) + ' Body.'.length)
    const descriptions = await listed(sb)
    expect(descriptions.get('hand-10')).toBe('Use when test 10 asks, version A. Body.')
    // a budget just under what is there: an install of one more skill goes over and says so
    const used = [...descriptions].reduce((n, [name, d]) => n + name.length + d.length, 0)
    const root = join(sb.dir, 'one-more')
    mkdirSync(join(root, '.claude-plugin'), {recursive: true})
    writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'one-more', version: '1.0.0'}))
    writeSkill(join(root, 'skills'), 'one-more')
    const env = {SLASH_COMMAND_TOOL_CHAR_BUDGET: String(used + 5)}
    expect((await budget(env)).over).toBe(false)
    const installed = await loadout(sb, ['install', root, '--agent', 'claude-code', '--loose', '--scope', 'user', '--yes', '--json'], {env})
    expect(installed.status, installed.stderr).toBe(0)
    expect(installed.json<{overBudget: unknown}>().overBudget).toEqual([
      {agent: 'claude-code', scope: 'user', tokens: expect.any(Number), budget: expect.any(Number), dropped: ['one-more']},
    ])
  })
})
