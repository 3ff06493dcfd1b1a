/**
 * marketplace add/list/info/update/remove and search, end to end: the built CLI against real
 * repositories served by `git http-backend` behind an HTTPS server with a test CA, on 127.0.0.1.
 */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo, tag, type FileMap} from '../support/git-repos.js'
import {hang} from '../support/https-server.js'
import {loadout, sandboxes} from './helpers.js'

const catalog = (plugins: Array<Record<string, unknown>>, name = 'acme') => JSON.stringify({name, owner: {name: 'Acme'}, plugins}, null, 2)
const REVIEW = {name: 'review', source: './plugins/review', description: 'Reviews code', version: '1.0.0', category: 'quality', keywords: ['lint']}
const DOCS = {name: 'docs', source: './plugins/docs', description: 'Writes documentation', version: '0.1.0', category: 'writing'}
const FILES: FileMap = {
  '.claude-plugin/marketplace.json': catalog([REVIEW, DOCS]),
  'plugins/review/skills/review/SKILL.md': '---\nname: review\ndescription: Reviews code\n---\n\nReview the diff.\n',
  'plugins/docs/skills/docs/SKILL.md': '---\nname: docs\ndescription: Writes docs\n---\n\nWrite docs.\n',
  'big/blob.txt': 'x'.repeat(10_000),
}

let work: string
let server: GitHttpsServer
let acme: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()

const envFor = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...server.trustEnv(),
  LOADOUT_GITHUB_URL: `${server.origin}/git`,
  LOADOUT_GIT_TIMEOUT: '20',
  ...extra,
})

