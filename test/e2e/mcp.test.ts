/**
 * `loadout mcp` end to end: servers added from the command line and installed from an MCP Registry
 * (a real HTTPS server on 127.0.0.1 answering the v0.1 API with paging) go into Claude Code, Codex and
 * Cursor in each one's own shape, secrets as references only; list, verify, outdated and update see
 * them; mcp remove and uninstall leave every config file byte for byte as it was.
 */
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {filesHolding, jsonError, loadout, sandboxes} from './helpers.js'

const SECRET = 'sk-live-0123456789-do-not-write-me'
const AGENTS = 'claude-code,codex,cursor'

const weather = (version: string) => ({
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.acme/weather',
  title: 'Weather',
  description: 'Forecasts and severe-weather alerts for any city',
  version,
  repository: {url: 'https://github.com/acme/weather-mcp', source: 'github'},
  packages: [
    {
      registryType: 'npm',
      registryBaseUrl: 'https://registry.npmjs.org',
      identifier: '@acme/weather-mcp',
      version,
      transport: {type: 'stdio'},
      packageArguments: [{type: 'named', name: '--units', default: 'metric', description: 'metric or imperial'}],
      environmentVariables: [
        {name: 'WEATHER_API_KEY', description: 'your API key', isRequired: true, isSecret: true, default: 'leaked-default'},
        {name: 'WEATHER_REGION', description: 'region', default: 'eu'},
        {name: 'WEATHER_DEBUG', description: 'optional, no default'},
      ],
    },
  ],
})

const REMOTE = {
  name: 'io.github.acme/tickets',
  description: 'Issue tracker for acme teams',
  version: '2.0.0',
  remotes: [
    {
      type: 'streamable-http',
      url: 'https://tickets.acme.example/mcp',
      headers: [{name: 'Authorization', value: 'Bearer {ticket_token}', isSecret: true, isRequired: true}],
    },
  ],
}

const filler = (i: number) => ({
  name: `io.github.other/server-${i}`,
  description: `Another server number ${i}`,
  version: '1.0.0',
  packages: [{registryType: 'npm', identifier: `other-${i}`, version: '1.0.0'}],
})

const meta = {'io.modelcontextprotocol.registry/official': {status: 'active', isLatest: true, publishedAt: '2025-10-01T00:00:00Z'}}

let server: TestHttpsServer
let latestWeather = '1.4.2'
const sandbox = sandboxes()

const sendJson = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, {'content-type': 'application/json'})
  res.end(JSON.stringify(value))
}

/** The registry: the list ignores `search` (the client matches descriptions itself) and pages by cursor. */
const registry = (req: IncomingMessage, res: ServerResponse, url: URL) => {
  if (url.searchParams.get('search') === 'loop') {
    // a broken registry that hands out the same cursor forever
    return sendJson(res, 200, {servers: [{server: filler(9), _meta: meta}, {server: {name: 42}}, 'junk'], metadata: {nextCursor: 'again', count: 3}})
  }
  const sneaky = {...filler(7), name: 'io.github.evil/sneaky', description: 'sneaky \u001b]0;owned\u0007\u001b[2J text'}
  const pages = [
    [filler(1), filler(2), REMOTE, sneaky],
    [filler(3), weather(latestWeather)],
  ]
  const page = url.searchParams.get('cursor') === 'page-2' ? 1 : 0
  sendJson(res, 200, {servers: pages[page]!.map((s) => ({server: s, _meta: meta})), metadata: page === 0 ? {nextCursor: 'page-2', count: 3} : {count: 2}})
}

