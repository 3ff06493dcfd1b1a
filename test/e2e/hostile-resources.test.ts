/**
 * Resource bounds: a plugin may define at most MAX_MCP_SERVERS servers (more is refused naming the
 * rule, nothing written), and installing the most it may hold takes work linear in their number: each
 * agent config file is written once per install, not once per server (2,000 servers took 20 s into one
 * agent, 4,000 took 56 s, each server rewriting and syncing the whole file).
 */
import {existsSync, mkdirSync, readFileSync, watch, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {MAX_MCP_SERVERS} from '../../src/core/kernel/plugin/components.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const FS_TRACE = pathToFileURL(join(import.meta.dirname, '..', 'support', 'fs-trace.mjs')).href
const AGENT_CONFIGS = /\/(\.cursor\/mcp\.json|\.codex\/config\.toml|\.gemini\/settings\.json)$/

const sandbox = sandboxes()

const manyServers = (sb: Sandbox, name: string, count: number): string => {
  const root = join(sb.dir, name)
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0'}))
  const servers = Object.fromEntries(Array.from({length: count}, (_, i) => [`srv${i}`, {command: 'node', args: [`s${i}.js`]}]))
  writeFileSync(join(root, '.mcp.json'), JSON.stringify({mcpServers: servers}))
  return root
}

describe('MCP servers per plugin', () => {
  it(`refuses more than ${MAX_MCP_SERVERS}, naming the rule, writing nothing`, async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = manyServers(sb, 'toomany', MAX_MCP_SERVERS + 1)
    const result = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(4)
    const error = jsonError(result)
    expect(JSON.stringify(error)).toContain('too-many-mcp-servers')
    expect(JSON.stringify(error)).toContain(`the limit is ${MAX_MCP_SERVERS}`)
    expect(existsSync(join(sb.home, '.claude.json'))).toBe(false)
  })

  it(`installs ${MAX_MCP_SERVERS} into three agents in seconds, writing each config file once`, async () => {
    const sb = sandbox()
    for (const dir of ['.claude', '.cursor', '.codex']) mkdirSync(join(sb.home, dir))
    const root = manyServers(sb, 'many', MAX_MCP_SERVERS)
    // every staged write of an agent's config file (write to a temporary sibling, then rename)
    const staged = new Set<string>()
    const watchers = [sb.home, join(sb.home, '.cursor'), join(sb.home, '.codex')].map((dir) =>
      watch(dir, (_event, name) => {
        if (name && /^\.?(\.claude\.json|mcp\.json|config\.toml)\..*tmp/.test(name)) staged.add(`${dir}/${name}`)
      }),
    )
    const started = Date.now()
    const result = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code,cursor,codex', '--scope', 'user', '--yes', '--json'])
    const seconds = (Date.now() - started) / 1000
    for (const w of watchers) w.close()
    expect(result.status, result.stdout.slice(0, 2000)).toBe(0)
    expect(Object.keys(JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers)).toHaveLength(MAX_MCP_SERVERS)
    expect(Object.keys(JSON.parse(readFileSync(join(sb.home, '.cursor', 'mcp.json'), 'utf8')).mcpServers)).toHaveLength(MAX_MCP_SERVERS)
    expect(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8').match(/^\[mcp_servers\./gm)).toHaveLength(MAX_MCP_SERVERS)
    // once per file (three files), where the old code wrote each file once per server
    expect(staged.size, [...staged].join('\n')).toBeLessThanOrEqual(3)
    // generous for a loaded machine; the quadratic code took far longer at this size on three agents
    expect(seconds).toBeLessThan(45)
    // and it all comes off again
    const removed = await loadout(sb, ['uninstall', 'many', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stdout.slice(0, 2000)).toBe(0)
    const claude = join(sb.home, '.claude.json')
    expect(existsSync(claude) ? (JSON.parse(readFileSync(claude, 'utf8')).mcpServers ?? {}) : {}).toEqual({})
  })

  it('install and uninstall read and write each agent config a fixed number of times, whatever the number of servers', {timeout: 180_000}, async () => {
    // reads and writes of each agent's config file by one command, and the servers it ends up holding
    const traced = async (sb: Sandbox, args: string[]) => {
      const trace = join(sb.dir, `trace-${args[0]}.json`)
      const result = await loadout(sb, args, {
        env: {NODE_OPTIONS: `--import ${FS_TRACE}`, LOADOUT_TEST_FS_TRACE: trace, LOADOUT_TEST_FS_TRACE_MATCH: AGENT_CONFIGS.source},
      })
      expect(result.status, result.stdout.slice(0, 2000) + result.stderr.slice(0, 2000)).toBe(0)
      const counts = JSON.parse(readFileSync(trace, 'utf8')) as Record<string, {reads: number; writes: number}>
      return Object.fromEntries(Object.entries(counts).map(([file, n]) => [file.slice(sb.home.length), n]))
    }
    const run = async (count: number) => {
      const sb = sandbox()
      for (const dir of ['.cursor', '.codex', '.gemini']) mkdirSync(join(sb.home, dir))
      writeFileSync(join(sb.home, '.gemini', 'settings.json'), '{\n  "theme": "dark"\n}\n')
      const root = manyServers(sb, 'many', count)
      const installed = await traced(sb, ['install', root, '--agent', 'cursor,codex,gemini-cli', '--scope', 'user', '--yes', '--json'])
      expect(Object.keys(JSON.parse(readFileSync(join(sb.home, '.cursor', 'mcp.json'), 'utf8')).mcpServers)).toHaveLength(count)
      expect(Object.keys(JSON.parse(readFileSync(join(sb.home, '.gemini', 'settings.json'), 'utf8')).mcpServers)).toHaveLength(count)
      expect(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8').match(/^\[mcp_servers\./gm)).toHaveLength(count)
      const removed = await traced(sb, ['uninstall', 'many', '--scope', 'user', '--yes', '--json'])
      expect(readFileSync(join(sb.home, '.gemini', 'settings.json'), 'utf8')).toBe('{\n  "theme": "dark"\n}\n')
      expect(existsSync(join(sb.home, '.cursor', 'mcp.json'))).toBe(false)
      return {installed, removed}
    }
    const few = await run(16)
    const many = await run(MAX_MCP_SERVERS)
    // one write of each file by install and one by uninstall (uninstall wrote once per server), and
    // as many reads for 256 servers as for 16 (uninstall read each file twice per server)
    for (const file of ['/.cursor/mcp.json', '/.codex/config.toml', '/.gemini/settings.json']) {
      expect(many.installed[file]?.writes, file).toBe(1)
      expect(many.removed[file]?.writes ?? 0, file).toBeLessThanOrEqual(1)
    }
    expect(many).toEqual(few)
  })
})
