/**
 * The fast path of the read-only commands (bin/run.js → dist/ui/fast) must say exactly what oclif
 * says: every invocation here runs both ways (LOADOUT_NO_FAST=1 forces oclif) and must give the same
 * stdout, stderr and exit status, over homes with nothing, with installs (config edits included),
 * with a tampered install, with a damaged state file and with a marketplace. Each case also says
 * which path it expects, checked through the modules the process loaded, so that a fast path that
 * silently handed everything to oclif would fail too.
 */
import {appendFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {loadedPackage, moduleTrace} from '../support/module-trace.js'
import {loadout, sandboxes, writeSkill} from './helpers.js'
import {AGENTS3, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const trace = moduleTrace()
afterAll(() => trace.cleanup())

type Case = [args: string[], fast: boolean]

const fast = (...args: string[]): Case => [args, true]
const oclif = (...args: string[]): Case => [args, false]

/** Runs a case both ways and holds the outputs equal. */
const same = async (sb: ReturnType<typeof sandbox>, [args, expectFast]: Case, env: NodeJS.ProcessEnv = {}) => {
  trace.reset()
  const quick = await loadout(sb, args, {env: {...env, ...trace.env}})
  const tookFast = !loadedPackage(trace.loaded(), '@oclif/core')
  const slow = await loadout(sb, args, {env: {...env, LOADOUT_NO_FAST: '1'}})
  const label = `loadout ${args.join(' ')}`
  expect({status: quick.status, stdout: quick.stdout, stderr: quick.stderr}, label).toEqual({status: slow.status, stdout: slow.stdout, stderr: slow.stderr})
  expect(tookFast, `${label}: ${expectFast ? 'fast path' : 'oclif'} expected`).toBe(expectFast)
  return quick
}

const COMMON: Case[] = [
  fast('list'),
  fast('list', '--json'),
  fast('list', '--scope', 'user'),
  fast('list', '-s', 'project', '--json'),
  fast('list', '--scope=user', '--json'),
  fast('verify'),
  fast('verify', '--json'),
  fast('verify', '--scope', 'user', '--json'),
  fast('verify', 'nothing@here', '--json'),
  fast('skills', 'list'),
  fast('skills', 'list', '--json'),
  fast('skills', 'list', '--agent', 'claude-code,codex', '--json'),
  fast('skills', 'list', '-a', 'codex', '-s', 'user'),
  fast('skills', 'list', '--agent', 'nope'),
  fast('skills', 'list', '--agent', 'nope', '--json'),
  fast('agents', 'list', '--json'),
  fast('agents', 'list', '--agent', 'claude-code'),
  fast('targets'),
  fast('targets', '--all', '--json'),
  fast('targets', '--detected', '--agent', 'claude-code,codex'),
  fast('targets', '--agent', 'nope', '--json'),
  fast('search', 'review', '--json'),
  fast('search', '--marketplace', 'missing', '--json'),
  fast('search', '--marketplace', 'missing'),
  // help is printed as oclif rendered it at build time (test/e2e/help-fast.test.ts), without oclif
  fast('list', '--help'),
  // what the fast parser leaves to oclif: bad values, unknown flags, arguments, repeats, -h
  oclif('list', '--scope', 'bogus'),
  oclif('list', '--scope', 'bogus', '--json'),
  oclif('list', '--nope'),
  oclif('list', '--nope', '--json'),
  oclif('list', 'extra'),
  oclif('list', '--scope'),
  oclif('list', '--scope', 'user', '--scope', 'project'),
  oclif('list', '-s=user'),
  oclif('list', '--json=yes'),
  oclif('verify', '-h'),
  oclif('skills', 'list', '--agent', ''),
  oclif('skills', 'list', '--agent', '--json'),
  oclif('skills'),
  oclif('skills', 'lst'),
  oclif('search', '--', '--json'),
  oclif('targets', '--all=1'),
]

describe('the fast path of the read-only commands', () => {
  // some eighty runs each: a minute is too short on a busy 2-core machine
  it('prints what oclif prints in an empty home', {timeout: 300_000}, async () => {
    const sb = sandbox({git: true})
    for (const c of COMMON) await same(sb, c)
  })

  it('prints what oclif prints with installs, skills, subagents and a marketplace, and when an install was tampered with', {timeout: 300_000}, async () => {
    const sb = sandbox({git: true})
    const kit = writeKit(sb.dir, 'kit')
    const install = await loadout(sb, ['install', '--loose', kit, '--agent', AGENTS3, '--scope', 'user', '--yes'])
    expect(install.status, install.stderr).toBe(0)
    writeSkill(join(sb.project, '.claude', 'skills'), 'mine')
    writeSkill(join(sb.home, '.agents', 'skills'), 'broken', '---\nname: Not Valid\n---\n')
    mkdirSync(join(sb.home, '.claude', 'agents'), {recursive: true})
    writeFileSync(join(sb.home, '.claude', 'agents', 'helper.md'), '---\nname: helper\ndescription: Helps\n---\n\nHelp.\n')
    const market = join(sb.dir, 'market')
    mkdirSync(join(market, '.claude-plugin'), {recursive: true})
    writeFileSync(
      join(market, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({
        name: 'acme',
        owner: {name: 'Acme'},
        plugins: [
          {name: 'review', source: './review', description: 'Reviews code', category: 'quality', keywords: ['lint']},
          {name: 'odd', source: {source: 'pip', package: 'x'}},
        ],
      }),
    )
    expect((await loadout(sb, ['marketplace', 'add', market, '--scope', 'user'])).status).toBe(0)
    // the parse refusals oclif takes over do not read the home: the empty one above proved them, except a search
    const cases: Case[] = [
      ...COMMON.filter(([args, isFast]) => isFast || args[0] === 'search'),
      fast('verify', 'kit@direct'),
      fast('verify', 'kit'),
      fast('search', 'review'),
      fast('search', 'pdf', 'forms', '--json'),
      fast('search', '--category', 'quality', '--json'),
      fast('search', '-m', 'acme', '-c', 'quality'),
      fast('search'),
    ]
    for (const c of cases) {
      const result = await same(sb, c)
      if (c[0].join(' ') === 'verify --json') expect(result.status).toBe(0)
    }

    // a file an install wrote, changed by hand: verify fails (exit status and {error} alike)
    appendFileSync(join(sb.home, '.claude', 'skills', 'kit-alpha', 'SKILL.md'), 'edited\n')
    for (const c of [fast('verify'), fast('verify', '--json'), fast('list'), fast('list', '--json'), fast('skills', 'list', '--agent', 'claude-code')]) {
      const result = await same(sb, c)
      if (c[0].join(' ') === 'verify --json') expect(result.status).not.toBe(0)
    }
  })

  it('reports a damaged state file and a broken config the same way', async () => {
    const sb = sandbox({git: true})
    mkdirSync(join(sb.home, '.config', 'loadout'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'loadout', 'state.json'), '{"installs": [ nope')
    for (const c of [fast('list'), fast('list', '--json'), fast('verify', '--json'), fast('skills', 'list', '--json')]) {
      const result = await same(sb, c)
      if (c[0].join(' ') === 'list --json') expect(result.status).not.toBe(0)
    }
  })

  it('leaves everything to oclif under DEBUG, LOADOUT_CONTENT_TYPE or a JSON theme', async () => {
    const sb = sandbox({git: true})
    await same(sb, oclif('list'), {LOADOUT_CONTENT_TYPE: 'json'})
    await same(sb, oclif('targets', '--json'), {DEBUG: 'loadout*'})
    mkdirSync(join(sb.home, '.config', 'loadout'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'loadout', 'theme.json'), '{"json": {"key": "cyan"}}')
    await same(sb, oclif('list', '--json'))
  })
})
