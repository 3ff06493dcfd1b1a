/** `loadout doctor` and `loadout cache list|clean` against real installs in a temporary HOME. */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawn} from 'node:child_process'
import {BIN, NODE, type Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

interface Check {
  id: string
  status: 'ok' | 'warn' | 'error'
  message: string
  fixed?: boolean
}
interface Entry {
  kind: string
  path: string
  bytes: number
  usedBy?: string
}

/** A plugin folder with one skill; `version` changes its content, so each install makes a new copy. */
const writePlugin = (sb: Sandbox, version: string): string => {
  const root = join(sb.dir, 'plug')
  mkdirSync(join(root, 'skills', 'one'), {recursive: true})
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, 'skills', 'one', 'SKILL.md'), `---\nname: one\ndescription: The one skill, ${version}.\n---\n\nBody ${version}.\n`)
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'plug', version}))
  return root
}

const install = async (sb: Sandbox, version: string) => {
  const result = await loadout(sb, ['install', '--loose', writePlugin(sb, version), '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
  expect(result.status, result.stderr).toBe(0)
}

const copies = (entries: Entry[]) => entries.filter((e) => e.kind === 'plugin-copy')

describe('loadout doctor', () => {
  it('says a healthy setup is healthy', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    const result = await loadout(sb, ['doctor', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const report = result.json<{ok: boolean; checks: Check[]}>()
    expect(report.ok).toBe(true)
    const byId = new Map(report.checks.map((c) => [c.id, c]))
    for (const id of ['node', 'git', 'agent:claude-code', 'journal', 'records', 'cache']) expect(byId.get(id)?.status, id).toBe('ok')
    expect(byId.get('git')!.message).toMatch(/^git version \d/)
    const text = await loadout(sb, ['doctor'])
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/^ok +node: Node v/m)
  })

  it('finds an unreadable config file, a linked folder and recorded files that are gone (status 4)', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    writeFileSync(join(sb.home, '.claude.json'), '{\n  "mcpServers": {},,\n}\n')
    mkdirSync(join(sb.dir, 'elsewhere'))
    symlinkSync(join(sb.dir, 'elsewhere'), join(sb.home, '.claude', 'agents'))
    rmSync(join(sb.home, '.claude', 'skills', 'one', 'SKILL.md'))
    const result = await loadout(sb, ['doctor', '--json'])
    expect(result.status).toBe(4)
    const error = jsonError(result)
    expect(error.code).toBe('doctor-found-problems')
    const checks = (error.details as {checks: Check[]}).checks
    const claude = checks.filter((c) => c.id === 'agent:claude-code')
    expect(claude).toContainEqual(
      expect.objectContaining({status: 'error', message: expect.stringMatching(/\.claude\.json: not valid JSON: .* at line 2, column 20$/)}),
    )
    expect(claude).toContainEqual(
      expect.objectContaining({status: 'warn', message: expect.stringContaining(`${join(sb.home, '.claude', 'agents')} is a link to`)}),
    )
    expect(checks).toContainEqual(
      expect.objectContaining({id: 'records', status: 'error', message: expect.stringContaining('plug@direct (user, claude-code): 1 of its 1 files are gone')}),
    )
    const text = await loadout(sb, ['doctor'])
    expect(text.status).toBe(4)
    expect(text.stderr).toContain('error: doctor found 2 problems')
  })

  it('--fix removes the plugin copies nothing uses, and only those', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    await install(sb, '1.0.1')
    const before = await loadout(sb, ['doctor', '--json'])
    expect(before.status, before.stderr).toBe(0)
    expect(before.json<{checks: Check[]}>().checks.find((c) => c.id === 'cache')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('1 cache entries and plugin copies nothing uses'),
    })
    const fixed = await loadout(sb, ['doctor', '--fix', '--json'])
    expect(fixed.status, fixed.stderr).toBe(0)
    expect(fixed.json<{checks: Check[]}>().checks.find((c) => c.id === 'cache')).toMatchObject({status: 'ok', fixed: true})
    const left = copies((await loadout(sb, ['cache', 'list', '--json'])).json<{entries: Entry[]}>().entries)
    expect(left).toHaveLength(1)
    expect(left[0]!.usedBy).toContain('plug@direct')
  })
})

