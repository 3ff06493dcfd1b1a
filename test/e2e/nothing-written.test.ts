/**
 * A plugin that writes nothing into a chosen agent is not recorded as installed there. When no chosen
 * agent gets anything the install fails (exit 4, as npm fails on a package for another platform) and
 * records nothing; when some do, only those are recorded and the run says which agent got nothing.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
const state = (sb: Sandbox): Array<{plugin: string; target: string}> => {
  const file = join(sb.home, '.config', 'loadout', 'state.json')
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).installs : []
}

/** A plugin with one MCP server and nothing else: the cross-agent skills folder has no place for it. */
const serverOnly = (sb: Sandbox): string => {
  const root = join(sb.dir, 'server-only')
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'server-only', version: '1.0.0'}))
  writeFileSync(join(root, '.mcp.json'), JSON.stringify({mcpServers: {api: {type: 'http', url: 'https://api.example.com/mcp'}}}))
  return root
}

describe('a plugin with nothing written for an agent', () => {
  it('fails (exit 4) naming the agent and the reason when no chosen agent gets anything, and records nothing', async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['install', serverOnly(sb), '--agent', 'universal', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(4)
    const error = jsonError(result)
    expect(error.code).toBe('nothing-written')
    expect(error.message).toMatch(/server-only@direct was not installed: nothing written for .*universal/i)
    expect(state(sb)).toEqual([])
    const listed = await loadout(sb, ['list', '--json'])
    expect(JSON.stringify(listed.json())).not.toContain('server-only')
    const human = await loadout(sb, ['install', serverOnly(sb), '--agent', 'universal', '--scope', 'user', '--yes'])
    expect(human.stderr).toContain('was not installed')
  })

  it('records only the agents that got something, and says which got nothing', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const result = await loadout(sb, ['install', '--loose', serverOnly(sb), '--agent', 'claude-code,universal', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(0)
    const universal = result.json().plans.find((p: {target: string}) => p.target === 'universal')
    expect(universal.skipped.at(-1).reason).toMatch(/^nothing written for /)
    expect(state(sb).map((r) => [r.plugin, r.target])).toEqual([['server-only@direct', 'claude-code']])
    const human = await loadout(sb, ['uninstall', 'server-only', '--scope', 'user', '--yes', '--json'])
    expect(human.status, human.stdout).toBe(0)
    expect(state(sb)).toEqual([])
  })
})
