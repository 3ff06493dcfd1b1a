/**
 * `install`, `marketplace add` and `uninstall` take the fast path off a terminal (where they ask nothing). Two
 * sandboxes made alike run the same steps, one through the fast path and one through oclif
 * (LOADOUT_NO_FAST=1): every step must print the same (sandbox paths and times aside), exit the same
 * and leave the same state, and each step must have taken the path expected (the modules loaded).
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {loadedPackage, moduleTrace} from '../support/module-trace.js'
import {loadout, sandboxes, type Sandbox} from './helpers.js'
import {AGENTS3, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const trace = moduleTrace()
afterAll(() => trace.cleanup())

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g

const setUp = (): Sandbox => {
  const sb = sandbox({git: true})
  writeKit(sb.dir, 'kit')
  const market = join(sb.dir, 'market')
  mkdirSync(join(market, '.claude-plugin'), {recursive: true})
  writeKit(market, 'review')
  writeFileSync(
    join(market, '.claude-plugin', 'marketplace.json'),
    JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'review', source: './review', description: 'Reviews code'}]}),
  )
  return sb
}

type Step = [args: (sb: Sandbox) => string[], fast: boolean, status: number]
const fast = (args: (sb: Sandbox) => string[], status = 0): Step => [args, true, status]
const oclif = (args: (sb: Sandbox) => string[], status = 2): Step => [args, false, status]

const kit = (sb: Sandbox) => join(sb.dir, 'kit')
const market = (sb: Sandbox) => join(sb.dir, 'market')

const STEPS: Step[] = [
  fast(() => ['install', '--loose', 'review@acme', '--agent', 'claude-code', '--scope', 'user', '--yes'], 3),
  fast((sb) => ['marketplace', 'add', market(sb), '--scope', 'user', '--dry-run']),
  fast((sb) => ['marketplace', 'add', market(sb), '--scope', 'user']),
  fast((sb) => ['marketplace', 'add', market(sb), '--scope', 'user', '--json']),
  fast((sb) => ['marketplace', 'add', join(sb.dir, 'missing'), '--json'], 3),
  oclif(() => ['marketplace', 'add']),
  oclif((sb) => ['marketplace', 'add', market(sb), '--sparse', 'x'], 0),
  oclif((sb) => ['marketplace', 'add', market(sb), 'extra']),
  fast((sb) => ['install', '--loose', kit(sb), '--agent', AGENTS3, '--scope', 'user'], 8),
  fast((sb) => ['install', '--loose', kit(sb), '--agent', AGENTS3, '--scope', 'user', '--json'], 8),
  fast((sb) => ['install', kit(sb), '--agent', 'nope', '--scope', 'user', '--yes'], 2),
  fast((sb) => ['install', '--loose', kit(sb), '--agent', AGENTS3, '--scope', 'user', '--yes', '--dry-run', '--json']),
  fast((sb) => ['install', '--loose', kit(sb), '--agent', AGENTS3, '--scope', 'user', '--yes']),
  fast((sb) => ['install', '--loose', kit(sb), '--agent', AGENTS3, '--scope', 'user', '--yes', '--json']),
  fast((sb) => ['install', '--loose', kit(sb), '-f', '--agent', 'claude-code', '--scope', 'user', '-y', '--json']),
  fast(() => ['install', '--loose', 'review@acme', 'nothing@acme', '--agent', 'claude-code', '--scope', 'user', '--yes'], 3),
  fast(() => ['install', '--loose', 'review@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json']),
  fast(() => ['install', '--json']),
  fast(() => ['install', '--frozen']),
  oclif(() => ['install', 'review@acme', '--skill', 'review-alpha', '--agent', 'codex', '--scope', 'user', '--yes'], 0),
  // help as oclif rendered it at build time, without oclif (test/e2e/help-fast.test.ts)
  fast(() => ['install', '--help'], 0),
  oclif(() => ['install', 'review@acme', '--scope', 'everywhere']),
  oclif(() => ['install', 'review@acme', '--bogus']),
  fast(() => ['uninstall', 'kit@direct', '--scope', 'user', '--json'], 8),
  fast(() => ['uninstall', 'nothing@here', '--scope', 'user', '--yes'], 3),
  fast(() => ['uninstall', 'kit@direct', '--agent', 'codex', '--scope', 'user', '--yes', '--dry-run', '--json']),
  fast(() => ['uninstall', 'kit@direct', '--agent', 'codex', '--scope', 'user', '--yes', '--json']),
  oclif(() => ['uninstall']),
  oclif(() => ['uninstall', 'kit@direct', 'review@acme', '--yes']),
  fast(() => ['list', '--json']),
  fast(() => ['verify', '--json']),
  fast(() => ['uninstall', 'kit@direct', '--scope', 'user', '-y']),
  fast(() => ['list', '--json']),
]

const shown = (sb: Sandbox, text: string) => text.replaceAll(sb.dir, '<sandbox>').replace(ISO_TIME, '<time>')

describe('the fast path of install and marketplace add', () => {
  it('prints, exits and writes what oclif does, step by step', {timeout: 300_000}, async () => {
    const quick = setUp()
    const slow = setUp()
    for (const [args, expectFast, status] of STEPS) {
      trace.reset()
      const a = await loadout(quick, args(quick), {env: trace.env})
      const tookFast = !loadedPackage(trace.loaded(), '@oclif/core')
      const b = await loadout(slow, args(slow), {env: {LOADOUT_NO_FAST: '1'}})
      const label = `loadout ${shown(quick, args(quick).join(' '))}`
      expect({status: a.status, stdout: shown(quick, a.stdout), stderr: shown(quick, a.stderr)}, label).toEqual({
        status: b.status,
        stdout: shown(slow, b.stdout),
        stderr: shown(slow, b.stderr),
      })
      expect(tookFast, `${label}: ${expectFast ? 'fast path' : 'oclif'} expected`).toBe(expectFast)
      expect(a.status, `${label}: exit status`).toBe(status)
    }
  })
})
