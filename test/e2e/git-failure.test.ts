/**
 * A failed clone of an external plugin source says what failed and what to try next: a git URL on
 * 127.0.0.1 whose port is closed, and one the test git server answers with 404.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

let work: string
let server: GitHttpsServer
let closedUrl: string
const sandbox = sandboxes()
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GIT_TIMEOUT: '20'}})

/** A port that was just free: listened on, then closed, so a connection to it is refused. */
const closedPort = async (): Promise<number> => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-git-failure-')))
  mkdirSync(join(work, 'served'))
  server = await startGitHttpsServer({root: join(work, 'served')})
  closedUrl = `https://127.0.0.1:${await closedPort()}/acme/gone.git`
  const market = join(work, 'market')
  mkdirSync(join(market, '.claude-plugin'), {recursive: true})
  writeFileSync(
    join(market, '.claude-plugin', 'marketplace.json'),
    JSON.stringify({
      name: 'acme',
      owner: {name: 'Acme'},
      plugins: [
        {name: 'refused', source: {source: 'url', url: closedUrl}},
        {name: 'missing', source: {source: 'url', url: server.git.url('acme/missing')}},
      ],
    }),
  )
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('a failed clone of an external source', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', join(work, 'market'), '--json'])
    expect(added.status, added.stderr).toBe(0)
  })

  it('a refused connection names the URL and says what to check next', async () => {
    const result = await run(sb, ['install', '--loose', 'refused@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status).toBe(6)
    const error = jsonError(result)
    expect(error.code).toBe('git-failed')
    expect(error.message).toMatch(/127\.0\.0\.1/)
    const next = error.suggestions.join('\n')
    expect(next).toMatch(/check the URL and the ref/)
    expect(next).toMatch(/network/)
    expect(next).toMatch(/LOADOUT_GIT_TIMEOUT/)
    expect(next).toMatch(/credential helper/)
  })

  it('a repository the server does not have (404) says to check the URL and the credentials', async () => {
    const result = await run(sb, ['install', '--loose', 'missing@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    const error = jsonError(result)
    expect(error.code, error.message).toBe('git-not-found')
    expect(result.status).toBe(3)
    expect(error.message).toMatch(/acme\/missing/)
    const next = error.suggestions.join('\n')
    expect(next).toMatch(/check the repository URL and the ref/)
    expect(next).toMatch(/credential helper/)
  })
})
