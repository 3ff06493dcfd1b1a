/**
 * `mcp add|install|list|remove|search`, `skills info|validate|delete|create` and `agents
 * info|delete|create` are shared bodies that the fast path runs off a terminal. Two sandboxes made
 * alike run the same steps, one through the fast path and one through oclif (LOADOUT_NO_FAST=1):
 * every step must print the same (sandbox paths and times aside), exit the same and write the same
 * agent files, and each step must have taken the path expected (the modules loaded). `mcp add`'s
 * words after `--` are the server's argv, verbatim, on both paths (issue 24).
 */
import {readFileSync} from 'node:fs'
import type {ServerResponse} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {sandboxes, skillMd, snapshot, writeSkill} from './helpers.js'
import type {Sandbox} from '../support/cli.js'
import {bothWays, fast, oclif, shown, type Step} from './both-ways.js'

const sandbox = sandboxes()
const holdsEqual = bothWays()
let registry: TestHttpsServer

const meta = {'io.modelcontextprotocol.registry/official': {status: 'active', isLatest: true, publishedAt: '2025-10-01T00:00:00Z'}}
const WEATHER = {
  name: 'io.github.acme/weather',
  description: 'Forecasts for any city',
  version: '1.4.2',
  packages: [{registryType: 'npm', identifier: '@acme/weather-mcp', version: '1.4.2', transport: {type: 'stdio'}}],
}
const TICKETS = {
  name: 'io.github.acme/tickets',
  description: 'Weather of your issue tracker',
  version: '2.0.0',
  remotes: [{type: 'streamable-http', url: 'https://t.example/mcp'}],
}

const sendJson = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, {'content-type': 'application/json'})
  res.end(JSON.stringify(value))
}

beforeAll(async () => {
  registry = await startHttpsServer()
  registry.route('/v0.1/servers', (_req, res) =>
    sendJson(res, 200, {servers: [WEATHER, TICKETS].map((server) => ({server, _meta: meta})), metadata: {count: 2}}),
  )
  registry.route('/v0.1/servers/*', (_req, res, ctx) => {
    const found = /^\/io\.github\.acme(?:\/|%2F)weather\/versions\/(latest|1\.4\.2)$/.exec(ctx.rest)
    if (found) sendJson(res, 200, {server: WEATHER, _meta: meta})
    else sendJson(res, 404, {title: 'Not Found'})
  })
})
afterAll(async () => {
  await registry?.stop()
})

const setUp = (): Sandbox => {
  const sb = sandbox({git: true})
  writeSkill(join(sb.dir, 'skills'), 'good')
  writeSkill(join(sb.dir, 'skills'), 'bad', skillMd({name: 'Not_This', description: 'x'}))
  writeSkill(join(sb.dir, 'skills'), 'bare', '# No frontmatter\n\nA skill cst-agent accepts.\n')
  return sb
}

const USER = ['--scope', 'user', '--yes']
const skills = (sb: Sandbox, ...names: string[]) => names.map((n) => join(sb.dir, 'skills', n))
const DOCKER = ['docker', 'run', '-i', '--rm', '-e', 'X', 'img']
const REPEATED = ['node', 's.mjs', '--label', 'a', '--label', 'b', '--label', 'a', '--', '-e', 'Y']

