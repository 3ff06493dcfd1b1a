/**
 * `loadout install a b c`: several plugins in one transaction. All three are recorded; a failure of
 * the third leaves nothing of the first two; a SIGKILL mid-batch leaves all or none once the next
 * command recovers. And a reinstall (`--force`) between two plugins sharing config files leaves the
 * HOME as it was once both are uninstalled.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {changes, jsonError, loadout, sandboxes, snapshot} from './helpers.js'
import {AGENTS3, journalPending, recordedTargets, runAndSignal, tempNames, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const ALL = AGENTS3.split(',').sort()
const OWN = ['.cache', '.cache/loadout', '.config', '.config/loadout', '.local', '.local/share', '.local/share/loadout']
const under = (p: string, roots: readonly string[]) => roots.some((r) => p === r || p.startsWith(r + '/'))
// loadout's fetch cache may keep what it fetched; every other path under HOME must be as it was
const outsideCache = (paths: readonly string[]) => paths.filter((p) => !under(p, ['.cache/loadout']) && p !== '.cache')
// loadout's own state, cache and data folders aside (they stay, emptied), the user's HOME as it was
const outsideLoadout = (paths: readonly string[]) =>
  paths.filter((p) => !OWN.includes(p) && !under(p, ['.cache/loadout', '.config/loadout', '.local/share/loadout']))

const kits = (dir: string) => ['ka', 'kb', 'kc'].map((n) => writeKit(dir, n))

describe('install of several plugins', () => {
  it('records all three in one command, one journal', async () => {
    const sb = sandbox()
    const plugins = kits(sb.dir)
    const run = await loadout(sb, ['install', '--loose', ...plugins, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'])
    expect(run.status, run.stderr).toBe(0)
    const out = JSON.parse(run.stdout) as {results: Array<{plugin: string; status: string}>}
    expect(out.results.map((r) => [r.plugin, r.status])).toEqual([
      ['ka@direct', 'installed'],
      ['kb@direct', 'installed'],
      ['kc@direct', 'installed'],
    ])
    for (const id of ['ka@direct', 'kb@direct', 'kc@direct']) expect(recordedTargets(sb.home, id)).toEqual(ALL)
    expect(journalPending(sb.home)).toBe(false)
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
  })

  it('a failure of the third leaves nothing of the first two and exits with its status', async () => {
    const sb = sandbox()
    const plugins = kits(sb.dir)
    // the user's own skill by the name the third plugin's skill takes
    mkdirSync(join(sb.home, '.claude', 'skills', 'kc-alpha'), {recursive: true})
    writeFileSync(join(sb.home, '.claude', 'skills', 'kc-alpha', 'SKILL.md'), '---\nname: kc-alpha\ndescription: mine\n---\n\nMine.\n')
    const before = snapshot(sb.home)
    const run = await loadout(sb, ['install', '--loose', ...plugins, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'])
    expect(run.status, run.stdout + run.stderr).toBe(5)
    expect(run.stdout).toContain('kc-alpha')
    // the state folder the lock was taken in stays, empty; nothing else changed
    expect(outsideCache(changes(before, snapshot(sb.home))).filter((p) => p !== '.config' && p !== '.config/loadout')).toEqual([])
    // installing the first two alone still works: nothing half-done stands in the way
    const two = await loadout(sb, ['install', '--loose', plugins[0]!, plugins[1]!, '--agent', AGENTS3, '--scope', 'user', '--yes'])
    expect(two.status, two.stderr).toBe(0)
    expect(recordedTargets(sb.home, 'kb@direct')).toEqual(ALL)
  })

  it('refuses the whole batch before writing when one needs consent off a terminal', async () => {
    const sb = sandbox()
    const plugins = kits(sb.dir)
    const before = snapshot(sb.home)
    const run = await loadout(sb, ['install', '--loose', ...plugins, '--agent', AGENTS3, '--scope', 'user', '--json'])
    expect(run.status).toBe(8)
    expect(jsonError(run).code).toBe('consent-needed')
    expect(outsideCache(changes(before, snapshot(sb.home)))).toEqual([])
  })

  it('SIGKILL mid-batch leaves all three or none after the next command recovers', {timeout: 300_000}, async () => {
    const sb = sandbox()
    const plugins = kits(sb.dir)
    const before = snapshot(sb.home)
    const install = ['install', '--loose', ...plugins, '--agent', AGENTS3, '--scope', 'user', '--yes']
    let midRun = 0
    for (const delay of [600, 1200, 2000, 3000]) {
      const killed = await runAndSignal(sb, install, delay, 'SIGKILL', {LOADOUT_TEST_STEP_DELAY_MS: '60'})
      if (killed.signal === 'SIGKILL' && journalPending(sb.home)) midRun++
      const verify = await loadout(sb, ['verify', '--json'])
      expect([0, 3], verify.stdout + verify.stderr).toContain(verify.status)
      expect(journalPending(sb.home)).toBe(false)
      expect(tempNames(sb.home)).toEqual([])
      const recorded = ['ka@direct', 'kb@direct', 'kc@direct'].map((id) => recordedTargets(sb.home, id))
      if (recorded.every((t) => t.length === 0)) {
        expect(outsideLoadout(changes(before, snapshot(sb.home))), `kill at ${delay}`).toEqual([])
      } else {
        expect(recorded, `kill at ${delay}`).toEqual([ALL, ALL, ALL])
        expect(verify.status).toBe(0)
        const un = await loadout(sb, ['uninstall', 'ka', '--scope', 'user', '--yes'])
        expect(un.status, un.stderr).toBe(0)
        for (const id of ['kb', 'kc']) expect((await loadout(sb, ['uninstall', id, '--scope', 'user', '--yes'])).status).toBe(0)
      }
    }
    // the test kills inside the batch at least once, or it proves nothing
    expect(midRun).toBeGreaterThan(0)
    const rerun = await loadout(sb, install)
    expect(rerun.status, rerun.stderr).toBe(0)
  })
})

describe('reinstall between two plugins sharing config files', () => {
  it.each([
    ['Q', ['q', 'p']],
    ['P', ['p', 'q']],
  ])('install Q, install P, reinstall Q --force, uninstall both (%s first): HOME as it was', async (_first, order) => {
    const sb = sandbox()
    const q = writeKit(sb.dir, 'q')
    const p = writeKit(sb.dir, 'p')
    const before = snapshot(sb.home)
    for (const args of [
      ['install', '--loose', q, '--agent', 'claude-code', '--scope', 'user', '--yes'],
      ['install', '--loose', p, '--agent', 'claude-code', '--scope', 'user', '--yes'],
      ['install', '--loose', q, '--agent', 'claude-code', '--scope', 'user', '--yes', '--force'],
      ...order.map((name) => ['uninstall', name, '--scope', 'user', '--yes']),
    ]) {
      const run = await loadout(sb, args)
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0)
    }
    expect(outsideLoadout(changes(before, snapshot(sb.home)))).toEqual([])
  })
})
