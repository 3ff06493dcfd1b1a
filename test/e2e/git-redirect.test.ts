/**
 * Policy judges every hop, and git is a hop too: git follows an HTTP redirect of its first request
 * by default (http.followRedirects=initial), which would take a clone to a host no check has seen.
 * loadout's git follows none, so a redirected repository is refused before anything is fetched from
 * where it points, and a repository served where it is named still clones.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {makeServedRepo} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'

const CATALOG = JSON.stringify({name: 'moved', plugins: []})
const sandbox = sandboxes()
let work: string
let server: GitHttpsServer

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-git-redirect-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  makeServedRepo(join(work, 'src'), root, 'acme/real', {'.claude-plugin/marketplace.json': CATALOG})
  // the old name answers with a redirect to the real repository (as a renamed GitHub repository does)
  server.redirect('/git/acme/old.git/info/refs', '/git/acme/real.git/info/refs?service=git-upload-pack', 301)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('git over HTTPS', () => {
  it('follows no redirect: a redirected repository is refused and nothing is fetched from where it points', async () => {
    const sb = sandbox()
    const env = {...server.trustEnv(), LOADOUT_GIT_TIMEOUT: '20'}
    server.clearRequests()
    const moved = await loadout(sb, ['marketplace', 'add', `${server.origin}/git/acme/old.git`, '--scope', 'user', '--json'], {env})
    expect(moved.status, moved.stdout).not.toBe(0)
    expect(server.requestsTo('/git/acme/old.git/info/refs').length).toBeGreaterThan(0)
    expect(server.requestsTo('/git/acme/real.git/info/refs').length).toBe(0)
    const list = await loadout(sb, ['marketplace', 'list', '--json'])
    expect(JSON.stringify(list.json())).not.toContain('moved')

    const direct = await loadout(sb, ['marketplace', 'add', `${server.origin}/git/acme/real.git`, '--scope', 'user', '--json'], {env})
    expect(direct.status, direct.stdout).toBe(0)
  })
})
