import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {makeServedRepo, type FileMap} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'

const TOOLKIT: FileMap = {
  'plugins/toolkit/.claude-plugin/plugin.json': JSON.stringify({name: 'toolkit', version: '1.0.0'}),
  'plugins/toolkit/skills/lint-rules/SKILL.md': '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the rules.\n',
  'plugins/toolkit/.mcp.json': JSON.stringify({mcpServers: {linter: {command: '${CLAUDE_PLUGIN_ROOT}/bin/lint', args: ['--stdio']}}}),
  'plugins/toolkit/hooks/hooks.json': JSON.stringify({hooks: {PostToolUse: [{matcher: 'Edit', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/bin/check'}]}]}}),
  'plugins/toolkit/bin/lint': {content: '#!/bin/sh\necho lint\n', mode: 0o755},
  'plugins/toolkit/bin/check': {content: '#!/bin/sh\necho check\n', mode: 0o755},
}
const CATALOG = {name: 'acme', plugins: [{name: 'toolkit', source: './plugins/toolkit', version: '1.0.0'}]}

let work: string
let server: GitHttpsServer
const sandbox = sandboxes()
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-project-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  makeServedRepo(join(work, 'src'), root, 'acme/market', {'.claude-plugin/marketplace.json': JSON.stringify(CATALOG, null, 2), ...TOOLKIT})
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('explore', () => {
  it('project install', async () => {
    const sb = sandbox({git: true})
    const added = await run(sb, ['marketplace', 'add', 'acme/market', '--json'])
    console.log(added.stdout)
    const r = await run(sb, ['install', 'toolkit@acme', '--agent', 'claude-code', '--yes', '--json'])
    console.log(r.status, r.stdout.slice(0, 2000), r.stderr)
    console.log(readFileSync(join(sb.project, 'loadout.json'), 'utf8'))
    console.log(readFileSync(join(sb.project, 'loadout.lock'), 'utf8'))
    rmSync(join(sb.project, '.claude'), {recursive: true})
    rmSync(join(sb.project, '.mcp.json'))
    rmSync(join(sb.home, '.config', 'loadout'), {recursive: true})
    console.log((await run(sb, ['marketplace', 'add', 'acme/market', '--json'])).stdout)
    const again = await run(sb, ['install', '--json'])
    console.log(again.status, again.stdout.slice(0, 2000), again.stderr)
    const again2 = await run(sb, ['install', '--yes', '--json'])
    console.log(again2.status, again2.stdout.slice(0, 2000), again2.stderr)
    expect(1).toBe(1)
  })
})