/**
 * Starts an install of a plugin with many skills and kills it (SIGKILL) as soon as its journal
 * appears, so that it dies half-way through writing. True when the kill landed while the journal
 * was there (an install can finish before the kill; the caller tries again).
 */
const killMidInstall = (sb: Sandbox, plugin: string): Promise<boolean> =>
  new Promise((resolve) => {
    const journal = join(sb.home, '.config', 'loadout', 'journal.jsonl')
    const child = spawn(NODE, [BIN, 'install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user', '--yes'], {
      cwd: sb.project,
      env: sb.env,
      stdio: 'ignore',
    })
    let killed = false
    const poll = setInterval(() => {
      // its first whole line names the run: a kill before that leaves a journal that names nothing
      if (!killed && existsSync(journal) && readFileSync(journal, 'utf8').includes('\n')) {
        killed = child.kill('SIGKILL')
      }
    }, 1)
    child.on('exit', () => {
      clearInterval(poll)
      resolve(killed && existsSync(journal))
    })
  })

describe('loadout doctor, after an install was killed', () => {
  it('reports the pending journal, and --fix rolls the half-done install back', async () => {
    let sb: Sandbox | undefined
    for (let attempt = 0; attempt < 10 && !sb; attempt++) {
      const candidate = sandbox()
      mkdirSync(join(candidate.home, '.claude'))
      const root = join(candidate.dir, 'many')
      mkdirSync(join(root, '.claude-plugin'), {recursive: true})
      writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'many', version: '1.0.0'}))
      for (let i = 0; i < 400; i++) {
        mkdirSync(join(root, 'skills', `s${i}`), {recursive: true})
        writeFileSync(join(root, 'skills', `s${i}`, 'SKILL.md'), `---\nname: s${i}\ndescription: Skill ${i}.\n---\n\n${'Body. '.repeat(200)}\n`)
      }
      if (await killMidInstall(candidate, root)) sb = candidate
    }
    expect(sb, 'no attempt was killed while its journal existed').toBeDefined()
    const report = await loadout(sb!, ['doctor', '--json'])
    expect(report.status, report.stderr).toBe(0)
    expect(report.json<{checks: Check[]}>().checks.find((c) => c.id === 'journal')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/many@direct.* was interrupted; its journal is pending$/),
    })

    const fixed = await loadout(sb!, ['doctor', '--fix', '--json'])
    expect(fixed.status, fixed.stderr).toBe(0)
    expect(fixed.json<{checks: Check[]}>().checks.find((c) => c.id === 'journal')).toMatchObject({
      status: 'ok',
      fixed: true,
      message: expect.stringMatching(/many@direct.*, interrupted, was (rolled back|completed)/),
    })
    expect(existsSync(join(sb!.home, '.config', 'loadout', 'journal.jsonl'))).toBe(false)
    const skills = join(sb!.home, '.claude', 'skills')
    const left = existsSync(skills) ? readdirSync(skills) : []
    const list = (await loadout(sb!, ['list', '--json'])).stdout
    // Rolled back: no skill of the plugin is left; completed: it is installed and recorded.
    if (list.includes('many@direct')) expect(left).toHaveLength(400)
    else expect(left).toEqual([])
  })
})

