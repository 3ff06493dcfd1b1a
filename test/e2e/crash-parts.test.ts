/**
 * Kill -9 at every step of a per-part `disable --skill` and `enable --skill` (into codex, gemini-cli
 * and deepagents, where codex already has another skill off, so the change is two reinstalls: one per
 * set of parts off). Each command runs once with LOADOUT_FAILPOINT_TRACE, which lists the failpoints it
 * passes, then is killed once at each. After every kill, the next command's recovery leaves HOME
 * exactly as before the command or exactly as after it (every file of every agent, and what the
 * records say is off), never one agent changed and another not; the same command run again succeeds.
 */
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'
import * as run from './in-process.js'
import {resolveScope} from '../../src/core/kernel/env/scope.js'
import {changeParts} from '../../src/core/ops/install/enable.js'
import {journalPending, killLabel, killRun, prepareHome, tempNames, tracePoints, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const AGENTS = 'codex,gemini-cli,deepagents'

/** Every file under HOME (loadout's own config, cache and data aside) by content, and each record's parts off, by agent. */
const snapshot = (home: string): string => {
  const files: string[] = []
  const skip = ['.config/loadout', '.cache', '.local/share/loadout']
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const full = join(dir, entry.name)
      const rel = relative(home, full)
      if (skip.includes(rel)) continue
      if (entry.isDirectory()) walk(full)
      else files.push(`${rel} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`)
    }
  }
  walk(home)
  const state = join(home, '.config', 'loadout', 'state.json')
  const installs = existsSync(state)
    ? (JSON.parse(readFileSync(state, 'utf8')) as {installs: Array<{plugin: string; target: string; enabled?: boolean; disabledParts?: unknown}>}).installs
    : []
  const records = installs
    .filter((r) => r.plugin === 'kit@direct')
    .map((r) => `${r.target} ${r.enabled !== false} ${JSON.stringify(r.disabledParts ?? {})}`)
    .sort()
  return [...files.sort(), ...records].join('\n')
}

describe('SIGKILL at every step of a per-part disable and enable', () => {
  it('leaves HOME as before the change or as after it, in every agent at once', {timeout: 1_800_000}, async () => {
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const env = run.sandboxEnv(sb)
    const context = resolveScope('user', env)
    const plugin = writeKit(sb.dir)
    const installed = await loadout(sb, ['install', plugin, '--agent', AGENTS, '--scope', 'user', '--yes'])
    expect(installed.status, installed.stderr).toBe(0)
    // codex keeps kit-beta off besides: the change below is one reinstall for codex, another for the rest
    const beta = await loadout(sb, ['disable', 'kit@direct', '--skill', 'kit-beta', '--agent', 'codex', '--scope', 'user'])
    expect(beta.status, beta.stderr).toBe(0)
    const disable = ['disable', 'kit@direct', '--skill', 'kit-alpha', '--scope', 'user']
    const enable = ['enable', 'kit@direct', '--skill', 'kit-alpha', '--scope', 'user', '--yes']
    const again = {
      disable: () => changeParts('kit@direct', {off: {skills: ['kit-alpha']}}, {env, context, yes: false, dryRun: false}),
      enable: () => changeParts('kit@direct', {on: {skills: ['kit-alpha']}}, {env, context, yes: true, dryRun: false}),
    }

    // the first change moves kit-beta of gemini-cli and deepagents out of the folder they shared with
    // codex (codex no longer writes it there): one unkilled round first, so 'on' is the steady state
    for (const args of [disable, enable]) expect((await loadout(sb, args)).status).toBe(0)
    const on = snapshot(sb.home)
    const traced = {disable: await tracePoints(sb, disable), enable: {points: [] as string[], ms: 0}}
    const off = snapshot(sb.home)
    expect(off).not.toBe(on)
    expect(off).toMatch(/codex true .*"kit-alpha".*"kit-beta"/)
    traced.enable = await tracePoints(sb, enable)
    expect(snapshot(sb.home), 'enable restores every file byte for byte').toBe(on)
    const counts = {disable: traced.disable.points.length, enable: traced.enable.points.length}
    console.log(`failpoints passed: ${JSON.stringify(counts)}`)
    for (const n of Object.values(counts)) expect(n).toBeGreaterThan(20)

    /** HOME once the next command has recovered what the kill left: 'on' or 'off', never anything else. */
    const check = async (label: string): Promise<'on' | 'off'> => {
      await run.verify(env).catch((error) => expect.fail(`${label}: verify failed: ${error.message} ${JSON.stringify(error.details ?? '')}`))
      expect(journalPending(sb.home), label).toBe(false)
      expect(tempNames(sb.home), label).toEqual([])
      const now = snapshot(sb.home)
      if (now === on) return 'on'
      if (now === off) return 'off'
      return expect.fail(`${label}: HOME is neither as before nor as after:\n${now}`)
    }

    const midway = {disable: 0, enable: 0}
    for (let i = 0; i < Math.max(counts.disable, counts.enable); i++) {
      for (const command of ['disable', 'enable'] as const) {
        const point = traced[command].points[i]
        const before = command === 'disable' ? 'on' : 'off'
        if (point === undefined) {
          await again[command]()
          continue
        }
        const label = killLabel(command, {point})
        const killed = await killRun(sb, command === 'disable' ? disable : enable, {point})
        if (killed.midway) midway[command]++
        if ((await check(label)) === before) await again[command]()
        expect(await check(`${label}, re-run`)).toBe(before === 'on' ? 'off' : 'on')
      }
    }
    console.log(`kills that left a journal to recover: ${JSON.stringify(midway)}`)
    for (const command of ['disable', 'enable'] as const) expect(midway[command]).toBeGreaterThan(counts[command] - 8)
  })
})
