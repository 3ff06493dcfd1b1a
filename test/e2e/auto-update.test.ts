/**
 * Auto-update (issue 28) against a real HTTPS git marketplace. A marketplace added with
 * `--auto-update apply` is due for `loadout update --auto` once its last refresh is a day old (the
 * test ages the record's `updatedAt`): the run takes the new commit, updates the plugin that changed
 * content only, leaves the one that gained a hook (it needs new consent) for later, reports both, and
 * exits 0. `notify` reports without updating. Nothing due: no request (the server is stopped and it
 * still succeeds), in about the time of `--version` (median of interleaved runs, under 1.2x).
 * `doctor` warns about a marketplace not refreshed for over 30 days.
 */
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, NODE, type Sandbox} from '../support/cli.js'
import {loadedPackage, moduleTrace} from '../support/module-trace.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const skill = (name: string, text: string) => `---\nname: ${name}\ndescription: Use when testing auto-update (${name}).\n---\n\n${text}\n`
const catalog = (notes: string, hooked: string) =>
  JSON.stringify({
    name: 'acme',
    plugins: [
      {name: 'notes', source: './plugins/notes', version: notes},
      {name: 'hooked', source: './plugins/hooked', version: hooked},
    ],
  })
const HOOK = 'echo new-hook-on-stop'
const V1: FileMap = {
  '.claude-plugin/marketplace.json': catalog('1.0.0', '1.0.0'),
  'plugins/notes/skills/notes/SKILL.md': skill('notes', 'Notes one.'),
  'plugins/hooked/skills/hooked/SKILL.md': skill('hooked', 'Hooked one.'),
}