const versions = (res: ServerResponse, rest: string) => {
  const match = /^\/(.+)\/versions\/([^/]+)$/.exec(rest)
  if (!match) return sendJson(res, 404, {title: 'Not Found'})
  const name = decodeURIComponent(match[1]!)
  const version = decodeURIComponent(match[2]!)
  if (name === 'io.github.acme/weather') {
    const v = version === 'latest' ? latestWeather : version
    if (!['1.4.2', '1.5.0'].includes(v)) return sendJson(res, 404, {title: 'Not Found'})
    return sendJson(res, 200, {server: weather(v), _meta: meta})
  }
  if (name === REMOTE.name) return sendJson(res, 200, {server: REMOTE, _meta: meta})
  if (name === 'io.github.evil/impostor') return sendJson(res, 200, {server: weather('1.4.2'), _meta: meta})
  if (name === 'io.github.evil/plain-http')
    return sendJson(res, 200, {server: {...REMOTE, name, remotes: [{type: 'streamable-http', url: 'http://evil.example/mcp'}]}, _meta: meta})
  if (name === 'io.github.evil/floating')
    return sendJson(res, 200, {
      server: {...weather('1.0.0'), name, packages: [{registryType: 'npm', identifier: 'floating-mcp', version: '^1.0.0'}]},
      _meta: meta,
    })
  sendJson(res, 404, {title: 'Not Found'})
}

beforeAll(async () => {
  server = await startHttpsServer()
  server.route('/v0.1/servers', (req, res, ctx) => registry(req, res, ctx.url))
  server.route('/v0.1/servers/*', (_req, res, ctx) => versions(res, ctx.rest))
})

afterAll(async () => {
  await server?.stop()
})

