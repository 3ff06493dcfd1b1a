/**
 * Text read from disk reaches the terminal with its control characters escaped, whatever command
 * shows it: a description holding OSC 52 (set the clipboard), OSC 8 (a hidden link), CSI (clear the
 * screen, move the cursor), an 8-bit CSI or a bidi override prints as visible escapes. And a flag
 * given empty (`--agent=`) is a usage error naming the flag, never "every agent" or "nothing to do".
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {jsonError, loadout, sandboxes, skillMd, skillsFolder, writeSkill} from './helpers.js'

const sandbox = sandboxes()

const HOSTILE = [
  'osc52 \u001B]52;c;ZXZpbA==\u0007',
  'osc8 \u001B]8;;https://evil.example/\u001B\\click\u001B]8;;\u001B\\',
  'csi \u001B[2J\u001B[1A\u001B[8m',
  'c1 \u009B31m',
  'bidi \u202Eevil',
  'cr \rover',
].join(' | ')

// anything a terminal acts on: C0 but line feed and tab, DEL, C1, bidi controls
const RAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/

const expectEscaped = (output: string, shown = true): void => {
  expect(output).not.toMatch(RAW)
  // the text is still there for a person to see, as escapes (mcp list shows a "?" per control character)
  if (shown) expect(output).toContain('\\x1b]52;c;ZXZpbA==\\x07')
}

describe('untrusted text on the terminal', () => {
  it('skills info, agents info and mcp list print escapes, never the sequences', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude', 'agents'), {recursive: true})
    writeSkill(skillsFolder(sb, 'claude-code', 'user'), 'shady', skillMd({name: 'shady', description: HOSTILE}))
    writeFileSync(join(sb.home, '.claude', 'agents', 'shady.md'), skillMd({name: 'shady', description: HOSTILE}, 'You review.\n'))
    writeFileSync(join(sb.home, '.claude.json'), JSON.stringify({mcpServers: {shady: {command: 'node', args: [HOSTILE]}}}))
    for (const args of [
      ['skills', 'info', 'shady', '--agent', 'claude-code'],
      ['agents', 'info', 'shady', '--agent', 'claude-code'],
      ['mcp', 'list', '--agent', 'claude-code', '--scope', 'user'],
    ]) {
      const result = await loadout(sb, args)
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0)
      expectEscaped(result.stdout + result.stderr, args[0] !== 'mcp')
    }
  })

  it('policy show prints a project policy holding the sequences as escapes', async () => {
    const sb = sandbox({git: true})
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({plugins: {block: [HOSTILE]}, marketplaces: {block: [HOSTILE]}}))
    const result = await loadout(sb, ['policy', 'show'])
    expect(result.status, result.stderr).toBe(0)
    expectEscaped(result.stdout + result.stderr)
  })

  it('--json keeps the text whole', async () => {
    const sb = sandbox()
    writeSkill(skillsFolder(sb, 'claude-code', 'user'), 'shady', skillMd({name: 'shady', description: HOSTILE}))
    const result = await loadout(sb, ['skills', 'info', 'shady', '--agent', 'claude-code', '--json'])
    expect(result.json().description).toBe(HOSTILE)
  })
})

describe('an empty --agent', () => {
  it('is a usage error naming the flag, on the fast path and through oclif, for every command that takes it', {timeout: 180_000}, async () => {
    const sb = sandbox()
    const plugin = writeSkill(sb.dir, 'p')
    mkdirSync(join(sb.home, '.claude'))
    expect((await loadout(sb, ['install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])).status).toBe(0)
    const cases: Array<[string[], NodeJS.ProcessEnv]> = [
      [['install', plugin, '--agent=', '--scope', 'user', '--yes'], {}],
      [['install', plugin, '--agent=', '--scope', 'user', '--yes'], {LOADOUT_NO_FAST: '1'}],
      [['install', plugin, '--agent', ' , ', '--scope', 'user', '--yes'], {}],
      [['uninstall', 'p', '--agent=', '--scope', 'user', '--yes'], {}],
      [['disable', 'p', '--agent=', '--scope', 'user'], {}],
      [['skills', 'list', '--agent='], {}],
      [['targets', '--agent='], {}],
    ]
    for (const [args, env] of cases) {
      const result = await loadout(sb, [...args, '--json'], {env})
      expect(result.status, `${args.join(' ')}: ${result.stdout}`).toBe(2)
      expect(jsonError(result)).toMatchObject({code: 'empty-agent-flag', message: expect.stringContaining('--agent')})
    }
    const text = await loadout(sb, cases[0]![0])
    expect(text.status).toBe(2)
    expect(text.stderr).toContain('--agent names no agent')
    expect(text.stdout + text.stderr).not.toContain('already installed')
    // nothing was removed or disabled
    const listed = (await loadout(sb, ['list', '--scope', 'user', '--json'])).json()
    expect(JSON.stringify(listed)).toContain('"enabled": true'.replace(' ', ''))
  })
})
