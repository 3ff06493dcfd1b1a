/**
 * What was typed is what is recorded: everything after `--` in `loadout mcp add` is the server's
 * argv, word for word and in order, on the fast path's entry (bin/run.js) and with LOADOUT_NO_FAST=1
 * (oclif alone). Words there that look like loadout's own flags (`--env`, `-e`, `--agent`, `--yes`,
 * `--json`, `--`) or repeat (`--label a --label b`) must reach every agent's written config unchanged.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {parse as parseToml} from 'smol-toml'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

/** The command each agent's file holds for `name`, as one argv. */
const writtenArgv = (sb: Sandbox, name: string): Record<string, string[]> => {
  const json = (file: string) => JSON.parse(readFileSync(join(sb.home, file), 'utf8'))
  const claude = json('.claude.json').mcpServers[name]
  const cursor = json('.cursor/mcp.json').mcpServers[name]
  const gemini = json('.gemini/settings.json').mcpServers[name]
  const copilot = json('.copilot/mcp-config.json').mcpServers[name]
  const codex = (parseToml(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8')) as any).mcp_servers[name]
  return {
    'claude-code': [claude.command, ...(claude.args ?? [])],
    codex: [codex.command, ...(codex.args ?? [])],
    cursor: [cursor.command, ...(cursor.args ?? [])],
    'gemini-cli': [gemini.command, ...(gemini.args ?? [])],
    'github-copilot': [copilot.command, ...(copilot.args ?? [])],
  }
}

const AGENTS = ['claude-code', 'codex', 'cursor', 'gemini-cli', 'github-copilot']

const SERVER_ARGVS: string[][] = [
  // the README's own example
  ['docker', 'run', '-i', '--rm', '-e', 'GITHUB_TOKEN', 'ghcr.io/github/github-mcp-server:v0.13.0'],
  // repeated words stay where they were
  ['node', 's.mjs', '--label', 'a', '--label', 'b', '--label', 'a'],
  // loadout's own flags, long, short and with =
  [
    'srv',
    '--env',
    'X=1',
    '--agent',
    'codex',
    '-a',
    'cursor',
    '--scope=project',
    '-y',
    '--yes',
    '--json',
    '--dry-run',
    '-f',
    '--header',
    'H=v',
    '--url',
    'https://x.example/',
  ],
  // a second -- and a word that starts like a flag but is a value
  ['srv', '--', '--env', '-', '--', 'last'],
]

describe('mcp add: everything after -- is the server argv, verbatim', () => {
  for (const fast of [true, false]) {
    it(`writes each argv unchanged into five agents (${fast ? 'default entry' : 'LOADOUT_NO_FAST=1'})`, async () => {
      const sb = sandbox()
      const extra = fast ? {} : {LOADOUT_NO_FAST: '1'}
      for (const [i, argv] of SERVER_ARGVS.entries()) {
        const name = `srv${i}`
        const result = await loadout(
          sb,
          ['mcp', 'add', name, '--env', 'GITHUB_TOKEN', '--agent', AGENTS.join(','), '--scope', 'user', '--yes', '--json', '--', ...argv],
          {env: extra},
        )
        expect(result.status, result.stderr + result.stdout).toBe(0)
        const written = writtenArgv(sb, name)
        for (const agent of AGENTS) expect([agent, written[agent]]).toEqual([agent, argv])
        // loadout's own flags were those before --, and only those
        expect(result.json().requiredEnv).toEqual(['GITHUB_TOKEN'])
        expect(result.json().plans.map((p: {target: string}) => p.target)).toEqual(AGENTS)
      }
      const listed = await loadout(sb, ['mcp', 'list', '--agent', 'claude-code', '--scope', 'user', '--json'], {env: extra})
      const row = listed.json().servers.find((s: {name: string}) => s.name === 'srv1')
      expect(row.runs).toBe('node s.mjs --label a --label b --label a')
    })
  }

  it('still refuses a command given without --, and a command after -- with no name before it', async () => {
    const sb = sandbox()
    for (const fast of [true, false]) {
      const env = fast ? {} : {LOADOUT_NO_FAST: '1'}
      const stray = await loadout(sb, ['mcp', 'add', 'x', '--agent', 'cursor', '--scope', 'user', '--yes', '--json', 'npx', '-y', 'pkg'], {env})
      expect(stray.status).toBe(2)
      expect(jsonError(stray).code).toBe('command-needs-separator')
      const nameless = await loadout(sb, ['mcp', 'add', '--agent', 'cursor', '--scope', 'user', '--yes', '--json', '--', 'x', 'srv'], {env})
      expect(nameless.status).toBe(2)
      expect(jsonError(nameless).code).toBe('usage')
    }
  })
})