describe('loadout cache', () => {
  it('lists plugin copies with sizes and users; clean removes the unused ones and never a recorded pluginRoot', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    await install(sb, '1.0.1')
    await install(sb, '1.0.2')
    const list = await loadout(sb, ['cache', 'list', '--json'])
    expect(list.status, list.stderr).toBe(0)
    const listing = list.json<{entries: Entry[]; totalBytes: number; unusedBytes: number}>()
    const all = copies(listing.entries)
    expect(all).toHaveLength(3)
    expect(all.every((e) => e.bytes > 0)).toBe(true)
    const used = all.filter((e) => e.usedBy)
    expect(used).toHaveLength(1)
    expect(listing.unusedBytes).toBeGreaterThan(0)
    expect(listing.totalBytes).toBeGreaterThan(listing.unusedBytes)

    const dry = await loadout(sb, ['cache', 'clean', '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    expect(dry.json<{removed: Entry[]}>().removed).toHaveLength(2)
    expect(all.every((e) => existsSync(e.path))).toBe(true)

    const clean = await loadout(sb, ['cache', 'clean'])
    expect(clean.status, clean.stderr).toBe(0)
    expect(clean.stdout).toContain('removed 2 entries')
    for (const e of all) expect(existsSync(e.path), e.path).toBe(e === used[0])
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)

    const again = await loadout(sb, ['cache', 'clean', '--json'])
    expect(again.json<{removed: Entry[]}>().removed).toEqual([])
  })

  it('says so when the cache is empty', async () => {
    const sb = sandbox()
    const list = await loadout(sb, ['cache', 'list'])
    expect(list.status, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^the cache is empty/)
  })
})

describe('loadout cache, with git sources', () => {
  let work: string
  let server: GitHttpsServer
  let solo: {repo: string; bare: string; sha: string}
  const catalog = JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'review', source: './plugins/review', description: 'Reviews code'}]})
  const skillMd = (name: string, text: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\n\n${text}\n`

  beforeAll(async () => {
    work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-cache-')))
    mkdirSync(join(work, 'served'))
    server = await startGitHttpsServer({root: join(work, 'served')})
    makeServedRepo(join(work, 'src'), join(work, 'served'), 'acme/plugins', {
      '.claude-plugin/marketplace.json': catalog,
      'plugins/review/skills/review/SKILL.md': skillMd('review', 'Review the diff.'),
    })
    solo = makeServedRepo(join(work, 'src'), join(work, 'served'), 'acme/solo', {'skills/solo/SKILL.md': skillMd('solo', 'Do it.')})
  })
  afterAll(async () => {
    await server?.stop()
    rmSync(work, {recursive: true, force: true})
  })

  it('keeps the mirror and the checkouts in use, and removes what an update left behind', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const run = (args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})
    expect((await run(['marketplace', 'add', 'acme/plugins', '--json'])).status).toBe(0)
    const installed = await run(['install', '--loose', 'acme/solo', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    const first = solo.sha
    commitFiles(solo.repo, {'skills/solo/SKILL.md': skillMd('solo', 'Do it twice.')})
    syncServedRepo(solo.bare)
    const updated = await run(['update', '--yes', '--json'])
    expect(updated.status, updated.stderr).toBe(0)

    const entries = (await run(['cache', 'list', '--json'])).json<{entries: Entry[]}>().entries
    const trees = entries.filter((e) => e.kind === 'git-tree')
    const old = trees.find((e) => e.path.endsWith(first))!
    expect(old.usedBy).toBeUndefined()
    expect(trees.filter((e) => e.usedBy?.includes('plugin solo@direct'))).toHaveLength(1)
    expect(trees.filter((e) => e.usedBy === 'marketplace acme')).toHaveLength(1)
    expect(
      entries
        .filter((e) => e.kind === 'git-mirror')
        .map((e) => e.usedBy)
        .sort(),
    ).toEqual(['marketplace acme', expect.stringContaining('plugin solo@direct')])
    expect(entries.find((e) => e.path.endsWith('empty-hooks'))!.usedBy).toContain('git')
    expect(copies(entries).filter((e) => !e.usedBy)).toHaveLength(1)

    const clean = await run(['cache', 'clean', '--json'])
    expect(clean.status, clean.stderr).toBe(0)
    expect(
      clean
        .json<{removed: Entry[]}>()
        .removed.map((e) => e.kind)
        .sort(),
    ).toEqual(['git-tree', 'plugin-copy'])
    expect(existsSync(old.path)).toBe(false)
    for (const e of entries.filter((x) => x.usedBy)) expect(existsSync(e.path), e.path).toBe(true)
    const search = await run(['search', 'review', '--json'])
    expect(search.status, search.stderr).toBe(0)
    expect(search.stdout).toContain('review')
    const verified = await run(['verify', '--json'])
    expect(verified.status, verified.stdout + verified.stderr).toBe(0)
  })
})
