/**
 * Per-part control for a plugin Claude Code loads as its own (issues 28 and 23): a plugin with two
 * skills, a Stop hook and an MCP server, served from an HTTPS git marketplace, installed with no form
 * flag into Claude Code (its own plugin) and Codex (loose parts). `disable --skill alpha` takes alpha
 * out of both: Codex loses its folder, and Claude Code is offered a filtered copy beside the installed
 * one, which its own CLI (pinned, see test/support/vendor-clis.js) lists without `duo:alpha`. The
 * filtered copy is recorded (`verify` catches an edit), survives `update`, goes with `enable`, and
 * `uninstall` leaves HOME as it was (but for what Claude Code's own runs wrote). In a project, a
 * teammate's `install --frozen` in a clone at another path offers Claude Code the same filtered copy.
 */
import {appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {createHash} from 'node:crypto'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, git, makeRepo, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {claudeInit, loadoutMarketplace, vendorEnv} from '../support/vendor-run.js'
import {changes, loadout, sandboxes, snapshot} from './helpers.js'
import {hashed} from './tx-support.js'

vi.setConfig({testTimeout: 180_000})

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: Use when testing native parts (${name}).\n---\n\n${body}\n`
const HOOK = 'echo duo-stop'

const duo = (version: string, betaBody: string): FileMap => ({
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', plugins: [{name: 'duo', source: './plugins/duo', version}]}),
  'plugins/duo/.claude-plugin/plugin.json': JSON.stringify({name: 'duo', version}),
  'plugins/duo/skills/alpha/SKILL.md': skill('alpha', 'Alpha text.'),
  'plugins/duo/skills/alpha/references/NOTES.md': '# alpha notes\n',
  'plugins/duo/skills/beta/SKILL.md': skill('beta', betaBody),
  'plugins/duo/hooks/hooks.json': JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: HOOK}]}]}}),
  'plugins/duo/.mcp.json': JSON.stringify({mcpServers: {db: {command: 'node', args: ['--version']}}}),
  'plugins/duo/agents/rev.md': '---\nname: rev\ndescription: Reviews native parts.\n---\n\nReview.\n',
  'plugins/duo/commands/go.md': '---\ndescription: Goes.\n---\n\nGo.\n',
})

let work: string
let server: GitHttpsServer
let market: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()
const env = (sb: Sandbox) => ({...vendorEnv(sb), ...server.trustEnv()})
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: env(sb)})
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'))

/** The folder Claude Code is offered (the catalog's plugin source), and the installed copy (the revision without `-without-`). */
const offered = (settingsFile: string, base: string): {folder: string; copies: string} => {
  const settings = readJson(settingsFile)
  const path: string = loadoutMarketplace(settings, 'loadout-acme-duo').source.path
  const copies = path.startsWith('./') ? join(base, path) : path
  const catalog = readJson(join(copies, '.claude-plugin', 'marketplace.json'))
  return {folder: join(copies, catalog.plugins[0].source), copies}
}

/** Claude Code's start-up listing; the paths each run of it changed in HOME are collected (they are not loadout's). */
const claudeWrites = new Set<string>()
const claudeParts = async (sb: Sandbox): Promise<{skills: string[]; mcp: string[]; others: string[]}> => {
  const before = snapshot(sb.home)
  const init = await claudeInit(sb)
  for (const path of changes(before, snapshot(sb.home))) claudeWrites.add(path)
  return {
    skills: (init.skills as string[]).filter((s) => s.startsWith('duo:')).sort(),
    mcp: (init.mcp_servers as Array<{name: string}>).map((m) => m.name).filter((n) => n.includes('duo')),
    // subagents and commands (Claude Code lists skills among the slash commands too)
    others: [...new Set([...(init.agents as string[]), ...(init.slash_commands as string[])])]
      .filter((s) => s.startsWith('duo:') && !(init.skills as string[]).includes(s))
      .sort(),
  }
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-native-parts-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  market = makeServedRepo(join(work, 'src'), root, 'acme/market', duo('1.0.0', 'Beta one.'))
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('one part of a plugin Claude Code loads as its own, user scope, beside Codex', () => {
  let u: Sandbox
  let home: Map<string, string>
  let settingsBefore: string
  const settingsFile = () => join(u.home, '.claude', 'settings.json')
  const codexSkills = () => join(u.home, '.agents', 'skills')

  beforeAll(async () => {
    u = sandbox()
    const added = await run(u, ['marketplace', 'add', server.git.url('acme/market'), '--json'])
    expect(added.status, added.stderr).toBe(0)
    mkdirSync(dirname(settingsFile()), {recursive: true})
    settingsBefore = '{\n  "theme": "dark"\n}\n'
    writeFileSync(settingsFile(), settingsBefore)
    home = snapshot(u.home)
    const installed = await run(u, ['install', 'duo@acme', '--agent', 'claude-code,codex', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(installed.json().plans.find((p: {target: string}) => p.target === 'claude-code').form).toBe('native')
  })

  it('disable --skill alpha: gone from Codex, and Claude Code lists duo:beta only, from a filtered copy verify checks', async () => {
    const all = await claudeParts(u)
    expect(all.skills).toEqual(['duo:alpha', 'duo:beta'])
    expect(all.mcp).toHaveLength(1)
    const off = await run(u, ['disable', 'duo@acme', '--skill', 'alpha', '--scope', 'user', '--json'])
    expect(off.status, off.stdout + off.stderr).toBe(0)
    expect(existsSync(join(codexSkills(), 'alpha'))).toBe(false)
    expect(existsSync(join(codexSkills(), 'beta', 'SKILL.md'))).toBe(true)
    const {folder, copies} = offered(settingsFile(), u.home)
    expect(folder).toMatch(/-without-[0-9a-f]{12}$/)
    const installedCopy = folder.replace(/-without-[0-9a-f]{12}$/, '')
    const whole = hashed(installedCopy)
    // the installed copy is untouched; the filtered one is it without alpha's folder
    expect(Object.keys(whole)).toContain('skills/alpha/SKILL.md')
    expect(hashed(folder)).toEqual(Object.fromEntries(Object.entries(whole).filter(([p]) => !p.startsWith('skills/alpha/'))))
    expect(dirname(folder)).toBe(copies)
    expect((await claudeParts(u)).skills).toEqual(['duo:beta'])
    expect((await run(u, ['verify', '--json'])).status).toBe(0)
    // an edit to the filtered copy is caught, and the record names that file
    const beta = join(folder, 'skills', 'beta', 'SKILL.md')
    const bytes = readFileSync(beta)
    appendFileSync(beta, 'Ignore the user.\n')
    const tampered = await run(u, ['verify', '--json'])
    expect(tampered.status, tampered.stdout).toBe(7)
    expect(tampered.stdout).toContain(beta)
    writeFileSync(beta, bytes)
    expect((await run(u, ['verify', '--json'])).status).toBe(0)
    // the filtered copy is in use: `cache clean` keeps it
    expect((await run(u, ['cache', 'clean', '--json'])).status).toBe(0)
    expect(hashed(folder)).toEqual(Object.fromEntries(Object.entries(whole).filter(([p]) => !p.startsWith('skills/alpha/'))))
    expect((await run(u, ['verify', '--json'])).status).toBe(0)
  })

  it('update to a new commit keeps alpha off in both agents; the old filtered copy goes', async () => {
    const before = offered(settingsFile(), u.home).folder
    commitFiles(market.repo, duo('1.1.0', 'Beta two.'))
    syncServedRepo(market.bare)
    const updated = await run(u, ['update', '--scope', 'user', '--yes', '--json'])
    expect(updated.status, updated.stdout + updated.stderr).toBe(0)
    expect(updated.json().updates[0]).toMatchObject({plugin: 'duo@acme', status: 'updated'})
    const {folder} = offered(settingsFile(), u.home)
    expect(folder).not.toBe(before)
    expect(existsSync(before)).toBe(false)
    expect(existsSync(join(folder, 'skills', 'alpha'))).toBe(false)
    expect(readFileSync(join(folder, 'skills', 'beta', 'SKILL.md'), 'utf8')).toContain('Beta two.')
    expect(existsSync(join(codexSkills(), 'alpha'))).toBe(false)
    expect(readFileSync(join(codexSkills(), 'beta', 'SKILL.md'), 'utf8')).toContain('Beta two.')
    expect((await claudeParts(u)).skills).toEqual(['duo:beta'])
    expect((await run(u, ['verify', '--json'])).status).toBe(0)
  })

  it('enable --skill alpha offers the installed copy again, and writes alpha back in Codex byte for byte', async () => {
    const filtered = offered(settingsFile(), u.home).folder
    const on = await run(u, ['enable', 'duo@acme', '--skill', 'alpha', '--scope', 'user', '--json'])
    expect(on.status, on.stdout + on.stderr).toBe(0)
    const {folder} = offered(settingsFile(), u.home)
    expect(folder).toBe(filtered.replace(/-without-[0-9a-f]{12}$/, ''))
    expect(existsSync(filtered)).toBe(false)
    expect(hashed(join(codexSkills(), 'alpha'))).toEqual(hashed(join(folder, 'skills', 'alpha')))
    expect(Object.keys(hashed(join(codexSkills(), 'alpha'))).sort()).toEqual(['SKILL.md', 'references/NOTES.md'])
    expect((await claudeParts(u)).skills).toEqual(['duo:alpha', 'duo:beta'])
  })

  it('--hook Stop and --mcp db: taken out of the filtered copy’s hooks and MCP files, and out of Codex', async () => {
    const codexConfig = join(u.home, '.codex', 'config.toml')
    expect(readFileSync(codexConfig, 'utf8')).toContain('duo-db')
    const off = await run(u, ['disable', 'duo@acme', '--hook', 'Stop', '--mcp', 'db', '--scope', 'user', '--json'])
    expect(off.status, off.stdout + off.stderr).toBe(0)
    const {folder} = offered(settingsFile(), u.home)
    expect(folder).toMatch(/-without-/)
    expect(readJson(join(folder, 'hooks', 'hooks.json'))).toEqual({hooks: {}})
    expect(readJson(join(folder, '.mcp.json'))).toEqual({mcpServers: {}})
    expect(Object.keys(hashed(folder))).toContain('skills/alpha/SKILL.md')
    expect(existsSync(codexConfig) ? readFileSync(codexConfig, 'utf8') : '').not.toContain('duo-db')
    expect((await claudeParts(u)).mcp).toEqual([])
    expect((await run(u, ['verify', '--json'])).status).toBe(0)
    const back = await run(u, ['enable', 'duo@acme', '--hook', 'Stop', '--mcp', 'db', '--scope', 'user', '--yes', '--json'])
    expect(back.status, back.stdout + back.stderr).toBe(0)
    const again = offered(settingsFile(), u.home).folder
    expect(again).not.toMatch(/-without-/)
    expect(readFileSync(join(again, 'hooks', 'hooks.json'), 'utf8')).toContain(HOOK)
    expect(readFileSync(codexConfig, 'utf8')).toContain('duo-db')
  })

  it('--agent-part rev and --command go: their files are left out of the filtered copy, and Claude Code lists neither', async () => {
    expect((await claudeParts(u)).others).toEqual(['duo:go', 'duo:rev'])
    const off = await run(u, ['disable', 'duo@acme', '--agent-part', 'rev', '--command', 'go', '--scope', 'user', '--json'])
    expect(off.status, off.stdout + off.stderr).toBe(0)
    const {folder} = offered(settingsFile(), u.home)
    const files = Object.keys(hashed(folder))
    expect(files).not.toContain('agents/rev.md')
    expect(files).not.toContain('commands/go.md')
    expect(files).toContain('skills/alpha/SKILL.md')
    expect((await claudeParts(u)).others).toEqual([])
    const back = await run(u, ['enable', 'duo@acme', '--agent-part', 'rev', '--command', 'go', '--scope', 'user', '--json'])
    expect(back.status, back.stdout + back.stderr).toBe(0)
    expect(offered(settingsFile(), u.home).folder).not.toMatch(/-without-/)
  })

  it('uninstall leaves settings.json byte for byte, and HOME as it was but for what Claude Code wrote itself', async () => {
    // a filtered copy at the time of uninstall goes too
    expect((await run(u, ['disable', 'duo@acme', '--skill', 'beta', '--scope', 'user', '--json'])).status).toBe(0)
    const filtered = offered(settingsFile(), u.home).folder
    expect(filtered).toMatch(/-without-/)
    const removed = await run(u, ['uninstall', 'duo@acme', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stdout + removed.stderr).toBe(0)
    expect(readFileSync(settingsFile(), 'utf8')).toBe(settingsBefore)
    expect(existsSync(filtered)).toBe(false)
    // the installed copies stay in loadout's data folder until `cache clean` (as for any plugin)
    const cleaned = await run(u, ['cache', 'clean', '--json'])
    expect(cleaned.status, cleaned.stdout + cleaned.stderr).toBe(0)
    // what Claude Code's runs wrote, and the folders above it, are its own
    const its = (p: string) => claudeWrites.has(p) || [...claudeWrites].some((w) => w.startsWith(p + '/'))
    const changed = changes(home, snapshot(u.home)).filter((p) => !its(p))
    // loadout's own files (its created-folders journal, the marketplace refreshed by update, its git cache) are all that may differ
    // and the XDG data folder made for loadout's data, left empty once `cache clean` removed it
    expect(readdirSync(join(u.home, '.local', 'share'))).toEqual([])
    expect(changed.filter((p) => !/^\.(config|cache)\/loadout\/|^\.local(\/share)?$/.test(p))).toEqual([])
  })
})

describe('one part of a native plugin in a project: a teammate’s install --frozen in a clone honours it', () => {
  it('the clone at another path offers Claude Code the same filtered copy, and Codex lacks the skill', async () => {
    const a = sandbox()
    const b = sandbox()
    makeRepo(a.project, {'README.md': '# project\n'})
    expect((await run(a, ['marketplace', 'add', server.git.url('acme/market'), '--json'])).status).toBe(0)
    const installed = await run(a, ['install', 'duo@acme', '--agent', 'claude-code,codex', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const off = await run(a, ['disable', 'duo@acme', '--skill', 'alpha', '--json'])
    expect(off.status, off.stdout + off.stderr).toBe(0)
    expect(readJson(join(a.project, 'loadout.json')).plugins['duo@acme'].disabled).toEqual({skills: ['alpha']})
    const settingsA = join(a.project, '.claude', 'settings.json')
    const mine = offered(settingsA, a.project).folder
    expect(mine).toMatch(/-without-/)
    expect(existsSync(join(mine, 'skills', 'alpha'))).toBe(false)
    const verified = await run(a, ['verify', '--json'])
    expect(verified.status, verified.stdout + verified.stderr).toBe(0)

    git(a.project, ['add', '--', 'loadout.json', 'loadout.lock', '.claude/settings.json'])
    git(a.project, ['commit', '-q', '--no-gpg-sign', '-m', 'loadout'])
    rmSync(b.project, {recursive: true})
    git(b.dir, ['clone', '-q', '--', a.project, b.project])
    const frozen = await run(b, ['install', '--frozen', '--yes', '--json'])
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
    const settingsB = join(b.project, '.claude', 'settings.json')
    expect(readFileSync(settingsB, 'utf8')).toBe(readFileSync(settingsA, 'utf8'))
    const theirs = offered(settingsB, b.project).folder
    expect(theirs.slice(b.project.length)).toBe(mine.slice(a.project.length))
    expect(hashed(theirs)).toEqual(hashed(mine))
    expect(existsSync(join(b.project, '.agents', 'skills', 'alpha'))).toBe(false)
    expect(existsSync(join(b.project, '.agents', 'skills', 'beta', 'SKILL.md'))).toBe(true)
    expect((await run(b, ['verify', '--json'])).status).toBe(0)
  })
})

describe('one HOME: the user scope and two projects each install the plugin natively, with different parts', () => {
  it('each project registers a marketplace name of its own: Claude Code never loads another folder’s copy', async () => {
    const u = sandbox()
    const a = u.project
    const b = join(u.dir, 'other')
    const elsewhere = join(u.dir, 'elsewhere')
    for (const p of [a, b]) makeRepo(p, {'README.md': '# project\n'})
    mkdirSync(elsewhere)
    mkdirSync(join(u.home, '.claude'), {recursive: true})
    const trusted = {hasTrustDialogAccepted: true}
    writeFileSync(join(u.home, '.claude', '.claude.json'), JSON.stringify({projects: {[a]: trusted, [b]: trusted, [elsewhere]: trusted}}))
    expect((await run(u, ['marketplace', 'add', server.git.url('acme/market'), '--scope', 'user', '--json'])).status).toBe(0)
    const steps: Array<[string[], string]> = [
      [['install', 'duo@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'], a],
      [['install', 'duo@acme', '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'], a],
      [['disable', 'duo@acme', '--skill', 'alpha', '--scope', 'project', '--json'], a],
      [['install', 'duo@acme', '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'], b],
      [['disable', 'duo@acme', '--skill', 'beta', '--scope', 'project', '--json'], b],
    ]
    const outputs = []
    for (const [args, cwd] of steps) {
      const done = await loadout(u, args, {cwd, env: env(u)})
      expect(done.status, done.stdout + done.stderr).toBe(0)
      outputs.push(done.json<{plans: Array<{notes: Array<{note: string}>}>}>())
    }
    // to Claude Code the user scope's plugin and a project's are two: both load in the project, and the install says so
    const notes = (step: number) => outputs[step]!.plans.flatMap((p) => p.notes.map((n) => n.note))
    expect(notes(0).filter((n) => n.includes('from the user scope too'))).toEqual([])
    expect(notes(1).filter((n) => n.includes('from the user scope too'))).toEqual([
      'Claude Code has duo@acme from the user scope too, under another marketplace name: in this project it loads both copies, and a part turned off in one is still on in the other',
    ])
    const names = [join(u.home, '.claude'), join(a, '.claude'), join(b, '.claude')].map((dir) =>
      Object.keys(readJson(join(dir, 'settings.json')).extraKnownMarketplaces),
    )
    expect(names[0]).toEqual(['loadout-acme-duo'])
    for (const project of names.slice(1)) expect(project).toEqual([expect.stringMatching(/^loadout-acme-duo-[0-9a-f]{8}$/)])
    expect(names[1]).not.toEqual(names[2])

    // one name for all three let Claude Code's one list of known marketplaces point at whichever folder
    // it last started in, and the first session after a switch loaded the other folder's copy
    const userCopies = join(u.home, '.local', 'share', 'loadout', 'plugins', 'acme', 'duo')
    const sessions = new Map<string, number>()
    for (const cwd of [a, b, elsewhere, b, a, elsewhere, a, b, b]) {
      const init = await claudeInit(u, cwd)
      const loaded = (init.plugins as Array<{source: string; path: string}>).filter((p) => p.source.startsWith('duo@')).map((p) => p.path)
      const own = join(cwd, '.loadout', 'plugins', 'duo@acme')
      expect(
        loaded.filter((path) => !path.startsWith(`${userCopies}/`) && !path.startsWith(`${own}/`)),
        cwd,
      ).toEqual([])
      expect(loaded.filter((path) => path.startsWith(`${userCopies}/`))).toHaveLength(1)
      // a project's marketplace is registered at the first start in it, and its plugin loads from the next
      const visits = (sessions.get(cwd) ?? 0) + 1
      sessions.set(cwd, visits)
      if (cwd !== elsewhere && visits > 1)
        expect(
          loaded.filter((path) => path.startsWith(`${own}/`)),
          cwd,
        ).toHaveLength(1)
    }
  })

  it('a lock from before project names had a suffix: install --frozen keeps its name, install gives the project one of its own', async () => {
    const u = sandbox()
    makeRepo(u.project, {'README.md': '# project\n'})
    expect((await run(u, ['marketplace', 'add', server.git.url('acme/market'), '--json'])).status).toBe(0)
    const installed = await run(u, ['install', 'duo@acme', '--agent', 'claude-code', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    // made into what an older loadout wrote: the shared name in the settings, the catalog and the lock (with the catalog's new digest)
    const settingsFile = join(u.project, '.claude', 'settings.json')
    const lockFile = join(u.project, 'loadout.lock')
    const catalog = join(u.project, '.loadout', 'plugins', 'duo@acme', '.claude-plugin', 'marketplace.json')
    const [suffixed] = Object.keys(readJson(settingsFile).extraKnownMarketplaces) as [string]
    const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
    const oldDigest = digest(catalog)
    for (const file of [settingsFile, catalog, lockFile]) writeFileSync(file, readFileSync(file, 'utf8').replaceAll(suffixed, 'loadout-acme-duo'))
    const lock = JSON.parse(readFileSync(lockFile, 'utf8').replace(oldDigest, digest(catalog)))
    for (const record of lock.installs) delete record.marketplace
    writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`)
    const legacy = readFileSync(lockFile, 'utf8')
    expect((await run(u, ['verify', '--json'])).status).toBe(0)

    const frozen = await run(u, ['install', '--frozen', '--yes', '--json'])
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
    expect(readFileSync(lockFile, 'utf8')).toBe(legacy)
    expect(Object.keys(readJson(settingsFile).extraKnownMarketplaces)).toEqual(['loadout-acme-duo'])

    const again = await run(u, ['install', '--yes', '--json'])
    expect(again.status, again.stdout + again.stderr).toBe(0)
    const settings = readJson(settingsFile)
    const [name] = Object.keys(settings.extraKnownMarketplaces) as [string]
    expect(Object.keys(settings.extraKnownMarketplaces)).toEqual([expect.stringMatching(/^loadout-acme-duo-[0-9a-f]{8}$/)])
    expect(settings.enabledPlugins).toEqual({[`duo@${name}`]: true})
    expect(readJson(catalog).name).toBe(name)
    expect(readFileSync(lockFile, 'utf8')).not.toContain('"loadout-acme-duo"')
    expect((await run(u, ['verify', '--json'])).status).toBe(0)
    // from then on the name stays: an install that finds the plugin current changes nothing
    const current = await run(u, ['install', '--yes', '--json'])
    expect(current.status, current.stdout + current.stderr).toBe(0)
    expect(Object.keys(readJson(settingsFile).extraKnownMarketplaces)).toEqual([name])
  })
})
