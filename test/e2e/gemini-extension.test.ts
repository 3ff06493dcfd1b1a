/**
 * A Gemini CLI extension installs into another agent: its skills by convention, and its MCP server
 * with `${extensionPath}` made the installed copy's real folder (the format is a folder under
 * src/core/manifest-formats/gemini plus registry/schemas/gemini-extension.schema.json).
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const write = (root: string, files: Record<string, string | object>): void => {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
}

describe('a Gemini CLI extension', () => {
  it('installs into Claude Code: the skill, and the MCP server pointing into the installed copy', async () => {
    const sb = sandbox()
    write(join(sb.project, 'ext'), {
      'gemini-extension.json': {
        name: 'ext',
        version: '1.0.0',
        description: 'A Gemini extension',
        mcpServers: {files: {command: 'node', args: ['${extensionPath}${/}server.js']}},
      },
      'server.js': 'process.stdin.resume()\n',
      'skills/lint/SKILL.md': '---\nname: lint\ndescription: Lints the code.\n---\n\nLint it.\n',
    })
    mkdirSync(join(sb.home, '.claude'), {recursive: true})
    const validated = await loadout(sb, ['plugin', 'validate', './ext', '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
    expect(validated.json<{formats: string[]}>().formats).toEqual(['gemini'])

    const installed = await loadout(sb, ['install', '--loose', './ext', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stderr + installed.stdout).toBe(0)
    expect(readFileSync(join(sb.home, '.claude/skills/lint/SKILL.md'), 'utf8')).toContain('name: lint')
    const servers = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers as Record<string, {command: string; args: string[]}>
    const [server] = Object.values(servers)
    expect(server!.command).toBe('node')
    expect(server!.args[0]).toMatch(/\/server\.js$/)
    expect(server!.args[0]).not.toContain('${')
    expect(existsSync(server!.args[0]!)).toBe(true)
  })
})