const STEPS: Record<'mcp' | 'skills' | 'agents', Step[]> = {
  mcp: [
    // mcp add: the words after -- verbatim (flag-like, repeated, a second --), --env and --header one value each
    fast(['mcp', 'add', 'gh', '--env', 'X', '-e', 'Y=1', '--agent', 'cursor,codex', ...USER, '--', ...DOCKER]),
    fast(['mcp', 'add', 'lbl', '--agent', 'cursor,codex', ...USER, '--json', '--', ...REPEATED]),
    fast([
      'mcp',
      'add',
      'docs',
      '--url',
      'https://mcp.example.com/mcp',
      '--header',
      'Authorization=Bearer ${T}',
      '--header',
      'X-A=b',
      '--agent',
      'codex',
      ...USER,
    ]),
    fast(['mcp', 'add', 'x', '--agent', 'cursor', '--scope', 'user', 'npx', 'pkg', '--json'], 2),
    fast(['mcp', 'add', 'y', '--agent', 'cursor', ...USER, '--dry-run', '--', 'node', '--json', '-y', '--help']),
    oclif(['mcp', 'add', '--agent', 'cursor', ...USER, '--', 'x', 'srv']),
    oclif(['mcp', 'add', 'x', '--agent', 'cursor', ...USER, 'npx', '--rm'], 2),
    fast(['mcp', 'list', '--agent', 'cursor,codex', '--scope', 'user']),
    fast(['mcp', 'list', '--agent', 'cursor,codex', '--scope', 'user', '--json']),
    fast(['mcp', 'list', '--agent', 'nope', '--json'], 2),
    oclif(['mcp', 'list', 'extra']),
    fast(['mcp', 'remove', 'docs', '--agent', 'codex', ...USER, '--dry-run', '--json']),
    fast(['mcp', 'remove', 'docs', ...USER]),
    fast(['mcp', 'remove', 'docs', ...USER, '--json'], 3),
    oclif(['mcp', 'remove']),
    fast(['mcp', 'search', 'weather']),
    fast(['mcp', 'search', 'weather', 'forecasts', '--limit', '1', '--json']),
    oclif(['mcp', 'search', 'weather', '--limit', '0']),
    oclif(['mcp', 'search', '--json']),
    fast(['mcp', 'install', 'io.github.acme/weather', '--agent', 'cursor,codex', ...USER]),
    fast(['mcp', 'install', 'io.github.acme/weather@1.4.2', '--name', 'w2', '--agent', 'cursor', ...USER, '--dry-run', '--json']),
    fast(['mcp', 'install', 'io.github.acme/nothing', '--agent', 'cursor', ...USER, '--json'], 3),
    oclif(['mcp', 'install']),
  ],
  skills: [
    fast(['skills', 'create', 'demo', '--description', 'Makes demos', '--with', 'scripts', '--agent', 'codex,universal', ...USER]),
    fast(['skills', 'create', 'demo', '-d', 'Again', '--agent', 'codex', ...USER, '--json'], 5),
    fast(['skills', 'create', 'other', '--agent', 'codex', ...USER, '--dry-run', '--json']),
    oclif(['skills', 'create']),
    fast(['skills', 'info', 'demo', '--agent', 'codex', '--scope', 'user']),
    fast(['skills', 'info', 'demo', '--agent', 'codex,universal', '--json']),
    fast(['skills', 'info', 'nothing', '--json'], 3),
    oclif(['skills', 'info', 'a', 'b']),
    fast((sb) => ['skills', 'validate', ...skills(sb, 'good')]),
    fast((sb) => ['skills', 'validate', ...skills(sb, 'bad'), '--json'], 4),
    fast((sb) => ['skills', 'validate', ...skills(sb, 'bare'), '--dialect', 'cst-agent', '--json']),
    oclif(['skills', 'validate', '--dialect', 'bogus']),
    fast(['skills', 'delete', 'demo', '--agent', 'codex', ...USER, '--dry-run', '--json']),
    fast(['skills', 'delete', 'demo', '--agent', 'codex,universal', ...USER]),
    fast(['skills', 'delete', 'demo', ...USER, '--json'], 3),
    oclif(['skills', 'delete']),
  ],
  agents: [
    fast(['agents', 'create', 'rev', '-d', 'Reviews', '--tools', 'Read,Grep', '--no-readonly', '--max-steps', '5', '--agent', 'codex,cst-agent', ...USER]),
    fast(['agents', 'create', 'plan', '--readonly', '--model', 'sonnet', '--agent', 'cst-agent', ...USER, '--dry-run', '--json']),
    fast(['agents', 'create', 'rev', '--agent', 'cst-agent', ...USER, '--json'], 5),
    oclif(['agents', 'create', 'rev', '--max-steps', '0', '--agent', 'cst-agent', ...USER]),
    oclif(['agents', 'create', 'rev', '--readonly', '--no-readonly', '--agent', 'cst-agent', ...USER], 5),
    fast(['agents', 'info', 'rev', '--agent', 'cst-agent', '--scope', 'user']),
    fast(['agents', 'info', 'rev', '--json']),
    fast(['agents', 'info', 'nothing'], 3),
    oclif(['agents', 'info']),
    fast(['agents', 'delete', 'rev', '--agent', 'cst-agent', ...USER, '--dry-run']),
    fast(['agents', 'delete', 'rev', '--agent', 'codex,cst-agent', ...USER, '--json']),
    oclif(['agents', 'delete', 'rev', '--bogus']),
  ],
}

/** What the agents were given: every file below HOME but loadout's own records (which hold times), the MCP configs in full. */
const written = (sb: Sandbox): Record<string, string> => {
  const files = Object.fromEntries([...snapshot(sb.home)].filter(([path]) => !path.includes('loadout')))
  for (const file of ['.cursor/mcp.json', '.codex/config.toml']) if (files[file]) files[file] = shown(sb, readFileSync(join(sb.home, file), 'utf8'))
  return files
}

/** The argv each of the two agents holds for the server `name`. */
const serverArgv = (sb: Sandbox, name: string): string[] => {
  const server = JSON.parse(readFileSync(join(sb.home, '.cursor', 'mcp.json'), 'utf8')).mcpServers[name]
  return [server.command, ...(server.args ?? [])]
}

/** Runs each step in both sandboxes and holds the two runs equal. */
const runBothWays = async (steps: readonly Step[]): Promise<[Sandbox, Sandbox]> => {
  const quick = setUp()
  const slow = setUp()
  const env = {...registry.trustEnv(), LOADOUT_MCP_REGISTRY: registry.origin}
  await holdsEqual([quick, slow], steps, {env, files: written})
  return [quick, slow]
}

describe('the fast path of the mcp, skills and agents commands prints, exits and writes what oclif does, step by step', () => {
  it('mcp add, list, remove, search, install', async () => {
    const sandboxes = await runBothWays(STEPS.mcp)
    // what was typed after -- is what each path wrote
    for (const sb of sandboxes) {
      expect(serverArgv(sb, 'lbl')).toEqual(REPEATED)
      expect(serverArgv(sb, 'gh')).toEqual(DOCKER)
    }
  }, 300_000)

  it('skills create, info, validate, delete', async () => {
    await runBothWays(STEPS.skills)
  }, 240_000)

  it('agents create, info, delete', async () => {
    await runBothWays(STEPS.agents)
  }, 240_000)
})
