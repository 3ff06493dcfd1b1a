/**
 * npm specs are checked before pacote sees them, and a credential in an MCP server's URL is never
 * written or printed. pacote reads `name@<anything with : / # @ or a leading .>` as a URL, a file, a
 * git repository or an alias and fetches it from anywhere; loadout accepts only an exact version, a
 * semver range or a dist-tag, from the command line and from a catalog.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {filesHolding, jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
let server: TestHttpsServer

beforeAll(async () => {
  server = await startHttpsServer()
})
afterAll(async () => {
  await server?.stop()
})

const VERSIONS = (origin: string) => [
  `${origin}/x.tgz`,
  'file:/etc',
  'file:../other',
  '../other',
  './x',
  `git+${origin}/x.git`,
  'github:evil/x',
  'evil/x',
  'x#main',
]

describe('npm specs', () => {
  it('refuses a URL, a path, git or another package as the version, on the command line', async () => {
    const sb = sandbox()
    server.clearRequests()
    const outcomes: string[] = []
    for (const version of VERSIONS(server.origin)) {
      const result = await loadout(sb, ['install', `npm:tools@${version}`, '--agent', 'universal', '--scope', 'user', '--yes', '--json'], {
        env: {...server.trustEnv(), LOADOUT_NPM_REGISTRY: server.origin},
      })
      outcomes.push(`${version}: ${result.status} ${result.status === 0 ? 'installed' : jsonError(result).code}`)
    }
    expect(outcomes).toEqual(VERSIONS(server.origin).map((v) => `${v}: 2 bad-npm-source`))
    expect(server.requests).toEqual([])
  })

  it('skips a catalog entry with such a version, with the rule', async () => {
    const sb = sandbox()
    const market = join(sb.dir, 'market')
    mkdirSync(join(market, '.claude-plugin'), {recursive: true})
    const entries = VERSIONS(server.origin).map((version, i) => ({name: `p${i}`, source: {source: 'npm', package: 'tools', version, registry: server.origin}}))
    const fine = {name: 'fine', source: {source: 'npm', package: 'tools', version: '^1.2.0', registry: server.origin}}
    writeFileSync(join(market, '.claude-plugin', 'marketplace.json'), JSON.stringify({name: 'npmkt', owner: {name: 'Acme'}, plugins: [...entries, fine]}))
    const added = await loadout(sb, ['marketplace', 'add', market, '--scope', 'user', '--json'])
    expect(added.status, added.stdout).toBe(0)
    const info = (await loadout(sb, ['marketplace', 'info', 'npmkt', '--json'])).json()
    expect(info.plugins.map((p: {name: string}) => p.name)).toEqual(['fine'])
  })
})

describe('a credential in an MCP server URL', () => {
  it('is refused, never written and never printed', async () => {
    const sb = sandbox()
    const key = 'sk-live-query-key-0123456789'
    const outcomes: string[] = []
    for (const url of [`https://mcp.example/mcp?api_key=${key}`, `https://mcp.example/mcp?x=1&access_token=${key}`, `https://mcp.example/mcp?AUTH=${key}`]) {
      const result = await loadout(sb, ['mcp', 'add', 'docs', '--url', url, '--agent', 'claude-code,cursor,codex', '--scope', 'user', '--yes', '--json'])
      outcomes.push(`${result.status} ${result.status === 0 ? 'added' : jsonError(result).code}`)
      expect(result.stdout + result.stderr).not.toContain(key)
      const text = await loadout(sb, ['mcp', 'add', 'docs', '--url', url, '--agent', 'claude-code', '--scope', 'user', '--yes'])
      expect(text.stdout + text.stderr).not.toContain(key)
    }
    expect(outcomes).toEqual(['2 secret-in-url', '2 secret-in-url', '2 secret-in-url'])
    expect(filesHolding(sb.home, key)).toEqual([])
    // a reference to a variable, or a parameter that is no credential, is fine
    const fine = await loadout(sb, [
      'mcp',
      'add',
      'docs',
      '--url',
      'https://mcp.example/mcp?page=2&api_key=${DOCS_KEY}',
      '--agent',
      'claude-code',
      '--scope',
      'user',
      '--yes',
      '--json',
    ])
    expect(fine.status, fine.stdout).toBe(0)
  })
})
