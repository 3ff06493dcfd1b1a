/**
 * `outdated` for catalog entries without a `version`: it compares what it can (the commit of a git
 * source, the content of a folder in the marketplace) and reports an update only when that changed.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'

const plugin = (name: string, text: string, prefix = ''): FileMap => ({
  [`${prefix}.claude-plugin/plugin.json`]: JSON.stringify({name, version: '1.0.0'}),
  [`${prefix}skills/${name}/SKILL.md`]: `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${text}\n`,
})

let work: string
let server: GitHttpsServer
let remote: {repo: string; bare: string}
let market: {repo: string; bare: string}
const sandbox = sandboxes()
let sb: Sandbox
const run = (args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})
type Row = {plugin: string; outdated: boolean; reason?: string}
const rows = async (): Promise<Row[]> => {
  const result = await run(['outdated', '--json'])
  expect(result.status, result.stderr + result.stdout).toBe(0)
  return result.json().rows
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-outdated-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  remote = makeServedRepo(join(work, 'remote'), root, 'acme/remote', plugin('remote', 'One.'))
  market = makeServedRepo(join(work, 'market'), root, 'acme/market', {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      owner: {name: 'Acme'},
      plugins: [
        {name: 'notes', source: './plugins/notes'},
        {name: 'remote', source: {source: 'github', repo: 'acme/remote'}},
      ],
    }),
    ...plugin('notes', 'One.', 'plugins/notes/'),
  })
  sb = sandbox()
  expect((await run(['marketplace', 'add', 'acme/market'])).status).toBe(0)
  for (const id of ['notes@acme', 'remote@acme']) {
    const installed = await run(['install', id, '--agent', 'universal', '--scope', 'user', '--yes'])
    expect(installed.status, installed.stderr).toBe(0)
  }
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('outdated, catalog entries without a version', () => {
  it('reports nothing new when neither the commit nor the content changed', async () => {
    const found = await rows()
    expect(found.map((r) => [r.plugin, r.outdated, r.reason])).toEqual([
      ['notes@acme', false, undefined],
      ['remote@acme', false, undefined],
    ])
    const human = await run(['outdated'])
    expect(human.stdout).not.toContain('new version')
  })

  it('reports the new commit and the changed content', async () => {
    commitFiles(remote.repo, {'skills/remote/SKILL.md': '---\nname: remote\ndescription: The remote skill.\n---\n\nTwo.\n'})
    syncServedRepo(remote.bare)
    commitFiles(market.repo, {'plugins/notes/skills/notes/SKILL.md': '---\nname: notes\ndescription: The notes skill.\n---\n\nTwo.\n'})
    syncServedRepo(market.bare)
    const found = await rows()
    expect(found.map((r) => [r.plugin, r.outdated, r.reason])).toEqual([
      ['notes@acme', true, 'content changed'],
      ['remote@acme', true, 'new commit'],
    ])
  })
})
