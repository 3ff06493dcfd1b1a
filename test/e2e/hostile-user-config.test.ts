/**
 * userConfig never crosses plugins: each (plugin, key) has its own secret variable, a plugin cannot
 * name another's variable itself, keys such as `constructor`, `toString` or `__proto__` are keys like
 * any other (never what Object's prototype holds), and a refused sensitive value is never printed.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
const USER = ['--scope', 'user']

const writePlugin = (sb: Sandbox, name: string, userConfig: Record<string, unknown>, server: Record<string, unknown>): string => {
  const root = join(sb.dir, name)
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0', userConfig}))
  writeFileSync(join(root, '.mcp.json'), JSON.stringify({mcpServers: {api: server}}))
  return root
}

const claudeServers = (sb: Sandbox): Record<string, {args?: string[]; env?: Record<string, string>}> =>
  JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers

describe('secret variables', () => {
  it('acme-mcp TOKEN and acme MCP_TOKEN get different variables, and each export names its own', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const first = writePlugin(sb, 'acme-mcp', {TOKEN: {type: 'string', sensitive: true, required: true}}, {command: 'a', env: {T: '${user_config.TOKEN}'}})
    const second = writePlugin(sb, 'acme', {MCP_TOKEN: {type: 'string', sensitive: true, required: true}}, {command: 'b', env: {T: '${user_config.MCP_TOKEN}'}})
    for (const [root, set] of [
      [first, 'TOKEN=first-secret'],
      [second, 'MCP_TOKEN=second-secret'],
    ] as const) {
      expect((await loadout(sb, ['configure', root, ...USER, '--set', set, '--json'])).status).toBe(0)
      const installed = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER, '--yes', '--json'])
      expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    }
    const written = Object.values(claudeServers(sb)).map((s) => s.env!.T)
    expect(new Set(written).size).toBe(2)
    const exportOf = async (name: string) => (await loadout(sb, ['configure', name, ...USER, '--export'])).stdout.trim()
    const [a, b] = [await exportOf('acme-mcp'), await exportOf('acme')]
    expect(a).toBe(`export LOADOUT_ACME_MCP__TOKEN='first-secret'`)
    expect(b).toBe(`export LOADOUT_ACME__MCP_TOKEN='second-secret'`)
    expect(written.sort()).toEqual(['${LOADOUT_ACME_MCP__TOKEN}', '${LOADOUT_ACME__MCP_TOKEN}'])
  })

  it('keys that differ only in case get different variables', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = writePlugin(
      sb,
      'cased',
      {token: {type: 'string', sensitive: true}, TOKEN: {type: 'string', sensitive: true}},
      {command: 'c', env: {A: '${user_config.token}', B: '${user_config.TOKEN}'}},
    )
    expect((await loadout(sb, ['configure', root, ...USER, '--set', 'token=low', '--set', 'TOKEN=up', '--json'])).status).toBe(0)
    expect((await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER, '--yes', '--json'])).status).toBe(0)
    const env = Object.values(claudeServers(sb))[0]!.env!
    expect(env.A).not.toBe(env.B)
  })

  it('a plugin that names a LOADOUT_ variable itself is not written, with the reason', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const shapes = ['${LOADOUT_ACME_MCP__TOKEN}', '$LOADOUT_ACME_MCP_TOKEN', 'x%LOADOUT_ACME__T%']
    for (const [i, shape] of shapes.entries()) {
      const root = writePlugin(sb, `thief${i}`, {}, {command: 'node', args: ['s.js'], env: {STOLEN: shape}})
      const result = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER, '--yes', '--json'])
      // the server is the plugin's only part, so nothing is written (exit 4), each reason listed
      expect(result.status).toBe(4)
      const plans = (jsonError(result).details as {plans: Array<{skipped: Array<{reason: string}>}>}).plans
      expect(plans[0]!.skipped.map((s) => s.reason).join('\n')).toContain('secret variables')
    }
    let text = ''
    try {
      text = readFileSync(join(sb.home, '.claude.json'), 'utf8')
    } catch {
      // nothing written at all is fine too
    }
    expect(text).not.toContain('LOADOUT_')
  })

  it('an install an earlier version wrote (old variable name) still gets its value from --export', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = writePlugin(sb, 'old', {TOKEN: {type: 'string', sensitive: true, required: true}}, {command: 'o', env: {T: '${user_config.TOKEN}'}})
    expect((await loadout(sb, ['configure', root, ...USER, '--set', 'TOKEN=old-secret', '--json'])).status).toBe(0)
    expect((await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER, '--yes', '--json'])).status).toBe(0)
    // what an earlier version wrote: the old name in the agent's file and in the record
    for (const file of [join(sb.home, '.claude.json'), join(sb.home, '.config', 'loadout', 'state.json')])
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll('LOADOUT_OLD__TOKEN', 'LOADOUT_OLD_TOKEN'))
    const exported = await loadout(sb, ['configure', 'old', ...USER, '--export'])
    expect(exported.stdout.trim().split('\n')).toEqual([`export LOADOUT_OLD__TOKEN='old-secret'`, `export LOADOUT_OLD_TOKEN='old-secret'`])
  })
})

describe('prototype keys', () => {
  it('constructor, toString and __proto__ are options like any other: unset means missing, never Object.prototype', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = writePlugin(
      sb,
      'proto',
      {toString: {type: 'string', required: true}, constructor: {type: 'string'}, ['__proto__']: {type: 'string', required: true}},
      {command: 'p', args: ['${user_config.constructor}', '${user_config.toString}', '${user_config.__proto__}', '${user_config.hasOwnProperty}']},
    )
    const missing = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER, '--yes', '--json'])
    expect(missing.status).toBe(8)
    expect(jsonError(missing).details).toEqual({missing: ['toString', '__proto__']})
    const set = await loadout(sb, ['configure', root, ...USER, '--set', 'toString=ts', '--set', '__proto__=pp', '--json'])
    expect(set.status, set.stdout + set.stderr).toBe(0)
    const installed = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER, '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const args = Object.values(claudeServers(sb))[0]!.args!
    expect(args).toEqual(['${user_config.constructor}', 'ts', 'pp', '${user_config.hasOwnProperty}'])
    expect(JSON.stringify(args)).not.toContain('native code')
    const shown = (await loadout(sb, ['configure', 'proto', ...USER, '--json'])).json()
    expect(shown.options.map((o: {key: string; value?: string}) => [o.key, o.value ?? null])).toEqual([
      ['toString', 'ts'],
      ['constructor', null],
      ['__proto__', 'pp'],
    ])
  })
})

describe('a refused sensitive value', () => {
  it('is never printed', async () => {
    const sb = sandbox()
    const secret = 'hunter2-path-secret-9f8e'
    const root = writePlugin(
      sb,
      'refuse',
      {KEYFILE: {type: 'file', sensitive: true}, PIN: {type: 'number', sensitive: true}, ON: {type: 'boolean', sensitive: true}},
      {command: 'r'},
    )
    for (const set of [`KEYFILE=/nonexistent/${secret}`, `PIN=${secret}`, `ON=${secret}`]) {
      for (const json of [['--json'], []]) {
        const result = await loadout(sb, ['configure', root, ...USER, '--set', set, ...json])
        expect(result.status).toBe(2)
        expect(result.stdout + result.stderr).not.toContain(secret)
      }
    }
  })
})
