/**
 * Kill -9 at every step of `disable` and `enable` (into claude-code, codex and deepagents, with a
 * multi-MB ~/.claude.json and a commented config.toml). Each command runs once with
 * LOADOUT_FAILPOINT_TRACE, which lists the failpoints it passes (today disable passes 58, enable 61),
 * then is killed once at each, and SOAK more times at a random moment of its run. After every kill
 * `verify` passes and finds the plugin wholly enabled or wholly disabled in every agent, never half;
 * the same command run again succeeds; no staging or temporary name is left.
 *
 * The killed runs are real `bin/run.js` processes; the checks and the re-runs after a failpoint kill
 * run in-process (test/e2e/in-process.ts), those after a random kill through the CLI.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'
import * as run from './in-process.js'
import {
  AGENTS3,
  configHashes,
  journalPending,
  killLabel,
  killPlan,
  killRun,
  prepareHome,
  SKILL_DIRS,
  tempNames,
  tracePoints,
  unkilledRound,
  writeKit,
  type Kill,
} from './tx-support.js'

const sandbox = sandboxes()
const SOAK = 4

/** Whether each user-scope record of `plugin` is enabled, by agent (read as data, not through loadout). */
const enabledByTarget = (home: string, plugin: string): Record<string, boolean> => {
  const state = JSON.parse(readFileSync(join(home, '.config', 'loadout', 'state.json'), 'utf8')) as {
    installs: Array<{plugin: string; target: string; enabled?: boolean}>
  }
  return Object.fromEntries(state.installs.filter((r) => r.plugin === plugin).map((r) => [r.target, r.enabled !== false]))
}

describe('SIGKILL at every step of disable and enable', () => {
  it('always leaves the plugin enabled or disabled in every agent, never half', {timeout: 1_200_000}, async () => {
    const sb = sandbox()
    prepareHome(sb)
    const env = run.sandboxEnv(sb)
    const plugin = writeKit(sb.dir)
    const original = configHashes(sb.home)
    const installed = await loadout(sb, ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes'])
    expect(installed.status, installed.stderr).toBe(0)
    const disable = ['disable', 'kit@direct', '--scope', 'user']
    const enable = ['enable', 'kit@direct', '--scope', 'user', '--yes']
    const again = {disable: () => run.disable(env, 'kit@direct'), enable: () => run.enable(env, 'kit@direct')}
    const skillFiles = () => SKILL_DIRS.flatMap((d) => ['kit-alpha', 'kit-beta'].map((s) => join(sb.home, d, s, 'SKILL.md')))

    /** What the next command sees: 'on' or 'off', the same in every agent and on disk. */
    const check = async (label: string): Promise<'on' | 'off'> => {
      await run.verify(env).catch((error) => expect.fail(`${label}: verify failed: ${error.message} ${JSON.stringify(error.details ?? '')}`))
      expect(journalPending(sb.home), label).toBe(false)
      expect(tempNames(sb.home), label).toEqual([])
      const states = new Set(Object.values(enabledByTarget(sb.home, 'kit@direct')))
      expect(Object.keys(enabledByTarget(sb.home, 'kit@direct')).sort(), label).toEqual(AGENTS3.split(',').sort())
      expect(states.size, `${label}: ${JSON.stringify(enabledByTarget(sb.home, 'kit@direct'))}`).toBe(1)
      const on = [...states][0]!
      for (const f of skillFiles()) expect(existsSync(f), `${label}: ${f}`).toBe(on)
      const claude = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8'))
      expect(Object.keys(claude.mcpServers).sort(), label).toEqual(on ? ['kit-srv', 'mine'] : ['mine'])
      expect(Object.keys(claude.projects).length, label).toBe(6000)
      expect(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8'), label).toContain('# my own server, keep this comment')
      if (!on) expect(configHashes(sb.home), label).toEqual(original)
      return on ? 'on' : 'off'
    }

    // one unkilled round through the CLI, then a traced one that names the points each command passes
    await unkilledRound(
      sb,
      [
        [disable, 'off'],
        [enable, 'on'],
      ],
      check,
    )
    const traced = {disable: await tracePoints(sb, disable), enable: await tracePoints(sb, enable)}
    expect(await check('after a traced disable and enable')).toBe('on')
    const counts = {disable: traced.disable.points.length, enable: traced.enable.points.length}
    console.log(`failpoints passed: ${JSON.stringify(counts)}`)
    for (const n of Object.values(counts)) expect(n).toBeGreaterThan(20)

    const midway = {disable: 0, enable: 0}
    const killOnce = async (command: 'disable' | 'enable', args: string[], kill: Kill, before: 'on' | 'off') => {
      const label = killLabel(command, kill)
      const killed = await killRun(sb, args, kill)
      if (killed.midway) midway[command]++
      if ((await check(label)) === before) {
        // the same command again succeeds: in-process after a failpoint, through the CLI after a random kill
        if ('point' in kill) await again[command]()
        else {
          const result = await loadout(sb, args)
          expect(result.status, `${label}, then again: ${result.stderr}`).toBe(0)
        }
      }
      expect(await check(`${label}, re-run`)).toBe(before === 'on' ? 'off' : 'on')
    }

    const disables = killPlan(traced.disable, SOAK)
    const enables = killPlan(traced.enable, SOAK)
    for (let i = 0; i < Math.max(disables.length, enables.length); i++) {
      if (i < disables.length) await killOnce('disable', disable, disables[i]!, 'on')
      else await again.disable()
      if (i < enables.length) await killOnce('enable', enable, enables[i]!, 'off')
      else await again.enable()
    }
    console.log(`kills that left a journal to recover: ${JSON.stringify(midway)}; traced runs took ${traced.disable.ms}, ${traced.enable.ms} ms`)
    // the kills did land inside transactions: all but the few points outside the journal
    for (const command of ['disable', 'enable'] as const) expect(midway[command]).toBeGreaterThan(counts[command] - 8)
  })
})
