/** A catalog's `renames`: outdated shows the rename (or the removal), update installs under the new name. */
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'

const skill = (name: string, text: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${text}\n`
let work: string
let server: GitHttpsServer
const sandbox = sandboxes()
let sb: Sandbox
const run = (args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})
const state = () => JSON.parse(readFileSync(join(sb.home, '.config', 'loadout', 'state.json'), 'utf8')) as {installs: Array<{plugin: string; version?: string}>}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-renames-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  const market = makeServedRepo(join(work, 'src'), root, 'acme/market', {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      plugins: [
        {name: 'old-notes', source: './plugins/notes', version: '1.0.0'},
        {name: 'gone', source: './plugins/gone', version: '1.0.0'},
      ],
    }),
    'plugins/notes/skills/notes/SKILL.md': skill('notes', 'Version one.'),
    'plugins/gone/skills/gone/SKILL.md': skill('gone', 'Going.'),
  })
  sb = sandbox()
  expect((await run(['marketplace', 'add', 'acme/market'])).status).toBe(0)
  for (const id of ['old-notes@acme', 'gone@acme']) expect((await run(['install', id, '--agent', 'universal', '--scope', 'user', '--yes'])).status).toBe(0)
  commitFiles(market.repo, {
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      plugins: [{name: 'notes', source: './plugins/notes', version: '1.1.0'}],
      renames: {'old-notes': 'notes', gone: null},
    }),
    'plugins/notes/skills/notes/SKILL.md': skill('notes', 'Version two.'),
    'plugins/gone/skills/gone/SKILL.md': null,
  })
  syncServedRepo(market.bare)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('renames', () => {
  it('outdated shows the new name and the removal', async () => {
    const result = await run(['outdated', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const rows = result.json().rows as Array<{plugin: string; renamedTo?: string; removed?: boolean; outdated: boolean; reason?: string}>
    expect(rows.find((r) => r.plugin === 'old-notes@acme')).toMatchObject({renamedTo: 'notes@acme', outdated: true, reason: 'renamed to notes@acme'})
    expect(rows.find((r) => r.plugin === 'gone@acme')).toMatchObject({removed: true, outdated: true})
    const human = await run(['outdated'])
    expect(human.stdout).toContain('old-notes@acme -> notes@acme')
  })

  it('update follows the rename: the plugin is installed under its new name and the old records go', async () => {
    const result = await run(['update', 'old-notes@acme', '--yes', '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(result.json().updates[0]).toMatchObject({plugin: 'old-notes@acme', status: 'updated', renamedTo: 'notes@acme', to: {version: '1.1.0'}})
    expect(readFileSync(join(sb.home, '.agents', 'skills', 'notes', 'SKILL.md'), 'utf8')).toContain('Version two.')
    const plugins = state()
      .installs.map((r) => r.plugin)
      .sort()
    expect(plugins).toEqual(['gone@acme', 'notes@acme'])
    const verify = await run(['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
  })
})
