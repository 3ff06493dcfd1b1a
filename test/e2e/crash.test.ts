/**
 * Kill -9 at any moment: `install`, `update` and `uninstall` into claude-code, codex and deepagents,
 * with a multi-MB ~/.claude.json and a commented config.toml, each killed at 40 moments spread over
 * the whole run (measured from an unkilled run first). After every kill the next command (`verify`)
 * finds the state before or after, never half; re-running the command succeeds; no staging or
 * temporary name is left; with nothing installed, the user's config bytes are as they were.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'
import {
  AGENTS3,
  configHashes,
  journalPending,
  prepareHome,
  recordedTargets,
  runAndSignal,
  SKILL_DIRS,
  skillText,
  tempNames,
  timedRun,
  writeKit,
} from './tx-support.js'

const sandbox = sandboxes()
const KILLS = 40
const ALL = AGENTS3.split(',').sort()

describe('SIGKILL at 40 moments of install, update and uninstall', () => {
  it('always leaves before or after, never half', {timeout: 600_000}, async () => {
    const sb = sandbox()
    prepareHome(sb)
    const plugin = writeKit(sb.dir)
    const original = configHashes(sb.home)
    const install = ['install', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes']
    const update = ['update', '--scope', 'user', '--yes']
    const uninstall = ['uninstall', 'kit', '--scope', 'user', '--yes']
    let version = 'v1'
    const flip = () => {
      version = version === 'v1' ? 'v2' : 'v1'
      for (const s of ['kit-alpha', 'kit-beta']) writeFileSync(join(plugin, 'skills', s, 'SKILL.md'), skillText(s, version))
    }
    const skillFiles = () => SKILL_DIRS.flatMap((d) => ['kit-alpha', 'kit-beta'].map((s) => join(sb.home, d, s, 'SKILL.md')))

    /** What the next loadout command sees: verify must pass, and the state must be whole. */
    const check = async (label: string, viaVerify = true): Promise<'none' | string> => {
      if (viaVerify) {
        const verify = await loadout(sb, ['verify', '--json'])
        expect(verify.status, `${label}: ${verify.stdout}${verify.stderr}`).toBe(0)
      }
      // a lock the killed run left may remain: its owner is dead, and the re-run below takes it over
      expect(journalPending(sb.home), label).toBe(false)
      expect(tempNames(sb.home), label).toEqual([])
      const targets = recordedTargets(sb.home, 'kit@direct')
      if (targets.length === 0) {
        expect(configHashes(sb.home), label).toEqual(original)
        for (const f of skillFiles()) expect(existsSync(f), `${label}: ${f}`).toBe(false)
        expect(existsSync(join(sb.home, '.codex', 'hooks.json')), label).toBe(false)
        expect(existsSync(join(sb.home, '.deepagents', '.mcp.json')), label).toBe(false)
        return 'none'
      }
      expect(targets, label).toEqual(ALL)
      // every agent holds the same version: one whole install, not parts of two
      const versions = new Set(skillFiles().map((f) => /Body (v\d)/.exec(readFileSync(f, 'utf8'))?.[1]))
      expect(versions.size, `${label}: ${[...versions]}`).toBe(1)
      const claude = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8'))
      expect(Object.keys(claude.mcpServers).sort(), label).toEqual(['kit-srv', 'mine'])
      expect(Object.keys(claude.projects).length, label).toBe(6000)
      expect(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8'), label).toContain('# my own server, keep this comment')
      return [...versions][0]!
    }

    // one unkilled round first: it must work, and it says how long each command runs
    const timed = (args: string[]) => timedRun(sb, args)
    const span = {install: await timed(install), update: 0, uninstall: 0}
    flip()
    span.update = await timed(update)
    span.uninstall = await timed(uninstall)
    expect(await check('after the unkilled round')).toBe('none')
    expect(configHashes(sb.home)).toEqual(original)

    const killedMidway = {install: 0, update: 0, uninstall: 0}
    const killAt = async (command: 'install' | 'update' | 'uninstall', args: string[], i: number) => {
      // spread from the first millisecond to a little past the end of a whole run
      const delay = Math.floor(((i + Math.random()) / KILLS) * span[command] * 1.1)
      const killed = await runAndSignal(sb, args, delay)
      const label = `${command} killed at ${delay} ms (kill ${i + 1})`
      const journalPendingBefore = journalPending(sb.home)
      if (killed.signal === 'SIGKILL' && journalPendingBefore) killedMidway[command]++
      const seen = await check(label)
      return {seen, label, midway: killed.signal === 'SIGKILL' && journalPendingBefore}
    }

    for (let i = 0; i < KILLS; i++) {
      // install: before is nothing, after is the current version everywhere
      let {seen, label, midway} = await killAt('install', install, i)
      expect(['none', version], label).toContain(seen)
      // the same command again succeeds (run whenever it has work left, or the kill was mid-transaction)
      if (seen === 'none' || midway) {
        const again = await loadout(sb, install)
        expect(again.status, `${label}, then again: ${again.stderr}`).toBe(0)
        expect(await check(`${label}, re-run`, false)).toBe(version)
      }

      // update: before is the old version, after the new one
      const old = version
      flip()
      ;({seen, label, midway} = await killAt('update', update, i))
      expect([old, version], label).toContain(seen)
      if (seen === old || midway) {
        const updated = await loadout(sb, update)
        expect(updated.status, `${label}, then again: ${updated.stderr}`).toBe(0)
        expect(await check(`${label}, re-run`, false)).toBe(version)
      }

      // uninstall: before is installed, after is nothing
      ;({seen, label} = await killAt('uninstall', uninstall, i))
      expect([version, 'none'], label).toContain(seen)
      if (seen !== 'none') {
        const removed = await loadout(sb, uninstall)
        expect(removed.status, `${label}, then again: ${removed.stderr}`).toBe(0)
      }
      expect(await check(`${label}, re-run`, false)).toBe('none')
    }
    console.log(`kills that left a journal to recover: ${JSON.stringify(killedMidway)} of ${KILLS} each; unkilled runs took ${JSON.stringify(span)} ms`)
    // the kills did land inside transactions, not only before or after them
    expect(killedMidway.install + killedMidway.update + killedMidway.uninstall).toBeGreaterThan(0)
    expect(configHashes(sb.home)).toEqual(original)
  })
})
