/**
 * The cases issue 24 left to decide, as decided (README, "Security: what is refused and why"): look-alike
 * MCP names with I and l, credentials recognised by the shape of their value, line breaks in header
 * values, a policy named by LOADOUT_POLICY that is a FIFO, `enable` under a newer policy, a cloned
 * loadout.json declaring a folder outside the project, variation selectors that smuggle bytes, and
 * file names with bidi controls.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {findHiddenText} from '../../src/core/kernel/text/hidden-text.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
const USER = ['--scope', 'user', '--yes', '--json']
const noPolicy = (sb: Sandbox) => ({env: {LOADOUT_POLICY: join(sb.dir, 'no-policy.json')}})

const writeTree = (root: string, files: Record<string, string>): string => {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), text)
  }
  return root
}

describe('MCP names', () => {
  it('Ideas and ldeas look alike: the second is refused', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    expect((await loadout(sb, ['mcp', 'add', 'Ideas', '--agent', 'claude-code', ...USER, '--', 'node', 'a.js'])).status).toBe(0)
    const second = await loadout(sb, ['mcp', 'add', 'ldeas', '--agent', 'claude-code', ...USER, '--', 'node', 'b.js'])
    expect(second.status, second.stdout).not.toBe(0)
    expect(jsonError(second).code).toBe('mcp-name-confusable')
  })
})

describe('credentials by the shape of their value', () => {
  const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`
  const dsn = 'postgres://app:hunter2pw@db.internal:5432/app'
  it('are refused in --env, --header and the command, whatever they are called, and never printed', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const attempts = [
      ['mcp', 'add', 'a', '--env', `GH=${token}`, '--agent', 'claude-code', ...USER, '--', 'node', 's.js'],
      ['mcp', 'add', 'b', '--env', `DATABASE_URL=${dsn}`, '--agent', 'claude-code', ...USER, '--', 'node', 's.js'],
      ['mcp', 'add', 'c', '--agent', 'claude-code', ...USER, '--', 'node', 's.js', '--dsn', dsn],
      ['mcp', 'add', 'd', '--url', 'https://mcp.example/mcp', '--header', `X-Thing=${token}`, '--agent', 'claude-code', ...USER],
    ]
    for (const args of attempts) {
      const result = await loadout(sb, args)
      expect(result.status, args.join(' ')).toBe(2)
      expect(jsonError(result).code).toBe('secret-value')
      expect(result.stdout + result.stderr).not.toContain('hunter2pw')
      expect(result.stdout + result.stderr).not.toContain(token)
    }
    expect(existsSync(join(sb.home, '.claude.json'))).toBe(false)
  })
})

describe('header values', () => {
  it('with a line break are refused', async () => {
    const sb = sandbox()
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\rb']) {
      const result = await loadout(sb, [
        'mcp',
        'add',
        'h',
        '--url',
        'https://mcp.example/mcp',
        '--header',
        `X-Trace=${value}`,
        '--agent',
        'claude-code',
        ...USER,
      ])
      expect(result.status).toBe(2)
      expect(jsonError(result)).toMatchObject({code: 'bad-header', message: expect.stringContaining('line break')})
    }
  })
})

describe('LOADOUT_POLICY', () => {
  it('naming a FIFO fails closed at once instead of hanging', async () => {
    const sb = sandbox()
    const fifo = join(sb.dir, 'policy.fifo')
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0)
    const started = Date.now()
    const result = await loadout(sb, ['policy', 'show', '--json'], {env: {LOADOUT_POLICY: fifo}})
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(result.status).toBe(11)
    expect(jsonError(result)).toMatchObject({code: 'policy-invalid', message: expect.stringContaining('is not a file')})
  })
})

describe('enable under a newer policy', () => {
  it('does not put back hooks the policy now forbids', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = writeTree(join(sb.dir, 'hooky'), {
      '.claude-plugin/plugin.json': JSON.stringify({name: 'hooky', version: '1.0.0'}),
      'hooks/hooks.json': JSON.stringify({hooks: {Stop: [{hooks: [{type: 'command', command: 'echo stop-hook-ran'}]}]}}),
    })
    expect((await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER], noPolicy(sb))).status).toBe(0)
    expect((await loadout(sb, ['disable', 'hooky', '--scope', 'user', '--json'], noPolicy(sb))).status).toBe(0)
    const settings = join(sb.home, '.claude', 'settings.json')
    expect(existsSync(settings) ? readFileSync(settings, 'utf8') : '').not.toContain('stop-hook-ran')
    writeFileSync(join(sb.home, '.config', 'loadout', 'policy.json'), JSON.stringify({hooks: false}))
    const enabled = await loadout(sb, ['enable', 'hooky', '--scope', 'user', '--yes', '--json'], noPolicy(sb))
    expect(enabled.status, enabled.stdout).toBe(11)
    expect(existsSync(settings) ? readFileSync(settings, 'utf8') : '').not.toContain('stop-hook-ran')
  })
})

describe('a cloned loadout.json', () => {
  it('declaring a marketplace folder outside the project is refused, and nothing of it is read', async () => {
    const sb = sandbox({git: true})
    const outside = writeTree(join(sb.dir, 'private-market'), {
      '.claude-plugin/marketplace.json': JSON.stringify({name: 'private', owner: {name: 'me'}, plugins: []}),
    })
    writeFileSync(join(sb.project, 'loadout.json'), JSON.stringify({marketplaces: {private: {source: outside}}, plugins: {}}))
    const result = await loadout(sb, ['install', '--yes', '--json'], noPolicy(sb))
    expect(result.status, result.stdout).not.toBe(0)
    expect(jsonError(result).code).toBe('declared-marketplace-outside')
    const list = await loadout(sb, ['marketplace', 'list', '--json'], noPolicy(sb))
    expect(JSON.stringify(list.json())).not.toContain('private-market')
  })
})

describe('variation selectors', () => {
  it('one after an emoji or an ideograph passes; a run, or one after plain text, is hidden text', () => {
    expect(findHiddenText('ok \u2764\uFE0F and \u845B\u{E0100}')).toEqual([])
    const smuggled = `hi\u{E0151}\u{E0152}\u{E0153}`
    expect(findHiddenText(smuggled).map((f) => f.name)).toEqual(['VARIATION SELECTOR-98', 'VARIATION SELECTOR-99', 'VARIATION SELECTOR-100'])
    expect(findHiddenText('a\uFE0F\uFE0E')).toHaveLength(1)
  })
})

describe('file names with bidi controls', () => {
  it('are refused at install, naming the file', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const root = writeTree(join(sb.dir, 'named'), {
      '.claude-plugin/plugin.json': JSON.stringify({name: 'named', version: '1.0.0'}),
      'skills/s/SKILL.md': '---\nname: s\ndescription: A skill.\n---\n\nFine.\n',
      'skills/s/scripts/\u202Ehs.nur': 'echo hi\n',
    })
    const result = await loadout(sb, ['install', '--loose', root, '--agent', 'claude-code', ...USER], noPolicy(sb))
    expect(result.status, result.stdout).toBe(4)
    expect(jsonError(result).message).toContain('IN THE FILE NAME')
  })
})