const run = (sb: Sandbox, args: string[], extra: NodeJS.ProcessEnv = {}) => loadout(sb, args, {env: envFor(extra)})

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-mkt-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  acme = makeServedRepo(join(work, 'src'), root, 'acme/plugins', FILES)
  tag(acme.repo, 'v1')
  syncServedRepo(acme.bare)
  makeServedRepo(join(work, 'src'), root, 'acme/empty', {'README.md': '# no catalog here\n'})
  makeServedRepo(join(work, 'src'), root, 'acme/broken', {'.claude-plugin/marketplace.json': '[1, 2, 3]'})
  makeServedRepo(join(work, 'src'), root, 'other/same-name', {'.claude-plugin/marketplace.json': catalog([DOCS])})
  makeServedRepo(join(work, 'src'), root, 'acme/private', {'.claude-plugin/marketplace.json': catalog([])})
  server.git.protect('acme/private', {username: 'alice', password: 'pw'})
  server.route('/hang/*', hang())
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('marketplace add from git', () => {
  it('adds GitHub shorthand from $LOADOUT_GITHUB_URL, records the commit, lists and describes it', async () => {
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', 'acme/plugins', '--json'])
    expect(added.status, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({status: 'added', name: 'acme', kind: 'github', commit: acme.sha, pluginCount: 2})

    const list = (await run(sb, ['marketplace', 'list', '--json'])).json()
    const row = list.marketplaces.find((m: {name: string}) => m.name === 'acme')
    expect(row).toMatchObject({kind: 'github', commit: acme.sha, pluginCount: 2, source: 'acme/plugins'})
    expect(list.marketplaces.some((m: {name: string; builtin: boolean}) => m.name === 'loadout' && m.builtin)).toBe(true)

    const info = (await run(sb, ['marketplace', 'info', 'acme', '--json'])).json()
    expect(info.plugins.map((p: {name: string}) => p.name)).toEqual(['review', 'docs'])
    expect(info.owner).toBe('Acme')

    const again = await run(sb, ['marketplace', 'add', 'github:acme/plugins', '--json'])
    expect(again.status).toBe(0)
    expect(again.json().status).toBe('already-added')
    const human = await run(sb, ['marketplace', 'add', 'acme/plugins'])
    expect(human.stdout).toMatch(/already added/)
  })

  it('adds an https git URL at a tag, and a ref that does not exist is "not found"', async () => {
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', `${server.git.url('acme/plugins')}#v1`, '--json'])
    expect(added.status, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({kind: 'git', commit: acme.sha})
    const missing = await run(sb, ['marketplace', 'add', 'acme/plugins', '--ref', 'no-such-branch', '--name', 'x', '--json'])
    expect(missing.status).toBe(3)
    expect(missing.json().error.message).toMatch(/no-such-branch/)
  })

  it('a repository without a catalog, and a catalog that is not an object, fail naming the file', async () => {
    const sb = sandbox()
    const empty = await run(sb, ['marketplace', 'add', 'acme/empty', '--json'])
    expect(empty.status).toBe(3)
    expect(empty.json().error.message).toMatch(/no marketplace catalog/)
    const broken = await run(sb, ['marketplace', 'add', 'acme/broken', '--json'])
    expect(broken.status).toBe(4)
    expect(broken.json().error.message).toMatch(/marketplace\.json/)
    expect((await run(sb, ['marketplace', 'list', '--json'])).json().marketplaces).toHaveLength(1)
  })

  it('a name taken by a different source is a conflict; --name picks another', async () => {
    const sb = sandbox()
    expect((await run(sb, ['marketplace', 'add', 'acme/plugins'])).status).toBe(0)
    const clash = await run(sb, ['marketplace', 'add', 'other/same-name', '--json'])
    expect(clash.status).toBe(5)
    expect(clash.json().error.message).toMatch(/"acme" is already used by acme\/plugins/)
    const renamed = await run(sb, ['marketplace', 'add', 'other/same-name', '--name', 'other', '--json'])
    expect(renamed.status, renamed.stderr).toBe(0)
    expect(renamed.json().name).toBe('other')
    const bad = await run(sb, ['marketplace', 'add', 'other/same-name', '--name', 'Bad/Name'])
    expect(bad.status).toBe(2)
  })

  it('works with EDITOR, VISUAL, PAGER and stray GIT_* variables set, as in a normal shell', async () => {
    const sb = sandbox()
    const result = await run(sb, ['marketplace', 'add', 'acme/plugins', '--json'], {
      EDITOR: 'vi',
      VISUAL: 'vi',
      PAGER: 'less',
      GIT_DIR: '/nonexistent',
      GIT_WORK_TREE: '/nonexistent',
    })
    expect(result.status, result.stdout).toBe(0)
    expect(result.json().commit).toBe(acme.sha)
  })

  it('a server that asks for a password fails fast without prompting', async () => {
    const sb = sandbox()
    const started = Date.now()
    const result = await run(sb, ['marketplace', 'add', 'acme/private', '--json'])
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(result.status).toBe(6)
    expect(result.json().error.message).toMatch(/credentials/)
  })

  it('a clone that hangs is stopped by the timeout', async () => {
    const sb = sandbox()
    const result = await run(sb, ['marketplace', 'add', `${server.origin}/hang/repo.git`, '--json'], {LOADOUT_GIT_TIMEOUT: '2'})
    expect(result.status).toBe(6)
    expect(result.json().error.message).toMatch(/timed out/)
  })

  it('--sparse checks out only the catalog and the named paths', async () => {
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', 'acme/plugins', '--sparse', 'plugins/review', '--json'])
    expect(added.status, added.stderr).toBe(0)
    const record = JSON.parse(readFileSync(join(sb.home, '.config', 'loadout', 'marketplaces.json'), 'utf8')).marketplaces[0]
    expect(existsSync(join(record.root, 'plugins', 'review', 'skills', 'review', 'SKILL.md'))).toBe(true)
    expect(existsSync(join(record.root, 'plugins', 'docs'))).toBe(false)
    expect(existsSync(join(record.root, 'big'))).toBe(false)
  })

  it('--scope project declares the marketplace in loadout.json', async () => {
    const sb = sandbox({git: true})
    const added = await run(sb, ['marketplace', 'add', 'acme/plugins', '--scope', 'project', '--json'])
    expect(added.status, added.stderr).toBe(0)
    const manifest = JSON.parse(readFileSync(join(sb.project, 'loadout.json'), 'utf8'))
    expect(manifest.marketplaces.acme).toEqual({source: 'acme/plugins'})
    const removed = await run(sb, ['marketplace', 'remove', 'acme', '--yes', '--json'])
    expect(removed.status, removed.stderr).toBe(0)
    // the declaration left empty goes, as the project was before
    expect(existsSync(join(sb.project, 'loadout.json'))).toBe(false)
  })
})

describe('marketplace update, offline, remove', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', 'acme/plugins'])
    expect(added.status, added.stderr).toBe(0)
  })

  it('fetches incrementally and reports added plugins and new versions', async () => {
    const cache = join(sb.home, '.cache', 'loadout', 'git')
    const [key] = readdirSync(cache).filter((n) => n !== 'empty-hooks')
    const marker = join(cache, key!, 'mirror', 'loadout-test-marker')
    writeFileSync(marker, 'kept across an incremental fetch')
    const next = commitFiles(acme.repo, {
      '.claude-plugin/marketplace.json': catalog([{...REVIEW, version: '1.1.0'}, DOCS, {name: 'lint', source: './plugins/lint', description: 'Lints'}]),
      'plugins/lint/skills/lint/SKILL.md': '---\nname: lint\ndescription: Lints\n---\n\nLint.\n',
    })
    syncServedRepo(acme.bare)
    const dry = await run(sb, ['marketplace', 'update', 'acme', '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    expect(dry.json().results[0]).toMatchObject({status: 'updated', commit: next})
    expect((await run(sb, ['marketplace', 'list', '--json'])).json().marketplaces.find((m: {name: string}) => m.name === 'acme').commit).toBe(acme.sha)
    const updated = await run(sb, ['marketplace', 'update', '--json'])
    expect(updated.status, updated.stderr).toBe(0)
    const result = updated.json().results.find((r: {name: string}) => r.name === 'acme')
    expect(result).toMatchObject({status: 'updated', commit: next, previousCommit: acme.sha})
    expect(result.changes).toEqual({added: ['lint'], removed: [], versions: [{name: 'review', from: '1.0.0', to: '1.1.0'}]})
    expect(existsSync(marker)).toBe(true)
    const again = (await run(sb, ['marketplace', 'update', 'acme', '--json'])).json()
    expect(again.results[0].status).toBe('unchanged')
  })

  it('--offline works from the cache and fails clearly for what is not cached', async () => {
    const offline = await run(sb, ['marketplace', 'update', 'acme', '--offline', '--json'])
    expect(offline.status, offline.stderr).toBe(0)
    const missing = await run(sb, ['marketplace', 'add', 'other/same-name', '--name', 'other', '--json'], {LOADOUT_OFFLINE: '1'})
    expect(missing.status).toBe(6)
    expect(missing.json().error.message).toMatch(/offline/)
  })

  it('a failed refresh keeps the last good copy and exits non-zero', async () => {
    server.git.protect('acme/plugins', {username: 'alice', password: 'pw'})
    try {
      const failed = await run(sb, ['marketplace', 'update', 'acme', '--json'])
      expect(failed.status).toBe(6)
      expect(failed.json().error.message).toMatch(/last good copies were kept/)
    } finally {
      server.git.unprotect('acme/plugins')
    }
    const info = await run(sb, ['marketplace', 'info', 'acme', '--json'])
    expect(info.status).toBe(0)
    expect(info.json().plugins.map((p: {name: string}) => p.name)).toContain('lint')
  })

  it('search ranks across marketplaces and filters by marketplace and category', async () => {
    const hits = (await run(sb, ['search', 'review', '--json'])).json().hits
    expect(hits[0]).toMatchObject({id: 'review@acme'})
    expect(hits.map((h: {id: string}) => h.id)).toContain('code-review@loadout')
    const only = (await run(sb, ['search', 'review', '--marketplace', 'acme', '--json'])).json().hits
    expect(only.every((h: {marketplace: string}) => h.marketplace === 'acme')).toBe(true)
    const category = (await run(sb, ['search', '--category', 'writing', '--json'])).json().hits
    expect(category.map((h: {id: string}) => h.id)).toEqual(['docs@acme'])
    const none = await run(sb, ['search', 'zzz-nothing'])
    expect(none.status).toBe(0)
    expect(none.stdout).toMatch(/no plugins match/)
  })

  it('remove refuses while installed plugins come from it, --force says what it leaves, the cache goes', async () => {
    const state = join(sb.home, '.config', 'loadout', 'state.json')
    writeFileSync(state, JSON.stringify({installs: [{plugin: 'review@acme', target: 'claude-code', scope: 'user', files: []}]}))
    const refused = await run(sb, ['marketplace', 'remove', 'acme', '--yes', '--json'])
    expect(refused.status).toBe(5)
    expect(refused.json().error.message).toMatch(/review@acme/)
    const asks = await run(sb, ['marketplace', 'remove', 'acme', '--force', '--json'])
    expect(asks.status).toBe(8)
    const dry = await run(sb, ['marketplace', 'remove', 'acme', '--force', '--dry-run', '--json'])
    expect(dry.json()).toMatchObject({dryRun: true, leftBehind: ['review@acme']})
    const removed = await run(sb, ['marketplace', 'remove', 'acme', '--force', '--yes', '--json'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(removed.json().leftBehind).toEqual(['review@acme'])
    const cache = join(sb.home, '.cache', 'loadout', 'git')
    expect(readdirSync(cache).filter((n) => n !== 'empty-hooks')).toEqual([])
    const builtin = await run(sb, ['marketplace', 'remove', 'loadout', '--yes'])
    expect(builtin.status).toBe(2)
  })
})