let work: string
let server: GitHttpsServer
let market: {repo: string; bare: string}
const sandbox = sandboxes()
let sb: Sandbox
const run = (args: string[], box = sb) => loadout(box, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})
const publish = (files: FileMap) => {
  commitFiles(market.repo, files)
  syncServedRepo(market.bare)
}
const marketsFile = (box = sb) => join(box.home, '.config', 'loadout', 'marketplaces.json')
const records = (box = sb) => (JSON.parse(readFileSync(marketsFile(box), 'utf8')) as {marketplaces: Array<Record<string, unknown>>}).marketplaces
/** Moves the marketplace's last refresh back by `days`: what the passing of time would do. */
const age = (days: number) => {
  const data = JSON.parse(readFileSync(marketsFile(), 'utf8')) as {marketplaces: Array<{updatedAt: string}>}
  for (const r of data.marketplaces) r.updatedAt = new Date(Date.now() - days * 86_400_000).toISOString()
  writeFileSync(marketsFile(), JSON.stringify(data))
}
const notesText = () => readFileSync(join(sb.home, '.claude/skills/notes/SKILL.md'), 'utf8')
const settings = () => {
  try {
    return readFileSync(join(sb.home, '.claude/settings.json'), 'utf8')
  } catch {
    return ''
  }
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-auto-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  market = makeServedRepo(join(work, 'src'), root, 'acme/market', V1)
  sb = sandbox()
  mkdirSync(join(sb.home, '.claude'))
  const added = await run(['marketplace', 'add', 'acme/market', '--scope', 'user', '--auto-update', 'apply', '--json'])
  expect(added.status, added.stderr).toBe(0)
  for (const id of ['notes@acme', 'hooked@acme']) {
    const installed = await run(['install', '--loose', id, '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
  }
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('auto-update modes', () => {
  it('marketplace add --auto-update keeps the mode in the record; marketplace update --auto-update changes it; a bad mode is refused', async () => {
    expect(records()[0]).toMatchObject({name: 'acme', autoUpdate: 'apply'})
    const notify = await run(['marketplace', 'update', 'acme', '--auto-update', 'notify', '--json'])
    expect(notify.status, notify.stderr).toBe(0)
    expect(notify.json()).toEqual({marketplaces: [{name: 'acme', scope: 'user', autoUpdate: 'notify'}]})
    expect(records()[0]!.autoUpdate).toBe('notify')
    expect((await run(['marketplace', 'update', 'acme', '--auto-update', 'apply'])).status).toBe(0)
    expect(records()[0]!.autoUpdate).toBe('apply')
    const bad = await run(['marketplace', 'add', 'acme/market', '--auto-update', 'sometimes', '--json'])
    expect(bad.status).toBe(2)
    expect(jsonError(bad).code).toBe('bad-auto-update')
  })

  it('in a project, the mode is declared in loadout.json too', async () => {
    const project = sandbox({git: true})
    const added = await run(['marketplace', 'add', 'acme/market', '--auto-update', 'notify', '--json'], project)
    expect(added.status, added.stderr).toBe(0)
    const declared = () => JSON.parse(readFileSync(join(project.project, 'loadout.json'), 'utf8')).marketplaces.acme
    expect(declared()).toMatchObject({autoUpdate: 'notify'})
    expect((await run(['marketplace', 'update', 'acme', '--auto-update', 'off'], project)).status).toBe(0)
    expect(declared().autoUpdate).toBeUndefined()
    expect(records(project)[0]!.autoUpdate).toBeUndefined()
  })
})

describe('loadout update --auto', () => {
  it('does nothing while the marketplace is not due, even with a new commit published', async () => {
    publish({
      '.claude-plugin/marketplace.json': catalog('1.1.0', '1.1.0'),
      'plugins/notes/skills/notes/SKILL.md': skill('notes', 'Notes two.'),
      'plugins/hooked/hooks/hooks.json': JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: HOOK}]}]}}),
    })
    const result = await run(['update', '--auto', '--json'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json()).toEqual({due: [], refreshed: [], available: [], updates: [], waiting: [], failed: []})
    expect(notesText()).toContain('Notes one.')
  })

  it('with apply, once due: takes the new commit, leaves the update that needs consent for later, exit 0 and a report', async () => {
    age(2)
    const result = await run(['update', '--auto', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const report = result.json()
    expect(report.due).toEqual([{name: 'acme', scope: 'user', autoUpdate: 'apply'}])
    expect(report.refreshed.map((r: {name: string; status: string}) => `${r.name} ${r.status}`)).toEqual(['acme updated'])
    expect(report.updates.map((u: {plugin: string; status: string}) => `${u.plugin} ${u.status}`)).toEqual(['notes@acme updated'])
    expect(report.updates[0].to.version).toBe('1.1.0')
    expect(report.waiting.map((w: {plugin: string}) => w.plugin)).toEqual(['hooked@acme'])
    expect(notesText()).toContain('Notes two.')
    // the hook needing consent was not written
    expect(settings()).not.toContain(HOOK)
    const text = await run(['update', '--auto'])
    expect(text.stdout).toMatch(/no marketplace is due/)
    // what waits is updated by hand, with consent
    const listed = (await run(['list', '--json'])).json().installs as Array<{plugin: string; version: string}>
    expect(listed.find((r) => r.plugin === 'hooked@acme')?.version).toBe('1.0.0')
  })

  it('with notify, once due: reports the update and installs nothing', async () => {
    expect((await run(['marketplace', 'update', 'acme', '--auto-update', 'notify'])).status).toBe(0)
    publish({'.claude-plugin/marketplace.json': catalog('1.2.0', '1.1.0'), 'plugins/notes/skills/notes/SKILL.md': skill('notes', 'Notes three.')})
    age(2)
    const result = await run(['update', '--auto', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const report = result.json()
    expect(report.available.map((a: {plugin: string; to: {version: string}}) => `${a.plugin} ${a.to.version}`)).toEqual([
      'hooked@acme 1.1.0',
      'notes@acme 1.2.0',
    ])
    expect(report.updates).toEqual([])
    expect(notesText()).toContain('Notes two.')
  })

  it('doctor reports a marketplace not refreshed for over 30 days', async () => {
    age(40)
    const doctor = await run(['doctor', '--json'])
    const checks = (JSON.parse(doctor.stdout) as {checks: Array<{id: string; status: string; message: string}>}).checks
    expect(checks.find((c) => c.id === 'marketplace:acme')).toMatchObject({status: 'warn', message: expect.stringMatching(/last refreshed 40 days ago/)})
    age(0)
    const fresh = JSON.parse((await run(['doctor', '--json'])).stdout) as {checks: Array<{id: string; status: string}>}
    expect(fresh.checks.find((c) => c.id === 'marketplaces')?.status).toBe('ok')
  })

  it('nothing due: no request (the server is down), answered before the fast path or oclif loads', async () => {
    await server.stop()
    const idle = await run(['update', '--auto', '--json'])
    expect(idle.status, idle.stderr).toBe(0)
    expect(idle.json().due).toEqual([])
    // answered before the fast path or oclif loads (its cost against --version is the bench's
    // update-auto-idle; a wall-time bound here failed on a loaded machine)
    const trace = moduleTrace()
    try {
      const traced = spawnSync(NODE, [BIN, 'update', '--auto'], {cwd: sb.project, env: {...sb.env, ...trace.env}, encoding: 'utf8'})
      expect(traced.status, traced.stderr).toBe(0)
      const loaded = trace.loaded()
      expect(loaded.some((m) => m.endsWith('/dist/start/auto-idle.cjs'))).toBe(true)
      expect(loaded.filter((m) => m.includes('/dist/fast/') || m.includes('/dist/commands/'))).toEqual([])
      expect(loadedPackage(loaded, '@oclif/core')).toBe(false)
    } finally {
      trace.cleanup()
    }
    // once due, the same run does try the server: the refresh fails, is reported, and the status stays 0
    age(2)
    const due = await run(['update', '--auto', '--json'])
    expect(due.status, due.stderr).toBe(0)
    expect(due.json().refreshed.map((r: {status: string}) => r.status)).toEqual(['failed'])
  })

  it('LOADOUT_AUTO_UPDATE_INTERVAL sets how old a refresh makes a marketplace due; a bad value is refused (status 2)', async () => {
    // the server is down: a due marketplace shows as a failed refresh
    const withInterval = (interval: string) =>
      loadout(sb, ['update', '--auto', '--json'], {
        env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`, LOADOUT_AUTO_UPDATE_INTERVAL: interval},
      })
    age(2 / 24)
    const daily = await run(['update', '--auto', '--json'])
    expect(daily.json().due).toEqual([])
    const hourly = await withInterval('1h')
    expect(hourly.status, hourly.stderr).toBe(0)
    expect(hourly.json().due).toEqual([{name: 'acme', scope: 'user', autoUpdate: 'notify'}])
    expect((await withInterval('3h')).json().due).toEqual([])
    const bad = await withInterval('soon')
    expect(bad.status).toBe(2)
    expect(jsonError(bad).code).toBe('auto-update-interval-invalid')
  })
})
