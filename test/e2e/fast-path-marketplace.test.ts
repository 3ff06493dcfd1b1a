/**
 * The marketplace and plugin-authoring commands on the fast path. Two sandboxes made alike run the
 * same steps, one through the fast path and one through oclif (LOADOUT_NO_FAST=1): every step must
 * print the same (sandbox paths and times aside), exit the same and leave the same files, and each
 * step must have taken the path expected (the modules loaded).
 */
import {createHash} from 'node:crypto'
import {lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {loadedPackage, moduleTrace} from '../support/module-trace.js'
import {loadout, sandboxes, type Sandbox} from './helpers.js'
import {writeKit} from './tx-support.js'

const sandbox = sandboxes()
const trace = moduleTrace()
afterAll(() => trace.cleanup())

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g

type Step = [args: (sb: Sandbox) => string[], fast: boolean, status: number]
const fast = (args: (sb: Sandbox) => string[], status = 0): Step => [args, true, status]
const oclif = (args: (sb: Sandbox) => string[], status = 2): Step => [args, false, status]

const shown = (sb: Sandbox, text: string) => text.replaceAll(sb.dir, '<sandbox>').replace(ISO_TIME, '<time>')

/** Every file and folder below the sandbox, each file with a hash of its text (sandbox paths and times aside). */
const files = (sb: Sandbox): string[] => {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name)
      const path = shown(sb, relative(sb.dir, full))
      if (lstatSync(full).isDirectory()) {
        out.push(`${path}/`)
        if (name !== '.git') walk(full)
      } else
        out.push(
          `${path} ${createHash('sha256')
            .update(shown(sb, readFileSync(full, 'utf8')))
            .digest('hex')
            .slice(0, 12)}`,
        )
    }
  }
  walk(sb.dir)
  return out
}

/** Runs the steps in two sandboxes made by `setUp`: the fast path in one, oclif in the other. */
const holdsEqual = async (setUp: () => Sandbox, steps: readonly Step[]): Promise<void> => {
  const quick = setUp()
  const slow = setUp()
  for (const [args, expectFast, status] of steps) {
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
    expect(files(quick), `${label}: files`).toEqual(files(slow))
    expect(tookFast, `${label}: ${expectFast ? 'fast path' : 'oclif'} expected`).toBe(expectFast)
    expect(a.status, `${label}: exit status`).toBe(status)
  }
}

const market = (sb: Sandbox) => join(sb.dir, 'market')

const withMarket = (): Sandbox => {
  const sb = sandbox({git: true})
  mkdirSync(join(market(sb), '.claude-plugin'), {recursive: true})
  writeKit(market(sb), 'review')
  writeFileSync(
    join(market(sb), '.claude-plugin', 'marketplace.json'),
    JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'review', source: './review', description: 'Reviews code'}]}),
  )
  return sb
}

describe('the fast path of marketplace list, info, update and remove', () => {
  it('prints, exits and writes what oclif does, step by step', async () => {
    await holdsEqual(withMarket, [
      fast(() => ['marketplace', 'list']),
      fast((sb) => ['marketplace', 'add', market(sb), '--scope', 'user']),
      fast(() => ['marketplace', 'list']),
      fast(() => ['marketplace', 'list', '--json']),
      oclif(() => ['marketplace', 'list', 'extra']),
      fast(() => ['marketplace', 'info', 'acme']),
      fast(() => ['marketplace', 'info', 'acme', '--json']),
      fast(() => ['marketplace', 'info', 'nothing', '--json'], 3),
      oclif(() => ['marketplace', 'info']),
      fast(() => ['marketplace', 'update']),
      fast(() => ['marketplace', 'update', 'acme', '--dry-run', '--json']),
      fast(() => ['marketplace', 'update', 'nothing'], 3),
      fast(() => ['marketplace', 'update', 'acme', '--auto-update', 'notify', '--json']),
      oclif(() => ['marketplace', 'update', 'acme', '--auto-update', 'often']),
      fast(() => ['marketplace', 'remove', 'acme'], 8),
      fast(() => ['marketplace', 'remove', 'nothing', '--yes'], 3),
      fast(() => ['marketplace', 'remove', 'acme', '--dry-run', '--json']),
      fast(() => ['marketplace', 'remove', 'acme', '-y', '--json']),
      oclif(() => ['marketplace', 'remove']),
      fast(() => ['marketplace', 'list', '--json']),
    ])
  })
})
