/**
 * Kill -9 at every step of `install`, `update` and `uninstall` into claude-code, codex and deepagents,
 * with a multi-MB ~/.claude.json and a commented config.toml. Each command runs once with
 * LOADOUT_FAILPOINT_TRACE, which lists the failpoints it passes (today install passes 61, update 94,
 * uninstall 58: the mutex, every journal line, each staged write, rename, swap and removal, the state
 * written, the journal dropped); then it is killed once at each of them, and SOAK more times at a
 * random moment, so that a step nobody named is still sometimes hit. After every kill the next command
 * (`verify`) finds the state before or after, never half; re-running the command succeeds; no staging
 * or temporary name is left; with nothing installed, the user's config bytes are as they were.
 *
 * The killed runs are real `bin/run.js` processes; the checks and the re-runs after a failpoint kill
 * run in-process (test/e2e/in-process.ts), those after a random kill through the CLI.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
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
  recordedTargets,
  SKILL_DIRS,
  skillText,
  tempNames,
  tracePoints,
  writeKit,
  type Kill,
} from './tx-support.js'

const sandbox = sandboxes()
const SOAK = 4
const ALL = AGENTS3.split(',').sort()

describe('SIGKILL at every step of install, update and uninstall', () => {
  it('always leaves before or after, never half', {timeout: 1_200_000}, async () => {
    const sb = sandbox()
    prepareHome(sb)
    const env = run.sandboxEnv(sb)
    const plugin = writeKit(sb.dir)
    const original = configHashes(sb.home)
    const install = ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes']
    const update = ['update', '--scope', 'user', '--yes']
    const uninstall = ['uninstall', 'kit', '--scope', 'user', '--yes']
    const again = {
      install: () => run.install(env, [plugin], AGENTS3, {loose: true}),
      update: () => run.update(env),
      uninstall: () => run.uninstall(env, 'kit'),
    }
    let version = 'v1'
    const flip = () => {
      version = version === 'v1' ? 'v2' : 'v1'
      for (const s of ['kit-alpha', 'kit-beta']) writeFileSync(join(plugin, 'skills', s, 'SKILL.md'), skillText(s, version))
    }
    const skillFiles = () => SKILL_DIRS.flatMap((d) => ['kit-alpha', 'kit-beta'].map((s) => join(sb.home, d, s, 'SKILL.md')))

    /** What the next loadout command sees: verify must pass, and the state must be whole. */
    const check = async (label: string): Promise<'none' | string> => {
      await run.verify(env).catch((error) => expect.fail(`${label}: verify failed: ${error.message} ${JSON.stringify(error.details ?? '')}`))
      // a lock the killed run left may remain: its owner is dead, and the re-run below takes it over
      expect(journalPending(sb.home), label).toBe(false)
      expect(tempNames(sb.home), label).toEqual([])
      const targets = recordedTargets(sb.home, 'kit@direct')
      if (targets.length === 0) {
        expect(configHashes(sb.home), label).toEqual(original)
        for (const f of skillFiles()) expect(existsSync(f), `${label}: ${f}`).toBe(false)
        expect(existsSync(join(sb.home, '.codex', 'hooks.json')), label).toBe(false)
        expect(existsSync(join(sb.home, '.deepagents', '.mcp.json')), label).toBe(false)
        // nor a folder loadout made for them (a write killed inside one must not keep it)
        for (const dir of ['.deepagents', '.agents', '.claude/skills']) expect(existsSync(join(sb.home, dir)), `${label}: ${dir}`).toBe(false)
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

    // one unkilled round first, through the CLI: it must work, and it leaves the HOME as every later round finds it
    for (const [args, after] of [
      [install, 'v1'],
      [update, 'v2'],
      [uninstall, 'none'],
    ] as const) {
      if (args === update) flip()
      const result = await loadout(sb, args)
      expect(result.status, result.stderr).toBe(0)
      expect(await check(`after an unkilled ${args[0]}`)).toBe(after)
    }
    // then a traced round: it names the points each command passes
    flip()
    const tracedInstall = await tracePoints(sb, install)
    expect(await check('after the traced install')).toBe('v1')
    flip()
    const tracedUpdate = await tracePoints(sb, update)
    expect(await check('after the traced update')).toBe('v2')
    const tracedUninstall = await tracePoints(sb, uninstall)
    expect(await check('after the traced uninstall')).toBe('none')
    const counts = {install: tracedInstall.points.length, update: tracedUpdate.points.length, uninstall: tracedUninstall.points.length}
    console.log(`failpoints passed: ${JSON.stringify(counts)}`)
    // every command passes the mutex, its journal lines, its writes and the commit: far more than a handful
    for (const n of Object.values(counts)) expect(n).toBeGreaterThan(20)

    const midway = {install: 0, update: 0, uninstall: 0}
    /** Kills one run of `command`; the re-run after a random kill goes through the CLI, after a failpoint in-process. */
    const killOnce = async (command: 'install' | 'update' | 'uninstall', args: string[], kill: Kill) => {
      const label = killLabel(command, kill)
      const killed = await killRun(sb, args, kill)
      if (killed.midway) midway[command]++
      const seen = await check(label)
      const rerun = async () => {
        if ('point' in kill) await again[command]()
        else {
          const result = await loadout(sb, args)
          expect(result.status, `${label}, then again: ${result.stderr}`).toBe(0)
        }
      }
      return {seen, label, midway: killed.midway, rerun}
    }

    // install and uninstall, in turn: each install kill is followed by an uninstall kill, from whole states
    const installs = killPlan(tracedInstall, SOAK)
    const uninstalls = killPlan(tracedUninstall, SOAK)
    for (let i = 0; i < Math.max(installs.length, uninstalls.length); i++) {
      if (i < installs.length) {
        // before is nothing, after is the current version everywhere
        const {seen, label, midway: mid, rerun} = await killOnce('install', install, installs[i]!)
        expect(['none', version], label).toContain(seen)
        // the same command again succeeds (run whenever it has work left, or the kill was mid-transaction)
        if (seen === 'none' || mid) {
          await rerun()
          expect(await check(`${label}, re-run`)).toBe(version)
        }
      } else await again.install()
      if (i < uninstalls.length) {
        // before is installed, after is nothing
        const {seen, label, rerun} = await killOnce('uninstall', uninstall, uninstalls[i]!)
        expect([version, 'none'], label).toContain(seen)
        if (seen !== 'none') await rerun()
        expect(await check(`${label}, re-run`)).toBe('none')
      } else await again.uninstall()
    }

    // update: before is the old version, after the new one
    await again.install()
    for (const kill of killPlan(tracedUpdate, SOAK)) {
      const old = version
      flip()
      const {seen, label, midway: mid, rerun} = await killOnce('update', update, kill)
      expect([old, version], label).toContain(seen)
      if (seen === old || mid) {
        await rerun()
        expect(await check(`${label}, re-run`)).toBe(version)
      }
    }
    await again.uninstall()
    expect(await check('at the end')).toBe('none')

    console.log(
      `kills that left a journal to recover: ${JSON.stringify(midway)}; traced runs took ${tracedInstall.ms}, ${tracedUpdate.ms}, ${tracedUninstall.ms} ms`,
    )
    // the kills did land inside transactions, not only before or after them: all but the few points outside the journal
    for (const command of ['install', 'update', 'uninstall'] as const) expect(midway[command]).toBeGreaterThan(counts[command] - 8)
    expect(configHashes(sb.home)).toEqual(original)
  })
})
