/**
 * Marketplaces across scopes: `marketplace remove --scope` removes the one asked for; a git cache two
 * marketplaces share survives the removal of one; a GitHub-shorthand marketplace added with
 * LOADOUT_GITHUB_URL keeps that base URL, so a later update works without the variable.
 */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, headSha, makeRepo, makeServedRepo, syncServedRepo} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const CATALOG = (version: string) => ({
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', plugins: [{name: 'tool', source: './tool', version}]}),
  'tool/skills/tool-use/SKILL.md': '---\nname: tool-use\ndescription: Use the tool.\n---\n\nUse it.\n',
})

let work: string
let server: GitHttpsServer
let market: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-mscope-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  market = makeServedRepo(join(work, 'src'), root, 'acme/market', CATALOG('1.0.0'))
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('marketplace scopes, shared caches and the GitHub base URL', () => {
  let sb: Sandbox
  const withBase = (args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})
  // no LOADOUT_GITHUB_URL; anything not on 127.0.0.1 would go to a dead local proxy and fail
  const withoutBase = (args: string[]) =>
    loadout(sb, args, {
      env: {...server.trustEnv(), HTTPS_PROXY: 'http://127.0.0.1:9', https_proxy: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1'},
    })
  const gitCaches = () => (existsSync(join(sb.home, '.cache/loadout/git')) ? readdirSync(join(sb.home, '.cache/loadout/git')) : [])

  beforeAll(async () => {
    sb = sandbox({git: true})
    for (const scope of ['user', 'project']) {
      const added = await withBase(['marketplace', 'add', 'acme/market', '--scope', scope, '--json'])
      expect(added.status, added.stdout + added.stderr).toBe(0)
      expect(added.json().scope).toBe(scope)
    }
  })

  it('a later update works without LOADOUT_GITHUB_URL: the base URL was kept with the marketplace', async () => {
    commitFiles(market.repo, CATALOG('1.1.0'), 'tool 1.1.0')
    syncServedRepo(market.bare)
    const updated = await withoutBase(['marketplace', 'update', 'acme', '--json'])
    expect(updated.status, updated.stdout + updated.stderr).toBe(0)
    expect(updated.json().results[0]).toMatchObject({name: 'acme', status: 'updated', changes: {versions: [{name: 'tool', from: '1.0.0', to: '1.1.0'}]}})
    // the base URL is this machine's setting: the project's loadout.json does not carry it
    const records = JSON.parse(readFileSync(join(sb.home, '.config/loadout/marketplaces.json'), 'utf8')).marketplaces
    expect(records.map((r: {scope: string}) => r.scope).sort()).toEqual(['project', 'user'])
    expect(records.map((r: {githubUrl?: string}) => r.githubUrl)).toEqual([`${server.origin}/git`, `${server.origin}/git`])
    expect(readFileSync(join(sb.project, 'loadout.json'), 'utf8')).not.toContain(server.origin)
  })

  it('remove --scope user removes the user one only, and the cache the project one shares survives', async () => {
    expect(gitCaches()).toHaveLength(1)
    const removed = await withoutBase(['marketplace', 'remove', 'acme', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stdout + removed.stderr).toBe(0)
    expect(removed.json()).toMatchObject({name: 'acme', scope: 'user', cacheRemoved: false})
    expect(gitCaches()).toHaveLength(1)
    const list = (await withoutBase(['marketplace', 'list', '--json'])).json()
    expect(JSON.stringify(list)).toMatch(/"scope":\s*"project"/)
    expect(JSON.stringify(list)).not.toMatch(/"name":"acme","scope":"user"/)
    // the project one still reads its catalog from the shared cache
    expect((await withoutBase(['marketplace', 'update', 'acme', '--json'])).status).toBe(0)
  })

  it('remove --scope user when only the project has it is "not found", pointing at the other scope', async () => {
    const result = await withoutBase(['marketplace', 'remove', 'acme', '--scope', 'user', '--yes', '--json'])
    expect(result.status).toBe(3)
    expect(jsonError(result).suggestions.join(' ')).toMatch(/--scope project/)
  })

  it('removing the last marketplace of that source removes the cache', async () => {
    const removed = await withoutBase(['marketplace', 'remove', 'acme', '--scope', 'project', '--yes', '--json'])
    expect(removed.status, removed.stdout + removed.stderr).toBe(0)
    expect(removed.json()).toMatchObject({scope: 'project', cacheRemoved: true})
    expect(gitCaches()).toEqual([])
  })
})

describe('a local git folder as a marketplace', () => {
  it('the lock records the commit its repository is at (a folder of the project itself records none)', async () => {
    const sb = sandbox({git: true})
    const local = join(sb.dir, 'local-market')
    makeRepo(local, CATALOG('1.0.0'))
    const added = await loadout(sb, ['marketplace', 'add', local, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    const installed = await loadout(sb, ['install', '--loose', 'tool@acme', '--agent', 'claude-code', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const lock = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8'))
    expect(lock.installs[0]).toMatchObject({plugin: 'tool@acme', commit: headSha(local)})
  })
})