const run = (sb: Sandbox, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  loadout(sb, args, {
    env: {...server.trustEnv(), LOADOUT_MCP_REGISTRY: server.origin, WEATHER_API_KEY: SECRET, LOADOUT_TOKEN: 'loadout-token-never-to-registry', ...extra},
  })

const bigClaudeJson = (): string => {
  const projects: Record<string, unknown> = {}
  for (let i = 0; i < 5000; i++) projects[`/home/user/project-${i}`] = {allowedTools: [], history: [`entry ${i} ${'x'.repeat(200)}`]}
  return JSON.stringify({numStartups: 7, projects, mcpServers: {mine: {command: 'my-server', env: {MY_KEY: 'users-own-value'}}}}, null, 2)
}

const CODEX_TOML = `# my codex settings
model = "o4-mini" # the model I like

[mcp_servers.mine]
# my own server, keep this comment
command = "my-server"

# trailing comment
`
const CURSOR_JSON = '{\n  // my cursor servers\n  "mcpServers": {\n    "mine": {"command": "my-server"}\n  }\n}\n'

const FILES = ['.claude.json', '.codex/config.toml', '.cursor/mcp.json']

const prepareHome = (sb: Sandbox) => {
  mkdirSync(join(sb.home, '.codex'), {recursive: true})
  mkdirSync(join(sb.home, '.cursor'), {recursive: true})
  writeFileSync(join(sb.home, '.claude.json'), bigClaudeJson())
  writeFileSync(join(sb.home, '.codex', 'config.toml'), CODEX_TOML)
  writeFileSync(join(sb.home, '.cursor', 'mcp.json'), CURSOR_JSON)
}

const hashes = (sb: Sandbox) =>
  FILES.map((f) =>
    existsSync(join(sb.home, f))
      ? createHash('sha256')
          .update(readFileSync(join(sb.home, f)))
          .digest('hex')
      : 'absent',
  )

const claudeServers = (sb: Sandbox) => JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers
const cursorText = (sb: Sandbox) => readFileSync(join(sb.home, '.cursor', 'mcp.json'), 'utf8')
const codexText = (sb: Sandbox) => readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8')

describe('mcp search', () => {
  it('finds a server by a word of its description on the second page', async () => {
    const sb = sandbox()
    server.clearRequests()
    const result = await run(sb, ['mcp', 'search', 'forecasts', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const body = result.json()
    expect(body.servers.map((s: {server: {name: string}}) => s.server.name)).toEqual(['io.github.acme/weather'])
    expect(body.pages).toBe(2)
    const asked = server.requestsTo('/v0.1/servers')
    expect(asked.map((r) => new URLSearchParams(r.query).get('cursor'))).toEqual([null, 'page-2'])
    expect(asked.every((r) => r.headers.authorization === undefined)).toBe(true)
    const text = await run(sb, ['mcp', 'search', 'issue', 'tracker'])
    expect(text.stdout).toContain('io.github.acme/tickets')
  })

  it('shows a description with escape sequences harmlessly', async () => {
    const sb = sandbox()
    const result = await run(sb, ['mcp', 'search', 'sneaky'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('io.github.evil/sneaky')
    expect(result.stdout).not.toContain('\u001b')
  })

  it('stops when a registry repeats a cursor, and skips entries that are not servers', async () => {
    const sb = sandbox()
    const result = await run(sb, ['mcp', 'search', 'loop', '--json'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json()).toMatchObject({pages: 2, skipped: 4, servers: []})
  })

  it('refuses a registry that is not https', async () => {
    const sb = sandbox()
    const result = await run(sb, ['mcp', 'search', 'x', '--json'], {LOADOUT_MCP_REGISTRY: 'http://127.0.0.1:1'})
    expect(result.status).toBe(2)
    expect(jsonError(result).code).toBe('bad-registry-url')
  })
})

describe('mcp install from the registry', () => {
  it('writes a pinned entry into each agent, a secret only as a reference, and takes it back byte for byte', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)

    const refused = await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--agent', AGENTS, '--scope', 'user', '--json'])
    expect(refused.status).toBe(8)
    expect(jsonError(refused).code).toBe('consent-needed')
    expect(hashes(sb)).toEqual(before)

    const result = await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const body = result.json()
    expect(body.plugin).toBe('mcp:weather@registry')
    expect(body.version).toBe('1.4.2')
    expect(body.requiredEnv).toEqual(['WEATHER_API_KEY'])

    const claude = claudeServers(sb)
    expect(claude.mine).toEqual({command: 'my-server', env: {MY_KEY: 'users-own-value'}})
    expect(claude.weather).toEqual({
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.4.2', '--units', 'metric'],
      env: {WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_REGION: 'eu'},
    })
    const cursor = JSON.parse(cursorText(sb).replace(/^\s*\/\/.*$/m, ''))
    expect(cursor.mcpServers.weather.env).toEqual({WEATHER_API_KEY: '${env:WEATHER_API_KEY}', WEATHER_REGION: 'eu'})
    expect(cursorText(sb)).toContain('// my cursor servers')
    const codex = codexText(sb)
    expect(codex).toContain('[mcp_servers.weather]\ncommand = "npx"\nargs = ["-y", "@acme/weather-mcp@1.4.2", "--units", "metric"]')
    expect(codex).toContain('env_vars = ["WEATHER_API_KEY"]')
    expect(codex).toContain('# my own server, keep this comment')

    // neither the secret in the environment nor the registry's default for it is written anywhere
    expect(filesHolding(sb.home, SECRET)).toEqual([])
    expect(filesHolding(sb.home, 'leaked-default')).toEqual([])
    expect(server.requestsTo('/v0.1/servers').every((r) => r.headers.authorization === undefined)).toBe(true)

    const listed = await run(sb, ['mcp', 'list', '--agent', AGENTS, '--scope', 'user', '--json'])
    const rows = listed.json().servers as Array<{agent: string; name: string; owner: string}>
    expect(rows.filter((r) => r.name === 'weather').map((r) => [r.agent, r.owner])).toEqual([
      ['claude-code', 'mcp:weather@registry'],
      ['codex', 'mcp:weather@registry'],
      ['cursor', 'mcp:weather@registry'],
    ])
    expect(rows.filter((r) => r.name === 'mine').every((r) => r.owner === 'user')).toBe(true)
    expect(listed.stdout).not.toContain('users-own-value')

    const verify = await run(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    expect(verify.json().checked).toBe(3)

    const removed = await run(sb, ['mcp', 'remove', 'weather', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(hashes(sb)).toEqual(before)
  })

  it('is taken back by uninstall too, and a config file it created is removed', async () => {
    const sb = sandbox()
    writeFileSync(join(sb.home, '.claude.json'), bigClaudeJson())
    mkdirSync(join(sb.home, '.codex'))
    writeFileSync(join(sb.home, '.codex', 'config.toml'), CODEX_TOML)
    const before = hashes(sb)
    expect(before[2]).toBe('absent')
    const result = await run(sb, ['mcp', 'install', 'io.github.acme/weather@1.4.2', '--agent', AGENTS, '--scope', 'user', '--yes'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('set WEATHER_API_KEY')
    expect(existsSync(join(sb.home, '.cursor', 'mcp.json'))).toBe(true)
    const removed = await run(sb, ['uninstall', 'mcp:weather', '--scope', 'user', '--yes'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(hashes(sb)).toEqual(before)
  })

  it('is removed by the registry name it was installed by, as well as by its own name', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    const result = await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--agent', AGENTS, '--scope', 'user', '--yes'])
    expect(result.status, result.stderr).toBe(0)
    const removed = await run(sb, ['mcp', 'remove', 'io.github.acme/weather', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stdout + removed.stderr).toBe(0)
    expect(hashes(sb)).toEqual(before)
  })

  it('writes a remote server as a URL entry with its secret header as a reference', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const result = await run(sb, ['mcp', 'install', 'io.github.acme/tickets', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json().requiredEnv).toEqual(['TICKET_TOKEN'])
    expect(claudeServers(sb).tickets).toEqual({type: 'http', url: 'https://tickets.acme.example/mcp', headers: {Authorization: 'Bearer ${TICKET_TOKEN}'}})
    expect(cursorText(sb)).toContain('"Authorization": "Bearer ${env:TICKET_TOKEN}"')
    expect(codexText(sb)).toContain('[mcp_servers.tickets]\nurl = "https://tickets.acme.example/mcp"\nbearer_token_env_var = "TICKET_TOKEN"')
    expect((await run(sb, ['verify', '--json'])).status).toBe(0)
  })

  it('refuses a plain http remote, an unpinned package and an unknown server, writing nothing', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    const http = await run(sb, ['mcp', 'install', 'io.github.evil/plain-http', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(http.status).toBe(2)
    expect(jsonError(http).code).toBe('insecure-url')
    const floating = await run(sb, ['mcp', 'install', 'io.github.evil/floating', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(floating.status).toBe(4)
    expect(jsonError(floating).message).toContain('not an exact version')
    const missing = await run(sb, ['mcp', 'install', 'io.github.acme/nothing', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(missing.status).toBe(3)
    expect(jsonError(missing).code).toBe('mcp-server-not-found')
    const impostor = await run(sb, ['mcp', 'install', 'io.github.evil/impostor', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(impostor.status).toBe(6)
    expect(jsonError(impostor).code).toBe('registry-bad-answer')
    const bad = await run(sb, ['mcp', 'install', 'not a name', '--json'])
    expect(bad.status).toBe(2)
    expect(hashes(sb)).toEqual(before)
  })

  it('is outdated when the registry has a newer version, and update moves it there', async () => {
    const sb = sandbox()
    prepareHome(sb)
    latestWeather = '1.4.2'
    expect((await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--agent', AGENTS, '--scope', 'user', '--yes'])).status).toBe(0)
    try {
      latestWeather = '1.5.0'
      const outdated = await run(sb, ['outdated', '--json'])
      const row = outdated.json().rows.find((r: {plugin: string}) => r.plugin === 'mcp:weather@registry')
      expect(row).toMatchObject({outdated: true, current: {version: '1.4.2'}, latest: {version: '1.5.0'}})
      const updated = await run(sb, ['update', 'mcp:weather', '--scope', 'user', '--yes', '--json'])
      expect(updated.status, updated.stdout + updated.stderr).toBe(0)
      expect(claudeServers(sb).weather.args).toContain('@acme/weather-mcp@1.5.0')
      expect(codexText(sb)).toContain('"@acme/weather-mcp@1.5.0"')
      expect(codexText(sb).match(/\[mcp_servers\.weather\]/g)).toHaveLength(1)
      expect((await run(sb, ['verify', '--json'])).status).toBe(0)
    } finally {
      latestWeather = '1.4.2'
    }
  })

  it('in a project, declares the server in loadout.json and locks registry, name and version', async () => {
    const sb = sandbox({git: true})
    const result = await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--agent', 'claude-code,cursor', '--scope', 'project', '--yes'])
    expect(result.status, result.stderr).toBe(0)
    const manifest = JSON.parse(readFileSync(join(sb.project, 'loadout.json'), 'utf8'))
    const source = `${server.origin}/v0.1/servers/io.github.acme%2Fweather/versions/1.4.2`
    expect(manifest.plugins['mcp:weather@registry']).toEqual({version: '1.4.2', source})
    const lock = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8'))
    expect(lock.installs.map((r: {plugin: string; version: string; source: string}) => [r.plugin, r.version, r.source])).toEqual([
      ['mcp:weather@registry', '1.4.2', source],
      ['mcp:weather@registry', '1.4.2', source],
    ])
    expect(JSON.parse(readFileSync(join(sb.project, '.mcp.json'), 'utf8')).mcpServers.weather.args).toContain('@acme/weather-mcp@1.4.2')
    expect(filesHolding(sb.project, SECRET)).toEqual([])

    // a teammate's clone: loadout.json and loadout.lock only, while the registry has moved on
    const mate = sandbox({git: true})
    for (const file of ['loadout.json', 'loadout.lock']) writeFileSync(join(mate.project, file), readFileSync(join(sb.project, file)))
    latestWeather = '1.5.0'
    try {
      const unapproved = await run(mate, ['install', '--json'])
      expect(unapproved.status).toBe(8)
      const installed = await run(mate, ['install', '--yes', '--frozen', '--json'])
      expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    } finally {
      latestWeather = '1.4.2'
    }
    expect(readFileSync(join(mate.project, '.mcp.json'), 'utf8')).toBe(readFileSync(join(sb.project, '.mcp.json'), 'utf8'))
    expect(JSON.parse(readFileSync(join(mate.project, '.cursor', 'mcp.json'), 'utf8')).mcpServers.weather.args).toContain('@acme/weather-mcp@1.4.2')
    // the same lock, but for the machine-local installed copy
    const lockOf = (p: string) => readFileSync(join(p, 'loadout.lock'), 'utf8').replace(/"pluginRoot": "[^"]*"/g, '')
    expect(lockOf(mate.project)).toBe(lockOf(sb.project))
  })

  it('a server installed from its remote stays a remote in a clone', async () => {
    const sb = sandbox({git: true})
    const result = await run(sb, [
      'mcp',
      'install',
      'io.github.acme/weather',
      '--remote',
      '--name',
      'weather-remote',
      '--agent',
      'claude-code',
      '--scope',
      'project',
      '--yes',
    ])
    expect(result.status).toBe(2)
    expect(
      jsonError(await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--remote', '--agent', 'claude-code', '--scope', 'project', '--yes', '--json']))
        .code,
    ).toBe('no-remote')
    const tickets = await run(sb, ['mcp', 'install', 'io.github.acme/tickets', '--remote', '--agent', 'claude-code', '--scope', 'project', '--yes'])
    expect(tickets.status, tickets.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(sb.project, 'loadout.json'), 'utf8')).plugins['mcp:tickets@registry'].source).toMatch(/versions\/2\.0\.0#remote$/)
    const mate = sandbox({git: true})
    for (const file of ['loadout.json', 'loadout.lock']) writeFileSync(join(mate.project, file), readFileSync(join(sb.project, file)))
    const installed = await run(mate, ['install', '--yes', '--frozen'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(readFileSync(join(mate.project, '.mcp.json'), 'utf8')).toBe(readFileSync(join(sb.project, '.mcp.json'), 'utf8'))
  })
})

describe('mcp add', () => {
  it('adds a command server to each agent without a registry, and mcp remove takes it back byte for byte', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    const args = [
      'mcp',
      'add',
      'files',
      '--agent',
      AGENTS,
      '--scope',
      'user',
      '--env',
      'FILES_TOKEN',
      '--env',
      'ROOT=/srv',
      '--',
      'npx',
      '-y',
      '@acme/files@2.0.0',
      '--root',
      '/srv',
    ]
    const refused = await run(sb, [...args.slice(0, 2), '--json', ...args.slice(2)])
    expect(refused.status).toBe(8)
    expect(hashes(sb)).toEqual(before)
    const result = await run(sb, [...args.slice(0, 2), '--yes', '--json', ...args.slice(2)])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'mcp:files@local', requiredEnv: ['FILES_TOKEN']})
    expect(claudeServers(sb).files).toEqual({
      command: 'npx',
      args: ['-y', '@acme/files@2.0.0', '--root', '/srv'],
      env: {FILES_TOKEN: '${FILES_TOKEN}', ROOT: '/srv'},
    })
    expect(codexText(sb)).toContain('env = { ROOT = "/srv" }\nenv_vars = ["FILES_TOKEN"]')
    const listed = await run(sb, ['mcp', 'list', '--agent', AGENTS, '--scope', 'user'])
    expect(listed.stdout).toMatch(/codex\s+user\s+files\s+mcp:files@local\s+npx -y @acme\/files@2\.0\.0 --root \/srv/)
    // disable takes it out, enable puts the same entry back under the same name
    const written = FILES.map((f) => readFileSync(join(sb.home, f), 'utf8'))
    expect((await run(sb, ['disable', 'mcp:files', '--scope', 'user'])).status).toBe(0)
    expect(hashes(sb)).toEqual(before)
    const enabled = await run(sb, ['enable', 'mcp:files', '--scope', 'user', '--yes'])
    expect(enabled.status, enabled.stderr).toBe(0)
    expect(FILES.map((f) => readFileSync(join(sb.home, f), 'utf8'))).toEqual(written)
    expect((await run(sb, ['verify'])).status).toBe(0)
    // the registry's server of the same name cannot take its place
    const taken = await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--name', 'files', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(taken.status).toBe(5)
    expect(jsonError(taken).code).toBe('mcp-name-taken')
    const removed = await run(sb, ['mcp', 'remove', 'files', '--scope', 'user', '--yes'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(hashes(sb)).toEqual(before)
  })

  it('shows the plan with --dry-run and writes nothing, even without consent', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    const result = await run(sb, ['mcp', 'add', 'files', '--agent', AGENTS, '--scope', 'user', '--dry-run', '--json', '--', 'files-server'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.json()).toMatchObject({status: 'planned', consent: {approvedBy: 'pending'}})
    expect(result.json().plans.map((p: {operations: unknown[]}) => p.operations.length)).toEqual([1, 1, 1])
    expect(hashes(sb)).toEqual(before)
    expect(existsSync(join(sb.home, '.config', 'loadout', 'state.json'))).toBe(false)
  })

  it('adds a URL server, and keeps the mode of ~/.claude.json', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const {chmodSync} = await import('node:fs')
    chmodSync(join(sb.home, '.claude.json'), 0o600)
    const before = hashes(sb)
    const result = await run(sb, [
      'mcp',
      'add',
      'docs',
      '--url',
      'https://docs.example/mcp',
      '--transport',
      'sse',
      '--header',
      'X-Api-Key=${DOCS_KEY}',
      '--agent',
      AGENTS,
      '--scope',
      'user',
      '--yes',
      '--json',
    ])
    expect(result.status, result.stderr).toBe(0)
    expect(claudeServers(sb).docs).toEqual({type: 'sse', url: 'https://docs.example/mcp', headers: {'X-Api-Key': '${DOCS_KEY}'}})
    expect(cursorText(sb)).toContain('"X-Api-Key": "${env:DOCS_KEY}"')
    // Codex speaks streamable HTTP only: the sse server is not written there, and says why
    const codexPlan = result.json().plans.find((p: {target: string}) => p.target === 'codex')
    expect(codexPlan.skipped[0].reason).toContain('SSE')
    expect(codexText(sb)).toBe(CODEX_TOML)
    expect(statSync(join(sb.home, '.claude.json')).mode & 0o777).toBe(0o600)
    expect((await run(sb, ['mcp', 'remove', 'docs', '--scope', 'user', '--yes'])).status).toBe(0)
    expect(hashes(sb)).toEqual(before)
  })

  it('refuses http URLs, credentials in URLs, literal secrets and a name the user already has', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    const cases: Array<[string[], number, string]> = [
      [['mcp', 'add', 'x', '--url', 'http://docs.example/mcp'], 2, 'insecure-url'],
      [['mcp', 'add', 'x', '--url', 'https://me:pw@docs.example/mcp'], 2, 'credentials-in-url'],
      [['mcp', 'add', 'x', '--env', `API_KEY=${SECRET}`, '--', 'server'], 2, 'secret-value'],
      [['mcp', 'add', 'x', '--url', 'https://docs.example/mcp', '--header', `Authorization=Bearer ${SECRET}`], 2, 'secret-value'],
      [['mcp', 'add', '../x', '--', 'server'], 2, 'bad-server-name'],
      [['mcp', 'add', 'x'], 2, 'no-command'],
      [['mcp', 'add', 'x', 'npx', '-y', 'some-server'], 2, 'command-needs-separator'],
      [['mcp', 'add', 'mine', '--', 'other-server'], 5, 'mcp-key-taken'],
    ]
    for (const [args, status, code] of cases) {
      // flags before the arguments: after -- everything is the command's
      const result = await run(sb, [args[0]!, args[1]!, '--agent', AGENTS, '--scope', 'user', '--yes', '--json', ...args.slice(2)])
      expect([args.join(' '), result.status, jsonError(result).code]).toEqual([args.join(' '), status, code])
      expect(result.stdout).not.toContain(SECRET)
    }
    expect(hashes(sb)).toEqual(before)
    expect(filesHolding(sb.home, SECRET)).toEqual([])
  })
})

describe('mcp add in a project', () => {
  it('declares the entry in loadout.json, so a clone installs the same server', async () => {
    const sb = sandbox({git: true})
    const added = await run(sb, [
      'mcp',
      'add',
      'files',
      '--agent',
      'claude-code,cursor',
      '--scope',
      'project',
      '--yes',
      '--env',
      'FILES_TOKEN',
      '--',
      'files-server',
      '--stdio',
    ])
    expect(added.status, added.stderr).toBe(0)
    const manifest = JSON.parse(readFileSync(join(sb.project, 'loadout.json'), 'utf8'))
    expect(manifest.plugins['mcp:files@local']).toEqual({
      source: 'local',
      server: {command: 'files-server', args: ['--stdio'], env: {FILES_TOKEN: '${FILES_TOKEN}'}},
    })
    const mate = sandbox({git: true})
    for (const file of ['loadout.json', 'loadout.lock']) writeFileSync(join(mate.project, file), readFileSync(join(sb.project, file)))
    const installed = await run(mate, ['install', '--yes', '--frozen', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(readFileSync(join(mate.project, '.mcp.json'), 'utf8')).toBe(readFileSync(join(sb.project, '.mcp.json'), 'utf8'))
    expect(readFileSync(join(mate.project, '.cursor', 'mcp.json'), 'utf8')).toContain('${env:FILES_TOKEN}')

    // a hostile declaration is refused before anything is written
    const evil = sandbox({git: true})
    writeFileSync(
      join(evil.project, 'loadout.json'),
      JSON.stringify({plugins: {'mcp:evil@local': {source: 'local', server: {url: 'http://evil.example/mcp'}}}}),
    )
    const refused = await run(evil, ['install', '--loose', '--agent', 'claude-code', '--yes', '--json'])
    expect(refused.status).toBe(2)
    expect(jsonError(refused).code).toBe('insecure-url')
    expect(existsSync(join(evil.project, '.mcp.json'))).toBe(false)
  })
})

describe('policy', () => {
  it('refuses a local command where mcp.stdio is false, and a registry whose host is not allowed, writing nothing', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    mkdirSync(join(sb.home, '.config', 'loadout'), {recursive: true})
    writeFileSync(join(sb.home, '.config', 'loadout', 'policy.json'), JSON.stringify({mcp: {stdio: false}}))
    const stdio = await run(sb, ['mcp', 'add', 'files', '--agent', AGENTS, '--scope', 'user', '--yes', '--json', '--', 'files-server'])
    expect(stdio.status).toBe(11)
    expect(jsonError(stdio).message).toContain('files')
    writeFileSync(join(sb.home, '.config', 'loadout', 'policy.json'), JSON.stringify({sources: {allow: ['github.com']}}))
    server.clearRequests()
    const registryHost = await run(sb, ['mcp', 'install', 'io.github.acme/weather', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(registryHost.status).toBe(11)
    expect(server.requestsTo('/v0.1')).toEqual([])
    expect(hashes(sb)).toEqual(before)
  })
})

describe('mcp add in every shape', () => {
  it("writes OpenCode's mcp, Copilot's servers, Gemini, deepagents and cst-agent entries, each spelling the reference its own way, and removes them", async () => {
    const sb = sandbox({git: true})
    const p = sb.project
    mkdirSync(join(p, '.github'))
    writeFileSync(join(p, 'opencode.json'), '{\n  // mine\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "dark"\n}\n')
    writeFileSync(join(p, '.github', 'mcp.json'), '{"mcpServers": {"mine": {"type": "stdio", "command": "mine"}}}')
    const files = ['opencode.json', '.github/mcp.json', '.gemini/settings.json', '.deepagents/.mcp.json', '.agent/mcp.json']
    const sums = () =>
      files.map((f) =>
        existsSync(join(p, f))
          ? createHash('sha256')
              .update(readFileSync(join(p, f)))
              .digest('hex')
          : 'absent',
      )
    const before = sums()
    const agents = 'opencode,github-copilot,gemini-cli,deepagents,cst-agent'
    const added = await run(sb, [
      'mcp',
      'add',
      'files',
      '--agent',
      agents,
      '--scope',
      'project',
      '--yes',
      '--env',
      'FILES_TOKEN',
      '--',
      'files-server',
      '--stdio',
    ])
    expect(added.status, added.stderr).toBe(0)
    const read = (f: string) => JSON.parse(readFileSync(join(p, f), 'utf8').replace(/^\s*\/\/.*$/m, ''))
    expect(read('opencode.json').mcp.files).toEqual({type: 'local', command: ['files-server', '--stdio'], environment: {FILES_TOKEN: '{env:FILES_TOKEN}'}})
    expect(read('.github/mcp.json').mcpServers.files).toEqual({
      type: 'stdio',
      command: 'files-server',
      args: ['--stdio'],
      env: {FILES_TOKEN: '${FILES_TOKEN}'},
    })
    expect(read('.gemini/settings.json').mcpServers.files).toEqual({command: 'files-server', args: ['--stdio'], env: {FILES_TOKEN: '${FILES_TOKEN}'}})
    expect(read('.deepagents/.mcp.json').mcpServers.files.command).toBe('files-server')
    expect(read('.agent/mcp.json').mcpServers.files.command).toBe('files-server')
    expect(readFileSync(join(p, 'opencode.json'), 'utf8')).toContain('// mine')
    const listed = await run(sb, ['mcp', 'list', '--agent', agents, '--scope', 'project', '--json'])
    expect(
      listed
        .json()
        .servers.filter((s: {name: string}) => s.name === 'files')
        .map((s: {agent: string}) => s.agent),
    ).toEqual(agents.split(','))
    expect((await run(sb, ['verify'])).status).toBe(0)
    const removed = await run(sb, ['mcp', 'remove', 'files', '--scope', 'project', '--yes'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(sums()).toEqual(before)
    // loadout.json declared nothing before: the declaration left empty goes
    expect(existsSync(join(p, 'loadout.json'))).toBe(false)
  })
})

describe('mcp remove and list', () => {
  it('leaves a server loadout did not write, and says whose it is', async () => {
    const sb = sandbox()
    prepareHome(sb)
    const before = hashes(sb)
    const result = await run(sb, ['mcp', 'remove', 'mine', '--scope', 'user', '--yes', '--json'])
    expect(result.status).toBe(3)
    expect(jsonError(result).code).toBe('mcp-not-loadouts')
    expect(jsonError(result).message).toContain('.codex/config.toml')
    const nothing = await run(sb, ['mcp', 'remove', 'nothing', '--scope', 'user', '--yes', '--json'])
    expect(jsonError(nothing).code).toBe('not-installed')
    expect(hashes(sb)).toEqual(before)
  })

  it('fails on an unknown agent', async () => {
    const sb = sandbox()
    const result = await run(sb, ['mcp', 'list', '--agent', 'no-such-agent', '--json'])
    expect(result.status).toBe(2)
    expect(jsonError(result).message).toContain('no-such-agent')
  })

  it('names a config file it cannot read instead of failing', async () => {
    const sb = sandbox()
    prepareHome(sb)
    writeFileSync(join(sb.home, '.cursor', 'mcp.json'), '{"mcpServers": {')
    const result = await run(sb, ['mcp', 'list', '--agent', AGENTS, '--scope', 'user', '--json'])
    expect(result.status).toBe(0)
    const body = result.json()
    expect(body.unreadable.map((u: {file: string}) => u.file)).toEqual([join(sb.home, '.cursor', 'mcp.json')])
    expect(body.servers.map((s: {agent: string}) => s.agent)).toEqual(['claude-code', 'codex'])
  })
})
