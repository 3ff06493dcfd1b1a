/**
 * An MCP server whose name looks like a key already in the agent's MCP config file (a Cyrillic
 * letter, a digit for a letter) is refused, both names named, and no file changes.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, text)
}

/** A plugin "demo" with one stdio server "db": loadout's key for it is "demo-db". */
const plugin = (sb: Sandbox): string => {
  const root = join(sb.dir, 'demo')
  write(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'demo', version: '1.0.0'}))
  write(join(root, '.mcp.json'), JSON.stringify({mcpServers: {db: {command: 'node', args: ['server.js']}}}))
  write(join(root, 'server.js'), '// server\n')
  return root
}

/** Installs demo for `agent` beside a config holding `before`; expects the refusal naming both keys and the file untouched. */
const refused = async (agent: string, config: string, before: string, other: string) => {
  const sb = sandbox()
  const file = join(sb.home, config)
  write(file, before)
  const result = await loadout(sb, ['install', plugin(sb), '--agent', agent, '--scope', 'user', '--loose', '--yes', '--json'])
  expect(result.status).toBe(4)
  const error = jsonError(result)
  expect(error.code).toBe('mcp-name-confusable')
  expect(error.message).toContain('"demo-db"')
  expect(error.message).toContain(`"${other}"`)
  expect(error.message).toContain(file)
  expect(readFileSync(file, 'utf8')).toBe(before)
}

describe('a confusable MCP server name', () => {
  it('is refused for Claude Code when ~/.claude.json has a look-alike key, naming both', async () => {
    await refused('claude-code', '.claude.json', `${JSON.stringify({mcpServers: {'dem0-db': {command: 'mine'}}}, null, 2)}\n`, 'dem0-db')
  })

  it('is refused for Codex when config.toml has a look-alike table, naming both', async () => {
    await refused('codex', '.codex/config.toml', '[mcp_servers."d\u0435mo-db"]\ncommand = "mine"\n', 'd\u0435mo-db')
  })

  it('a different name installs', async () => {
    const sb = sandbox()
    write(join(sb.home, '.claude.json'), JSON.stringify({mcpServers: {'other-db': {command: 'mine'}}}))
    const result = await loadout(sb, ['install', '--loose', plugin(sb), '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(Object.keys(JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers)).toEqual(['other-db', 'demo-db'])
  })
})
