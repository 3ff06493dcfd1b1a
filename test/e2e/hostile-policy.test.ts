/**
 * Policy judges every hop: two real HTTPS servers on 127.0.0.1 (two ports, so two `host:port`
 * sources), one allowed and one not. A redirect from the allowed one to the other (catalogs, the MCP
 * Registry, npm packuments), an npm tarball on the other host, a host spelled another way
 * (`[::ffff:127.0.0.1]`, `2130706433`, `0x7f.0.0.1`, a trailing dot, upper case, punycode for an IDN
 * pattern), and a registry the policy blocks after install (`outdated`, `update`) are refused, and
 * the refused server sees no request. A pathological glob in a project policy does not hang.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
let good: TestHttpsServer
let evil: TestHttpsServer
const port = (s: TestHttpsServer) => new URL(s.origin).port

const CATALOG = {name: 'cat', owner: {name: 'Acme'}, plugins: []}
const SERVER = {
  name: 'io.github.acme/x',
  version: '1.0.0',
  description: 'x',
  packages: [{registryType: 'npm', identifier: '@acme/x', version: '1.0.0'}],
}
const registryAnswer = (res: import('node:http').ServerResponse) => {
  res.writeHead(200, {'content-type': 'application/json'})
  res.end(JSON.stringify({server: SERVER, _meta: {}}))
}

beforeAll(async () => {
  good = await startHttpsServer()
  evil = await startHttpsServer({ca: good.ca})
  for (const s of [good, evil]) s.json('/catalog.json', CATALOG)
  good.redirect('/to-evil.json', evil.url('/catalog.json'))
  // an MCP Registry whose answers move to the other server
  good.route('/v0.1/servers/*', (_req, res) => {
    res.writeHead(302, {location: evil.url('/v0.1/servers/io.github.acme%2Fx/versions/latest')})
    res.end()
  })
  good.route('/reg/v0.1/servers/*', (_req, res) => registryAnswer(res))
  evil.route('/v0.1/servers/*', (_req, res) => registryAnswer(res))
  // npm: a packument that redirects, and one whose tarball is on the other host or plain http
  good.redirect('/redirected-pkg', evil.url('/redirected-pkg'))
  const packument = (name: string, tarball: string) => ({
    name,
    'dist-tags': {latest: '1.0.0'},
    versions: {'1.0.0': {name, version: '1.0.0', dist: {tarball, integrity: 'sha512-AAAA'}}},
  })
  evil.json('/redirected-pkg', packument('redirected-pkg', evil.url('/t.tgz')))
  good.json('/far-tarball', packument('far-tarball', evil.url('/far-tarball-1.0.0.tgz')))
  good.json('/http-tarball', packument('http-tarball', `http://127.0.0.1:${port(good)}/http-tarball-1.0.0.tgz`))
})

afterAll(async () => {
  await good?.stop()
  await evil?.stop()
})

const policyFile = (sb: Sandbox, policy: unknown): string => {
  const file = join(sb.dir, 'etc-policy.json')
  writeFileSync(file, JSON.stringify(policy))
  return file
}
const run = (sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) =>
  loadout(sb, args, {env: {...good.trustEnv(), LOADOUT_POLICY: join(sb.dir, 'etc-policy.json'), LOADOUT_HTTP_TIMEOUT: '5', ...env}})
const onlyGood = (sb: Sandbox) => policyFile(sb, {sources: {allow: [`127.0.0.1:${port(good)}`, 'local']}})

const refusedByPolicy = (result: {status: number; stdout: string; stderr: string}) => {
  expect(result.status, result.stdout + result.stderr).toBe(11)
  expect(jsonError(result as never).code).toBe('policy-refused')
}

describe('a redirect to a host the policy refuses is not followed', () => {
  it('catalog URL', async () => {
    const sb = sandbox()
    onlyGood(sb)
    evil.clearRequests()
    const result = await run(sb, ['marketplace', 'add', good.url('/to-evil.json'), '--scope', 'user', '--json'])
    refusedByPolicy(result)
    expect(evil.requests).toEqual([])
  })

  it('MCP Registry: install and search', async () => {
    const sb = sandbox()
    onlyGood(sb)
    evil.clearRequests()
    const env = {LOADOUT_MCP_REGISTRY: good.origin}
    refusedByPolicy(await run(sb, ['mcp', 'install', 'io.github.acme/x', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'], env))
    expect(evil.requests).toEqual([])
    // search asks a registry the policy blocks: refused before the first request
    good.clearRequests()
    refusedByPolicy(await run(sb, ['mcp', 'search', 'x', '--json'], {LOADOUT_MCP_REGISTRY: evil.origin}))
    expect(evil.requests).toEqual([])
  })

  it('npm: a packument that redirects, a tarball on a refused host, a tarball over http', async () => {
    const sb = sandbox({git: true})
    onlyGood(sb)
    const market = join(sb.dir, 'market')
    const {mkdirSync} = await import('node:fs')
    mkdirSync(join(market, '.claude-plugin'), {recursive: true})
    const entry = (name: string) => ({name, source: {source: 'npm', package: name, version: '1.0.0', registry: good.origin}})
    writeFileSync(
      join(market, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({name: 'npmkt', owner: {name: 'Acme'}, plugins: [entry('redirected-pkg'), entry('far-tarball'), entry('http-tarball')]}),
    )
    expect((await run(sb, ['marketplace', 'add', market, '--scope', 'user', '--json'])).status).toBe(0)
    evil.clearRequests()
    const outcomes: string[] = []
    for (const name of ['redirected-pkg', 'far-tarball', 'http-tarball']) {
      const result = await run(sb, ['install', `${name}@npmkt`, '--agent', 'universal', '--scope', 'user', '--yes', '--json'])
      outcomes.push(`${name}: ${result.status} ${result.status === 0 ? 'installed' : jsonError(result).code}`)
    }
    expect(outcomes).toEqual(['redirected-pkg: 11 policy-refused', 'far-tarball: 11 policy-refused', 'http-tarball: 2 insecure-url'])
    expect(evil.requests).toEqual([])
  })
})

describe('a host is judged in its one canonical spelling', () => {
  it('IPv4-mapped IPv6, decimal, hex and octal IPv4, a trailing dot, upper case', async () => {
    const sb = sandbox()
    policyFile(sb, {sources: {block: ['127.0.0.1:*', 'EVIL.Example.', 'bücher.example']}})
    const p = port(good)
    const urls = [
      `https://[::ffff:127.0.0.1]:${p}/catalog.json`,
      `https://2130706433:${p}/catalog.json`,
      `https://0x7f.0.0.1:${p}/catalog.json`,
      `https://0177.0.0.1:${p}/catalog.json`,
      `https://127.0.0.1.:${p}/catalog.json`,
      'https://evil.example./catalog.json',
      'https://EVIL.EXAMPLE/catalog.json',
      'https://xn--bcher-kva.example/catalog.json',
      'https://BÜCHER.example./catalog.json',
    ]
    good.clearRequests()
    const outcomes: string[] = []
    for (const url of urls) {
      const result = await run(sb, ['marketplace', 'add', url, '--scope', 'user', '--json'])
      outcomes.push(`${url}: ${result.status} ${result.status === 0 ? 'added' : jsonError(result).code}`)
    }
    expect(outcomes).toEqual(urls.map((u) => `${u}: 11 policy-refused`))
    expect(good.requests).toEqual([])
  })
})

describe('outdated and update ask no registry the policy now blocks', () => {
  it('refuses the registry after install without a request to it', async () => {
    const sb = sandbox()
    policyFile(sb, {})
    const env = {LOADOUT_MCP_REGISTRY: `${good.origin}/reg`}
    const installed = await run(sb, ['mcp', 'install', 'io.github.acme/x', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'], env)
    expect(installed.status, installed.stdout).toBe(0)
    policyFile(sb, {sources: {block: [`127.0.0.1:${port(good)}`]}})
    good.clearRequests()
    const outdated = await run(sb, ['outdated', '--json'], env)
    expect(JSON.stringify(outdated.json())).toContain('refused by policy')
    const updated = await run(sb, ['update', 'mcp:x', '--scope', 'user', '--yes', '--json'], env)
    expect(updated.status, updated.stdout).not.toBe(0)
    expect(updated.stdout).toContain('refused by policy')
    expect(good.requestsTo('/reg')).toEqual([])
  })
})

describe('a policy glob cannot hang loadout', () => {
  it('matches *a*a*a*a*a*a*a*ab against a long host at once', async () => {
    const sb = sandbox({git: true})
    policyFile(sb, {})
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({sources: {block: ['*a*a*a*a*a*a*a*ab'], allow: [`127.0.0.1:${port(good)}`]}}))
    const started = Date.now()
    const result = await run(sb, ['marketplace', 'add', `https://${'a'.repeat(60)}.example/catalog.json`, '--scope', 'user', '--json'])
    refusedByPolicy(result)
    expect(jsonError(result).message).toContain('sources.allow')
    expect(Date.now() - started).toBeLessThan(15_000)
  }, 30_000)
})

describe('policy show', () => {
  it("prints a project policy's terminal escapes harmlessly, and keeps them whole under --json", async () => {
    const sb = sandbox({git: true})
    policyFile(sb, {})
    const osc52 = '\u001b]52;c;ZWNobyBvd25lZA==\u0007'
    const osc8 = '\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\'
    const csi = '\u001b[2J\u001b[1;1H'
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({sources: {block: [`a${osc52}`, `b${osc8}`]}, plugins: {block: [`c${csi}`]}}))
    const text = await run(sb, ['policy', 'show'])
    expect(text.status, text.stderr).toBe(0)
    expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    expect(text.stdout).toContain('\\x1b]52;c;')
    const json = await run(sb, ['policy', 'show', '--json'])
    expect(json.json().effective.sources.block).toEqual([`a${osc52}`, `b${osc8}`])
  })
})

describe('a cloned project', () => {
  it('asks no registry its loadout.json declares on a refused host, not even with --dry-run', async () => {
    const sb = sandbox({git: true})
    onlyGood(sb)
    const source = `${evil.origin}/v0.1/servers/${encodeURIComponent('io.github.acme/x')}/versions/1.0.0`
    writeFileSync(join(sb.project, 'loadout.json'), JSON.stringify({plugins: {'mcp:x@registry': {source}}}))
    evil.clearRequests()
    for (const dry of [['--dry-run'], []]) {
      const result = await run(sb, ['install', '--loose', '--agent', 'claude-code', '--yes', '--json', ...dry])
      expect(result.status, result.stdout).toBe(11)
      expect(result.stdout).toContain('refused by policy')
    }
    expect(evil.requests).toEqual([])
  })
})

describe('plain HTTP is never followed', () => {
  it('an npm packument that redirects to http://, or whose tarball is http://, sends nothing there', async () => {
    const {createServer} = await import('node:http')
    const seen: Array<{url?: string; authorization?: string}> = []
    const plain = createServer((req, res) => {
      seen.push({url: req.url, authorization: req.headers.authorization})
      res.writeHead(404)
      res.end()
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    try {
      const address = plain.address() as {port: number}
      good.redirect('/to-plain', `http://127.0.0.1:${address.port}/to-plain`)
      good.json('/plain-tarball', {
        name: 'plain-tarball',
        'dist-tags': {latest: '1.0.0'},
        versions: {'1.0.0': {name: 'plain-tarball', version: '1.0.0', dist: {tarball: `http://127.0.0.1:${address.port}/t.tgz`, integrity: 'sha512-AAAA'}}},
      })
      const sb = sandbox()
      policyFile(sb, {})
      for (const name of ['to-plain', 'plain-tarball']) {
        const result = await run(sb, ['install', `npm:${name}@1.0.0`, '--agent', 'universal', '--scope', 'user', '--yes', '--json'], {
          LOADOUT_NPM_REGISTRY: good.origin,
          LOADOUT_NPM_TOKEN: 'npm-token-never-in-the-clear',
        })
        expect(result.status, result.stdout).not.toBe(0)
        expect(result.stdout + result.stderr).not.toContain('npm-token-never-in-the-clear')
      }
      expect(seen).toEqual([])
    } finally {
      plain.close()
    }
  })
})
