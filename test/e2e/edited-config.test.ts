/**
 * An MCP entry loadout wrote and the user edited since: `uninstall` refuses (exit 5) telling a
 * user-scope user what applies to them (no loadout.lock there), and `uninstall --force` takes the
 * entry out, as it does a file the user changed; the rest of the agent's config stays byte for byte.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

describe('uninstall of an MCP entry the user edited', () => {
  it('refuses without --force naming what a user-scope user can do, and --force takes it out', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const claudeJson = join(sb.home, '.claude.json')
    const original = '{\n  "theme": "dark",\n  "mcpServers": {\n    "mine": {"command": "my-server"}\n  }\n}\n'
    writeFileSync(claudeJson, original)
    const root = join(sb.dir, 'svc')
    mkdirSync(join(root, '.claude-plugin'), {recursive: true})
    writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'svc', version: '1.0.0'}))
    writeFileSync(join(root, '.mcp.json'), JSON.stringify({mcpServers: {api: {type: 'http', url: 'https://api.example.com/mcp'}}}))
    const installed = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout).toBe(0)
    const written = JSON.parse(readFileSync(claudeJson, 'utf8'))
    const key = Object.keys(written.mcpServers).find((k) => k !== 'mine')!
    writeFileSync(claudeJson, readFileSync(claudeJson, 'utf8').replace('https://api.example.com/mcp', 'https://api.example.com/mcp?mine=1'))

    const refused = await loadout(sb, ['uninstall', 'svc', '--scope', 'user', '--yes', '--json'])
    expect(refused.status, refused.stdout).toBe(5)
    const error = jsonError(refused)
    expect(error.code).toBe('config-not-owned')
    expect(JSON.stringify(error)).not.toContain('loadout.lock')
    expect(error.suggestions.join('\n')).toContain('--force')

    const forced = await loadout(sb, ['uninstall', 'svc', '--scope', 'user', '--force', '--yes', '--json'])
    expect(forced.status, forced.stdout + forced.stderr).toBe(0)
    expect(JSON.parse(readFileSync(claudeJson, 'utf8')).mcpServers[key]).toBeUndefined()
    expect(readFileSync(claudeJson, 'utf8')).toBe(original)
    expect((await loadout(sb, ['list', '--json'])).stdout).not.toContain('svc@direct')
  })
})
