/**
 * Consent is built from the per-agent plans: what it shows is what is written and run. A part an agent
 * cannot take is not shown, a part written under its plugin-qualified name shows that name, and Deep
 * Agents Code gets only the hook events it fires (the others named in the output and in --json).
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, text)
}

const hook = (command: string) => [{hooks: [{type: 'command', command}]}]

/** A plugin with hooks on `events` (one command each) and, when asked, an MCP server. */
const plugin = (sb: Sandbox, name: string, events: string[], mcp = false): string => {
  const root = join(sb.dir, name)
  write(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0'}))
  write(join(root, 'skills', 'tidy', 'SKILL.md'), '---\nname: tidy\ndescription: Tidies.\n---\n\nBody.\n')
  write(join(root, 'hooks', 'hooks.json'), JSON.stringify({hooks: Object.fromEntries(events.map((e) => [e, hook(`echo ${e}`)]))}))
  if (mcp) write(join(root, '.mcp.json'), JSON.stringify({mcpServers: {probe: {command: 'node', args: ['probe.js']}}}))
  return root
}

type Item = {kind: string; component: string; hook?: {event: string}}
const events = (items: Item[]) => items.filter((i) => i.kind === 'hook').map((i) => i.hook!.event)

describe('consent built from the plans', () => {
  it('Deep Agents Code: only the events it fires are written and shown; the others are named, in text and --json', async () => {
    const sb = sandbox()
    const root = plugin(sb, 'tap', ['PostToolUse', 'PostCompact', 'TaskCompleted'])
    const dry = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'user', '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    const body = dry.json()
    expect(events(body.consent.items)).toEqual(['PostToolUse'])
    const notes: string[] = body.plans[0].notes.map((n: {note: string}) => n.note)
    expect(notes.find((n) => n.includes('"PostCompact"') && n.includes('"TaskCompleted"'))).toMatch(/not written: Deep Agents Code has no hook event/)
    const text = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'user', '--dry-run'])
    expect(text.stdout).toMatch(/PostCompact/)
    expect(text.stdout).not.toMatch(/runs "echo PostCompact"/)
    const done = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'user', '--yes', '--json'])
    expect(done.status, done.stderr).toBe(0)
    const written = JSON.parse(readFileSync(join(sb.home, '.deepagents', 'hooks.json'), 'utf8'))
    expect(Object.keys(written.hooks)).toEqual(['PostToolUse'])
    // what was approved is what is installed: the next install finds it current, without asking
    const again = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'user', '--json'])
    expect(again.status, again.stderr).toBe(0)
    expect(again.json().status).toBe('already-installed')
  })

  it('a part skipped for an agent is not in consent: Cursor gets the MCP server, not the hooks', async () => {
    const sb = sandbox()
    const root = plugin(sb, 'mix', ['PostToolUse'], true)
    const dry = await loadout(sb, ['install', root, '--agent', 'cursor', '--scope', 'user', '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    const body = dry.json()
    expect(body.plans[0].skipped.map((s: {component: string}) => s.component)).toContain('mix@direct/hooks/hooks')
    expect(body.consent.items.map((i: Item) => i.kind)).toEqual(['mcp'])
    // for two agents, the hook Codex writes is shown once, with the server
    const both = await loadout(sb, ['install', root, '--agent', 'cursor,codex', '--scope', 'user', '--dry-run', '--json'])
    expect(
      both
        .json()
        .consent.items.map((i: Item) => i.kind)
        .sort(),
    ).toEqual(['hook', 'mcp'])
  })

  it('a skill written under its plugin-qualified name shows that name', async () => {
    const sb = sandbox()
    const skill = (root: string, extra: string) =>
      write(join(root, 'skills', 'review', 'SKILL.md'), `---\nname: review\ndescription: Reviews.\n${extra}---\n\nBody.\n`)
    const alpha = join(sb.dir, 'alpha')
    write(join(alpha, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'alpha', version: '1.0.0'}))
    skill(alpha, '')
    const beta = join(sb.dir, 'beta')
    write(join(beta, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'beta', version: '1.0.0'}))
    skill(beta, 'hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo done\n')
    const first = await loadout(sb, ['install', alpha, '--agent', 'gemini-cli', '--scope', 'user', '--yes', '--json'])
    expect(first.status, first.stderr).toBe(0)
    const dry = await loadout(sb, ['install', beta, '--agent', 'gemini-cli', '--scope', 'user', '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    const body = dry.json()
    expect(body.plans[0].renamed.map((r: {as: string}) => r.as)).toEqual(['beta-review'])
    expect(body.consent.items.map((i: Item) => [i.kind, i.component])).toEqual([['skill-hooks', 'beta@direct/skills/beta-review']])
  })
})
