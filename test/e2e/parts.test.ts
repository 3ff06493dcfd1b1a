/**
 * Per-part control (issue 28): a project on machine A installs a plugin with two skills and a Stop hook
 * into Claude Code and Codex from an HTTPS git marketplace, then turns one skill and the hook off. Just
 * that skill's folder goes in every agent, and the hook from Claude Code's settings; the records and
 * loadout.json say so; `update` to a new commit keeps them off; a teammate's clone at another path
 * installs without them and, the only thing that runs being off, without being asked for consent;
 * `enable --skill` writes the skill back byte for byte.
 */
import {existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, git, makeRepo, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'
import {hashed} from './tx-support.js'

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: Use when testing parts (${name}).\n---\n\n${body}\n`
const HOOK = 'echo formatted-on-stop'

const duo = (version: string, alphaBody: string): FileMap => ({
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', plugins: [{name: 'duo', source: './plugins/duo', version}]}),
  'plugins/duo/.claude-plugin/plugin.json': JSON.stringify({name: 'duo', version}),
  'plugins/duo/skills/alpha/SKILL.md': skill('alpha', alphaBody),
  'plugins/duo/skills/beta/SKILL.md': skill('beta', 'Beta stays the same.'),
  'plugins/duo/skills/beta/references/NOTES.md': '# notes\n',
  'plugins/duo/hooks/hooks.json': JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: HOOK}]}]}}),
})

const SKILL_DIRS = ['.claude/skills', '.agents/skills']
const AGENTS = 'claude-code,codex'

let work: string
let server: GitHttpsServer
let market: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()
let a: Sandbox
let b: Sandbox
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: server.trustEnv()})
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'))

const hookInSettings = (project: string): boolean => {
  const file = join(project, '.claude', 'settings.json')
  return existsSync(file) && readFileSync(file, 'utf8').includes(HOOK)
}

interface ListRow {
  plugin: string
  target: string
  disabledParts?: {skills?: string[]; hooks?: string[]}
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-parts-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  market = makeServedRepo(join(work, 'src'), root, 'acme/market', duo('1.0.0', 'Alpha one.'))
  a = sandbox()
  b = sandbox()
  makeRepo(a.project, {'README.md': '# project\n'})
  const added = await run(a, ['marketplace', 'add', server.git.url('acme/market'), '--json'])
  expect(added.status, added.stderr).toBe(0)
  const installed = await run(a, ['install', '--loose', 'duo@acme', '--agent', AGENTS, '--yes', '--json'])
  expect(installed.status, installed.stderr).toBe(0)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('disable and enable one part of a plugin', () => {
  let betaBefore: Record<string, string>

  it('disable --skill beta --hook Stop takes out just those parts, in every agent, and remembers them', async () => {
    betaBefore = hashed(join(a.project, '.claude/skills/beta'))
    expect(Object.keys(betaBefore).sort()).toEqual(['SKILL.md', 'references/NOTES.md'])
    expect(hookInSettings(a.project)).toBe(true)
    const off = await run(a, ['disable', 'duo@acme', '--skill', 'beta', '--hook', 'Stop', '--json'])
    expect(off.status, off.stderr).toBe(0)
    // nothing left that runs code: consent shows nothing
    expect(off.json().consent.items).toEqual([])
    for (const dir of SKILL_DIRS) {
      expect(existsSync(join(a.project, dir, 'beta')), dir).toBe(false)
      expect(existsSync(join(a.project, dir, 'alpha', 'SKILL.md')), dir).toBe(true)
    }
    expect(hookInSettings(a.project)).toBe(false)
    expect(readJson(join(a.project, 'loadout.json')).plugins['duo@acme'].disabled).toEqual({hooks: ['Stop'], skills: ['beta']})
    const listed = await run(a, ['list', '--json'])
    const rows = (listed.json().installs as ListRow[]).filter((r) => r.plugin === 'duo@acme')
    expect(rows.map((r) => r.target).sort()).toEqual(['claude-code', 'codex'])
    for (const row of rows) expect(row.disabledParts).toEqual({hooks: ['Stop'], skills: ['beta']})
    expect((await run(a, ['list'])).stdout).toMatch(/off: skills beta; hooks Stop/)
    expect((await run(a, ['verify', '--json'])).status).toBe(0)
  })

  it('a part the plugin does not have is refused (exit 3), and nothing changes', async () => {
    const result = await run(a, ['disable', 'duo@acme', '--skill', 'gamma', '--json'])
    expect(result.status).toBe(3)
    expect(jsonError(result)).toMatchObject({code: 'part-not-in-plugin'})
    expect(jsonError(result).message).toMatch(/alpha, beta/)
  })

  it('update to a new commit keeps them off', async () => {
    commitFiles(market.repo, duo('1.1.0', 'Alpha two.'))
    syncServedRepo(market.bare)
    const updated = await run(a, ['update', '--json'])
    expect(updated.status, updated.stdout + updated.stderr).toBe(0)
    expect(updated.json().updates[0]).toMatchObject({plugin: 'duo@acme', status: 'updated', to: {version: '1.1.0'}})
    for (const dir of SKILL_DIRS) {
      expect(readFileSync(join(a.project, dir, 'alpha', 'SKILL.md'), 'utf8'), dir).toContain('Alpha two.')
      expect(existsSync(join(a.project, dir, 'beta')), dir).toBe(false)
    }
    expect(hookInSettings(a.project)).toBe(false)
    const lock = readJson(join(a.project, 'loadout.lock')) as {installs: Array<{commit: string; disabledParts: unknown}>}
    for (const r of lock.installs)
      expect(r).toMatchObject({commit: git(market.repo, ['rev-parse', 'HEAD']), disabledParts: {hooks: ['Stop'], skills: ['beta']}})
  })

  it("a teammate's install in a clone at another path leaves them out, asking no consent", async () => {
    git(a.project, ['add', '--', 'loadout.json', 'loadout.lock'])
    git(a.project, ['commit', '-q', '--no-gpg-sign', '-m', 'loadout'])
    rmSync(b.project, {recursive: true})
    git(b.dir, ['clone', '-q', '--', a.project, b.project])
    // no --yes: the only part that runs code is off
    const installed = await run(b, ['install', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    for (const dir of SKILL_DIRS) {
      expect(existsSync(join(b.project, dir, 'beta')), dir).toBe(false)
      expect(hashed(join(b.project, dir, 'alpha')), dir).toEqual(hashed(join(a.project, dir, 'alpha')))
    }
    expect(hookInSettings(b.project)).toBe(false)
  })

  it('enable --skill beta writes it back byte for byte in every agent; the hook stays off', async () => {
    const on = await run(a, ['enable', 'duo@acme', '--skill', 'beta', '--json'])
    expect(on.status, on.stderr).toBe(0)
    for (const dir of SKILL_DIRS) expect(hashed(join(a.project, dir, 'beta')), dir).toEqual(betaBefore)
    expect(hookInSettings(a.project)).toBe(false)
    expect(readJson(join(a.project, 'loadout.json')).plugins['duo@acme'].disabled).toEqual({hooks: ['Stop']})
    // the hook needs consent again to come back
    const hook = await run(a, ['enable', 'duo@acme', '--hook', 'Stop', '--json'])
    expect(hook.status).toBe(8)
    const approved = await run(a, ['enable', 'duo@acme', '--hook', 'Stop', '--yes', '--json'])
    expect(approved.status, approved.stderr).toBe(0)
    expect(hookInSettings(a.project)).toBe(true)
    expect(readJson(join(a.project, 'loadout.json')).plugins['duo@acme'].disabled).toBeUndefined()
    expect((await run(a, ['verify', '--json'])).status).toBe(0)
  })
})
