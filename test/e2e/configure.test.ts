/**
 * userConfig end to end: install refuses off a terminal naming the missing keys, `configure` sets and
 * shows values (round trip), `${user_config.KEY}` reaches MCP servers and hooks, and a sensitive
 * value is in no file under HOME or the project except loadout's 0600 secrets file.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, lstatSync, statSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const SECRET = 's3cret-token-4f9a1c'
const sandbox = sandboxes()
let sb: Sandbox
let plugin: string

const filesHolding = (root: string, needle: string): string[] => {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name)
      const stat = lstatSync(full)
      if (stat.isDirectory()) walk(full)
      else if (stat.isFile() && readFileSync(full).includes(needle)) found.push(relative(root, full))
    }
  }
  walk(root)
  return found.sort()
}

beforeAll(() => {
  sb = sandbox({git: true})
  mkdirSync(join(sb.home, '.claude'))
  mkdirSync(join(sb.home, '.codex'))
  mkdirSync(join(sb.home, '.cursor'))
  plugin = join(sb.dir, 'svc')
  mkdirSync(join(plugin, '.claude-plugin'), {recursive: true})
  mkdirSync(join(plugin, 'hooks'))
  writeFileSync(
    join(plugin, '.claude-plugin', 'plugin.json'),
    JSON.stringify({
      name: 'svc',
      version: '1.0.0',
      userConfig: {
        API_URL: {type: 'string', title: 'API URL', required: true},
        TOKEN: {type: 'string', sensitive: true, required: true},
        DEPTH: {type: 'number', default: 3},
        CACHE: {type: 'directory'},
      },
    }),
  )
  writeFileSync(
    join(plugin, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        api: {
          command: 'node',
          args: ['server.js', '--url', '${user_config.API_URL}', '--depth', '${user_config.DEPTH}'],
          env: {API_TOKEN: '${user_config.TOKEN}'},
        },
      },
    }),
  )
  writeFileSync(
    join(plugin, 'hooks', 'hooks.json'),
    JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: 'notify --url ${user_config.API_URL}'}]}]}}),
  )
})

// loose parts: what is checked is the values substituted into each agent's own MCP config
const AGENTS = ['--agent', 'claude-code,codex,cursor', '--scope', 'user', '--loose']

describe('userConfig and configure', () => {
  it('an install off a terminal fails with the list of missing keys, writing nothing', async () => {
    const result = await loadout(sb, ['install', plugin, ...AGENTS, '--yes', '--json'])
    expect(result.status).toBe(8)
    const error = jsonError(result)
    expect(error.code).toBe('user-config-missing')
    expect(error.details).toEqual({missing: ['API_URL', 'TOKEN']})
    expect(error.message).toContain('API_URL, TOKEN')
    expect(() => statSync(join(sb.home, '.claude.json'))).toThrow()
  })

  it('configure sets values before the install, checking types and keys', async () => {
    const bad = await loadout(sb, ['configure', plugin, '--scope', 'user', '--set', 'DEPTH=deep', '--json'])
    expect(bad.status).toBe(2)
    expect(jsonError(bad).message).toContain('DEPTH must be a number')
    const unknown = await loadout(sb, ['configure', plugin, '--scope', 'user', '--set', 'NOPE=1', '--json'])
    expect(unknown.status).toBe(2)
    const set = await loadout(sb, ['configure', plugin, '--scope', 'user', '--set', 'API_URL=https://api.one.test', '--set', `TOKEN=${SECRET}`, '--json'])
    expect(set.status, set.stderr + set.stdout).toBe(0)
    expect(set.stdout).not.toContain(SECRET)
    expect(set.json()).toMatchObject({plugin: 'svc@direct', missing: [], reapplied: false, changed: ['API_URL', 'TOKEN']})
  })

  it('install writes plain values, gives Claude Code a reference for the secret, and skips the part Codex cannot hold', async () => {
    const result = await loadout(sb, ['install', plugin, ...AGENTS, '--yes', '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    const claude = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8'))
    const server = Object.values(claude.mcpServers)[0] as {args: string[]; env: Record<string, string>}
    expect(server.args).toEqual(['server.js', '--url', 'https://api.one.test', '--depth', '3'])
    expect(server.env.API_TOKEN).toBe('${LOADOUT_SVC__TOKEN}')
    // Cursor spells a reference its own way
    const cursor = JSON.parse(readFileSync(join(sb.home, '.cursor', 'mcp.json'), 'utf8'))
    expect((Object.values(cursor.mcpServers)[0] as {env: Record<string, string>}).env.API_TOKEN).toBe('${env:LOADOUT_SVC__TOKEN}')
    expect(readFileSync(join(sb.home, '.claude', 'settings.json'), 'utf8')).toContain('notify --url https://api.one.test')
    const codexPlan = result.json().plans.find((p: {target: string}) => p.target === 'codex')
    expect(codexPlan.skipped.map((s: {reason: string}) => s.reason).join('\n')).toContain('sensitive option TOKEN')
    const toml = join(sb.home, '.codex', 'config.toml')
    expect(existsSync(toml) ? readFileSync(toml, 'utf8') : '').not.toContain('server.js')
    // the hook needs no secret, so Codex gets it
    expect(readFileSync(join(sb.home, '.codex', 'hooks.json'), 'utf8')).toContain('notify --url https://api.one.test')
  })

  it('configure round-trips: shows the values, changes one, and the agents get the new value', async () => {
    const shown = await loadout(sb, ['configure', 'svc', '--scope', 'user', '--json'])
    expect(shown.status, shown.stderr).toBe(0)
    const options = shown.json().options as Array<{key: string; set: boolean; value?: unknown; env?: string}>
    expect(options.find((o) => o.key === 'API_URL')).toMatchObject({set: true, value: 'https://api.one.test'})
    expect(options.find((o) => o.key === 'TOKEN')).toEqual(expect.objectContaining({set: true, env: 'LOADOUT_SVC__TOKEN'}))
    expect(options.find((o) => o.key === 'TOKEN')!.value).toBeUndefined()
    expect(options.find((o) => o.key === 'DEPTH')).toMatchObject({set: true, value: 3})

    const changed = await loadout(sb, ['configure', 'svc', '--scope', 'user', '--set', 'API_URL=https://api.two.test', '--set', 'DEPTH=5', '--json'])
    expect(changed.status, changed.stderr + changed.stdout).toBe(0)
    expect(changed.json()).toMatchObject({reapplied: true, changed: ['API_URL', 'DEPTH']})
    const claude = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8'))
    expect((Object.values(claude.mcpServers)[0] as {args: string[]}).args).toEqual(['server.js', '--url', 'https://api.two.test', '--depth', '5'])
    expect((await loadout(sb, ['configure', 'svc', '--scope', 'user', '--json'])).json().options[0].value).toBe('https://api.two.test')
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    const exported = await loadout(sb, ['configure', 'svc', '--scope', 'user', '--export'])
    expect(exported.stdout.trim()).toBe(`export LOADOUT_SVC__TOKEN='${SECRET}'`)
  })

  it('the sensitive value is in no file under HOME or the project but the 0600 secrets file', () => {
    const secrets = join('.config', 'loadout', 'secrets.json')
    expect(filesHolding(sb.home, SECRET)).toEqual([secrets])
    expect(filesHolding(sb.project, SECRET)).toEqual([])
    expect(statSync(join(sb.home, secrets)).mode & 0o777).toBe(0o600)
    expect(filesHolding(sb.home, 'https://api.two.test').length).toBeGreaterThan(0)
  })
})

describe('${user_config.X} in an MCP url', () => {
  const remotePlugin = (sb: Sandbox, url: string): string => {
    const root = join(sb.dir, 'remote')
    mkdirSync(join(root, '.claude-plugin'), {recursive: true})
    writeFileSync(
      join(root, '.claude-plugin', 'plugin.json'),
      JSON.stringify({name: 'remote', version: '1.0.0', userConfig: {BASE: {type: 'string', required: true}}}),
    )
    writeFileSync(join(root, '.mcp.json'), JSON.stringify({mcpServers: {api: {type: 'http', url}}}))
    return root
  }

  it('is substituted as in command, args and env', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = remotePlugin(sb, '${user_config.BASE}/mcp')
    expect((await loadout(sb, ['configure', root, '--scope', 'user', '--set', 'BASE=https://api.one.test', '--json'])).status).toBe(0)
    const result = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    const claude = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8'))
    expect(Object.values(claude.mcpServers)).toEqual([{type: 'http', url: 'https://api.one.test/mcp'}])
  })

  it('is checked after substitution: a value that makes it plain http is refused naming the rule', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = remotePlugin(sb, '${user_config.BASE}/mcp')
    expect((await loadout(sb, ['configure', root, '--scope', 'user', '--set', 'BASE=http://api.one.test', '--json'])).status).toBe(0)
    const result = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(JSON.stringify(result.json?.() ?? result.stdout)).toContain('plain http')
    expect(existsSync(join(sb.home, '.claude.json')) ? readFileSync(join(sb.home, '.claude.json'), 'utf8') : '').not.toContain('api.one.test')
  })
})
