/**
 * Kill -9 at any moment of `disable` and `enable` (into claude-code, codex and deepagents, with a
 * multi-MB ~/.claude.json and a commented config.toml), each at 40 moments spread over the whole run.
 * After every kill `verify` passes and finds the plugin wholly enabled or wholly disabled in every
 * agent, never half; the same command run again succeeds; no staging or temporary name is left.
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'
import {AGENTS3, configHashes, journalPending, prepareHome, runAndSignal, SKILL_DIRS, tempNames, timedRun, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const KILLS = 40

/** Whether each user-scope record of `plugin` is enabled, by agent (read as data, not through loadout). */
const enabledByTarget = (home: string, plugin: string): Record<string, boolean> => {
  const state = JSON.parse(readFileSync(join(home, '.config', 'loadout', 'state.json'), 'utf8')) as {
    installs: Array<{plugin: string; target: string; enabled?: boolean}>
  }
  return Object.fromEntries(state.installs.filter((r) => r.plugin === plugin).map((r) => [r.target, r.enabled !== false]))
}

describe('SIGKILL at 40 moments of disable and enable', () => {
  it('always leaves the plugin enabled or disabled in every agent, never half', {timeout: 600_000}, async () => {
    const sb = sandbox()
    prepareHome(sb)
    const plugin = writeKit(sb.dir)
    const original = configHashes(sb.home)
    const installed = await loadout(sb, ['install', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes'])
    expect(installed.status, installed.stderr).toBe(0)
    const disable = ['disable', 'kit@direct', '--scope', 'user']
    const enable = ['enable', 'kit@direct', '--scope', 'user', '--yes']
    const skillFiles = () => SKILL_DIRS.flatMap((d) => ['kit-alpha', 'kit-beta'].map((s) => join(sb.home, d, s, 'SKILL.md')))

    /** What the next command sees: 'on' or 'off', the same in every agent and on disk. */
    const check = async (label: string): Promise<'on' | 'off'> => {
      const verify = await loadout(sb, ['verify', '--json'])
      expect(verify.status, `${label}: ${verify.stdout}${verify.stderr}`).toBe(0)
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

    const timed = (args: string[]) => timedRun(sb, args)
    const span = {disable: await timed(disable), enable: 0}
    expect(await check('after an unkilled disable')).toBe('off')
    span.enable = await timed(enable)
    expect(await check('after an unkilled enable')).toBe('on')

    const midway = {disable: 0, enable: 0}
    const killAt = async (command: 'disable' | 'enable', args: string[], i: number) => {
      const delay = Math.floor(((i + Math.random()) / KILLS) * span[command] * 1.1)
      const killed = await runAndSignal(sb, args, delay)
      const label = `${command} killed at ${delay} ms (kill ${i + 1})`
      if (killed.signal === 'SIGKILL' && journalPending(sb.home)) midway[command]++
      return {seen: await check(label), label}
    }

    for (let i = 0; i < KILLS; i++) {
      let {seen, label} = await killAt('disable', disable, i)
      if (seen === 'on') {
        const again = await loadout(sb, disable)
        expect(again.status, `${label}, then again: ${again.stderr}`).toBe(0)
      }
      expect(await check(`${label}, re-run`)).toBe('off')
      ;({seen, label} = await killAt('enable', enable, i))
      if (seen === 'off') {
        const again = await loadout(sb, enable)
        expect(again.status, `${label}, then again: ${again.stderr}`).toBe(0)
      }
      expect(await check(`${label}, re-run`)).toBe('on')
    }
    console.log(`kills that left a journal to recover: ${JSON.stringify(midway)} of ${KILLS} each; unkilled runs took ${JSON.stringify(span)} ms`)
    expect(midway.disable + midway.enable).toBeGreaterThan(0)
  })
})
