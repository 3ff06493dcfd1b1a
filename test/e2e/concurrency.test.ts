/**
 * Several loadout processes at once, as real processes: the lock serialises them, each plans on the
 * records as they are once it holds the lock, and none undoes another's work.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {jsonError, loadout, sandboxes} from './helpers.js'
import {AGENTS3, CODEX_TOML, journalPending, prepareHome, recordedTargets, tempNames, writeKit} from './tx-support.js'

const sandbox = sandboxes()
const ALL = AGENTS3.split(',').sort()

const sessionStartCommands = (file: string): string[] => {
  const settings = JSON.parse(readFileSync(file, 'utf8'))
  return (settings.hooks?.SessionStart ?? []).flatMap((g: {hooks: Array<{command: string}>}) => g.hooks.map((h) => h.command)).sort()
}

describe('concurrent installs', () => {
  it('8 installs of 8 plugins at once: all recorded, verify clean, each config holds exactly their entries', {timeout: 180_000}, async () => {
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const names = Array.from({length: 8}, (_, i) => `kit${i}`)
    const plugins = names.map((n) => writeKit(sb.dir, n))
    const results = await Promise.all(plugins.map((p) => loadout(sb, ['install', '--loose', p, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'])))
    for (const r of results) expect(r.status, r.stdout + r.stderr).toBe(0)
    for (const n of names) expect(recordedTargets(sb.home, `${n}@direct`), n).toEqual(ALL)
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    expect(verify.json().checked).toBe(24)

    const claude = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8'))
    expect(Object.keys(claude.mcpServers).sort()).toEqual(['mine', ...names.map((n) => `${n}-srv`)].sort())
    expect(sessionStartCommands(join(sb.home, '.claude', 'settings.json'))).toEqual(names.map((n) => `echo ${n}`).sort())
    const toml = readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8')
    expect(toml.startsWith(CODEX_TOML.trimEnd().split('\n# trailing comment')[0]!)).toBe(true)
    expect((toml.match(/^\[mcp_servers\.kit\d-srv\]$/gm) ?? []).sort()).toEqual(names.map((n) => `[mcp_servers.${n}-srv]`))
    expect(sessionStartCommands(join(sb.home, '.codex', 'hooks.json'))).toEqual(names.map((n) => `echo ${n}`).sort())
    const deep = JSON.parse(readFileSync(join(sb.home, '.deepagents', '.mcp.json'), 'utf8'))
    expect(Object.keys(deep.mcpServers).sort()).toEqual(names.map((n) => `${n}-srv`).sort())
    expect(tempNames(sb.home)).toEqual([])
    expect(journalPending(sb.home)).toBe(false)
  })

  it('8 installs of the same plugin at once: each exits 0 or 9, verify clean, exactly one hook', {timeout: 180_000}, async () => {
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const plugin = writeKit(sb.dir, 'same')
    const results = await Promise.all(
      Array.from({length: 8}, () => loadout(sb, ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'])),
    )
    for (const r of results) expect([0, 9], r.stdout + r.stderr).toContain(r.status)
    const statuses = results.filter((r) => r.status === 0).map((r) => r.json().status)
    // one of them installed it; the others found it installed, judged under the lock
    expect(statuses.filter((s) => s === 'installed')).toHaveLength(1)
    expect(recordedTargets(sb.home, 'same@direct')).toEqual(ALL)
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    expect(sessionStartCommands(join(sb.home, '.claude', 'settings.json'))).toEqual(['echo same'])
    expect(sessionStartCommands(join(sb.home, '.codex', 'hooks.json'))).toEqual(['echo same'])
    expect(tempNames(sb.home)).toEqual([])
  })

  it("files another run is writing are not taken for the user's: a conflict found before the lock is judged again under it", {timeout: 120_000}, async () => {
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const plugin = writeKit(sb.dir, 'same')
    // the first run is killed with its skill folders written and its records not: what a second run
    // sees, before the lock, while the first is still writing
    const killed = await loadout(sb, ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'], {
      env: {LOADOUT_FAILPOINT: 'journal.backup'},
    })
    expect(killed.status).toBe(-1)
    expect(existsSync(join(sb.home, '.claude', 'skills', 'same-alpha', 'SKILL.md'))).toBe(true)
    expect(journalPending(sb.home)).toBe(true)
    const second = await loadout(sb, ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'])
    expect(second.status, second.stdout + second.stderr).toBe(0)
    expect(second.json().status).toBe('installed')
    expect(recordedTargets(sb.home, 'same@direct')).toEqual(ALL)
    expect((await loadout(sb, ['verify', '--json'])).status).toBe(0)
  })

  it('a lock whose pid now names another process (pid reuse) is taken over, not waited for', {timeout: 120_000}, async () => {
    const sb = sandbox()
    prepareHome(sb, {big: false})
    const plugin = writeKit(sb.dir)
    const lock = join(sb.home, '.config', 'loadout', '.lock')
    mkdirSync(lock, {recursive: true})
    // this test process is alive, but it is not the process that took the lock: that one started at tick 1
    writeFileSync(join(lock, 'owner.json'), JSON.stringify({pid: process.pid, start: '1', token: 'gone'}))
    // a wait would run out (LOADOUT_LOCK_WAIT=1, then exit 9): only the takeover lets it pass
    const result = await loadout(sb, ['install', '--loose', plugin, '--agent', AGENTS3, '--scope', 'user', '--yes', '--json'], {env: {LOADOUT_LOCK_WAIT: '1'}})
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(existsSync(lock)).toBe(false)
  })

  it('a live owner is waited for and named: exit 9 once the wait runs out', {timeout: 120_000}, async () => {
    const sb = sandbox()
    const lock = join(sb.home, '.config', 'loadout', '.lock')
    mkdirSync(lock, {recursive: true})
    const start = readFileSync(`/proc/${process.pid}/stat`, 'utf8')
    const tick = start.slice(start.lastIndexOf(')') + 2).split(' ')[19]
    writeFileSync(join(lock, 'owner.json'), JSON.stringify({pid: process.pid, start: tick, token: 'live'}))
    const plugin = writeKit(sb.dir)
    const result = await loadout(sb, ['install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'], {
      env: {LOADOUT_LOCK_WAIT: '1'},
    })
    expect(result.status).toBe(9)
    expect(jsonError(result).message).toBe(`another loadout process (pid ${process.pid}) holds ${lock}`)
    expect(JSON.parse(readFileSync(join(lock, 'owner.json'), 'utf8')).token).toBe('live')
  })
})
