/**
 * Help without oclif: bin/run.js prints the help oclif rendered at build time (dist/help.json) when
 * oclif would print the same bytes, and hands everything else to oclif. The table must be what
 * oclif renders now (so a stale build fails here), each form of asking must print exactly oclif's
 * output, oclif itself must not be loaded, and a terminal width or forced colour goes to oclif.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {helpKey, renderHelpTable, storedHelpApplies} from '../../src/ui/fast/help-cache.js'
import {makeSandbox, ROOT, runCli} from '../support/cli.js'
import {loadedPackage, moduleTrace} from '../support/module-trace.js'

const stored = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as Record<string, string>

describe('stored help', () => {
  it('holds what oclif renders now, for the root, every topic and every command', async () => {
    const fresh = await renderHelpTable(ROOT)
    expect(Object.keys(stored).sort()).toEqual(Object.keys(fresh).sort())
    expect(Object.keys(stored)).toEqual(expect.arrayContaining(['', 'mcp', 'mcp add', 'install', 'skills list']))
    for (const key of Object.keys(fresh)) expect(stored[key], `help for "${key}"`).toBe(fresh[key])
  })

  it('reads argv as a question for help only in the forms oclif answers with help', () => {
    expect(helpKey([])).toBe('')
    expect(helpKey(['--help'])).toBe('')
    expect(helpKey(['help'])).toBe('')
    expect(helpKey(['mcp', 'add', '--help'])).toBe('mcp add')
    expect(helpKey(['help', 'mcp', 'add'])).toBe('mcp add')
    expect(helpKey(['list', '--json', '--help'])).toBeUndefined()
    expect(helpKey(['list'])).toBeUndefined()
    expect(helpKey(['../x', '--help'])).toBeUndefined()
    expect(storedHelpApplies({}, false)).toBe(true)
    for (const env of [{OCLIF_COLUMNS: '120'}, {FORCE_COLOR: '1'}, {DEBUG: 'loadout*'}, {LOADOUT_NO_FAST: '1'}])
      expect(storedHelpApplies(env, false)).toBe(false)
    expect(storedHelpApplies({}, true)).toBe(false)
  })

  it('prints exactly what oclif prints, without loading oclif; a width or an unknown command goes to oclif', async () => {
    const sb = makeSandbox()
    const trace = moduleTrace()
    try {
      const forms = [[], ['--help'], ['help'], ['install', '--help'], ['help', 'mcp', 'add'], ['mcp', '--help'], ['skills', 'list', '--help']]
      for (const args of forms) {
        trace.reset()
        const fast = await runCli(args, {cwd: sb.project, env: {...sb.env, ...trace.env}})
        expect(loadedPackage(trace.loaded(), '@oclif/core'), `${args.join(' ')} loaded oclif`).toBe(false)
        const oclif = await runCli(args, {cwd: sb.project, env: {...sb.env, LOADOUT_NO_FAST: '1'}})
        expect(fast.status, args.join(' ')).toBe(oclif.status)
        expect(fast.stdout, args.join(' ')).toBe(oclif.stdout)
        expect(fast.stderr, args.join(' ')).toBe(oclif.stderr)
      }
      for (const [args, env] of [
        [['install', '--help'], {OCLIF_COLUMNS: '120'}],
        [['nope', '--help'], {}],
      ] as const) {
        trace.reset()
        const result = await runCli(args, {cwd: sb.project, env: {...sb.env, ...trace.env, ...env}})
        expect(loadedPackage(trace.loaded(), '@oclif/core'), `${args.join(' ')} goes to oclif`).toBe(true)
        const oclif = await runCli(args, {cwd: sb.project, env: {...sb.env, ...env, LOADOUT_NO_FAST: '1'}})
        expect(result.stdout).toBe(oclif.stdout)
        expect(result.status).toBe(oclif.status)
      }
    } finally {
      trace.cleanup()
      sb.cleanup()
    }
  })
})
