import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT} from '../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'loadout-failpoint-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A process that passes the points a, b, a (then says it survived), with `env` set. */
const passAbA = (env: NodeJS.ProcessEnv) =>
  spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const {failpoint} = await import(${JSON.stringify(join(ROOT, 'dist/core/kernel/env/failpoint.js'))}); failpoint('a'); failpoint('b'); failpoint('a'); console.log('survived')`,
    ],
    {env: {PATH: process.env.PATH, ...env}, encoding: 'utf8'},
  )

describe('failpoints', () => {
  it('do nothing when neither variable is set', () => {
    const run = passAbA({})
    expect(run.signal).toBeNull()
    expect(run.stdout).toBe('survived\n')
  })

  it('kill the process with SIGKILL at the n-th pass of the point named', () => {
    for (const [spec, survives] of [
      ['a', false],
      ['a#1', false],
      ['a#2', false],
      ['a#3', true],
      ['b', false],
      ['c', true],
    ] as const) {
      const run = passAbA({LOADOUT_FAILPOINT: spec})
      expect(run.signal, spec).toBe(survives ? null : 'SIGKILL')
      expect(run.stdout, spec).toBe(survives ? 'survived\n' : '')
    }
  })

  it('list each point as it is passed in the trace file', () => {
    const trace = join(dir, 'trace')
    expect(passAbA({LOADOUT_FAILPOINT_TRACE: trace}).stdout).toBe('survived\n')
    expect(readFileSync(trace, 'utf8')).toBe('a\nb\na\n')
  })
})
