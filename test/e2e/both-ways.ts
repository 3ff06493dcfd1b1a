/**
 * Runs the same steps in two sandboxes made alike, one through the fast path and one through oclif
 * (LOADOUT_NO_FAST=1), and holds every step equal: what it printed (sandbox paths, times and UUIDs
 * aside), how it exited, what it left on disk when asked, and which path it took (the modules loaded).
 */
import {afterAll, expect} from 'vitest'
import type {CliResult} from '../support/cli.js'
import {loadedPackage, moduleTrace} from '../support/module-trace.js'
import {loadout, type Sandbox} from './helpers.js'

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g
// the minute a table shows (the two runs of one step may fall either side of a minute)
const TABLE_MINUTE = /\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b/g
// an SBOM's serial number and namespace are new at every run
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g

type Args = string[] | ((sb: Sandbox) => string[])
export type Run = {args: (sb: Sandbox) => string[]; fast: boolean; status: number}
/** something done to both sandboxes alike between two runs */
export type Act = {act: (sb: Sandbox) => void}
export type Step = Run | Act

const argsOf = (args: Args) => (typeof args === 'function' ? args : () => args)
/** A step the fast path must run itself, exiting with `status`. */
export const fast = (args: Args, status = 0): Run => ({args: argsOf(args), fast: true, status})
/** A step the fast path must hand to oclif (bad flags, mostly: exit 2). */
export const oclif = (args: Args, status = 2): Run => ({args: argsOf(args), fast: false, status})

/** `text` with the sandbox's own path, times and UUIDs put as placeholders. */
export const shown = (sb: Sandbox, text: string): string =>
  text.replaceAll(sb.dir, '<sandbox>').replace(ISO_TIME, '<time>').replace(TABLE_MINUTE, '<minute>').replace(UUID, '<uuid>')

type Options = {
  env?: NodeJS.ProcessEnv
  /** what of a sandbox must be the same after each step (compared when given) */
  files?: (sb: Sandbox) => unknown
}

/** A runner of steps both ways; call once at the top of a test file (it cleans up after the file). */
export const bothWays = () => {
  const trace = moduleTrace()
  afterAll(() => trace.cleanup())
  /** Runs the steps both ways and holds them equal; returns the fast path's results. */
  return async ([quick, slow]: readonly [Sandbox, Sandbox], steps: readonly Step[], {env = {}, files}: Options = {}): Promise<CliResult[]> => {
    const results: CliResult[] = []
    for (const step of steps) {
      if ('act' in step) {
        step.act(quick)
        step.act(slow)
        continue
      }
      trace.reset()
      const a = await loadout(quick, step.args(quick), {env: {...env, ...trace.env}})
      const tookFast = !loadedPackage(trace.loaded(), '@oclif/core')
      const b = await loadout(slow, step.args(slow), {env: {...env, LOADOUT_NO_FAST: '1'}})
      const label = `loadout ${shown(quick, step.args(quick).join(' '))}`
      expect({status: a.status, stdout: shown(quick, a.stdout), stderr: shown(quick, a.stderr)}, label).toEqual({
        status: b.status,
        stdout: shown(slow, b.stdout),
        stderr: shown(slow, b.stderr),
      })
      if (files) expect(files(quick), `${label}: files`).toEqual(files(slow))
      expect(tookFast, `${label}: ${step.fast ? 'fast path' : 'oclif'} expected`).toBe(step.fast)
      expect(a.status, `${label}: exit status`).toBe(step.status)
      results.push(a)
    }
    return results
  }
}
