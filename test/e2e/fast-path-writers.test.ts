/**
 * `install`, `marketplace add` and `uninstall` take the fast path off a terminal (where they ask nothing). Two
 * sandboxes made alike run the same steps, one through the fast path and one through oclif
 * (LOADOUT_NO_FAST=1): every step must print the same (sandbox paths and times aside), exit the same
 * and leave the same state, and each step must have taken the path expected (the modules loaded).
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'vitest'
import {sandboxes, type Sandbox} from './helpers.js'
import {AGENTS3, writeKit} from './tx-support.js'
import {bothWays, fast, oclif, type Step} from './both-ways.js'

const sandbox = sandboxes()
const holdsEqual = bothWays()

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

describe('the fast path of install and marketplace add', () => {
  it('prints, exits and writes what oclif does, step by step', {timeout: 300_000}, async () => {
    await holdsEqual([setUp(), setUp()], STEPS)
  })
})
