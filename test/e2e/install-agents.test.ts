/**
 * The heart of loadout, end to end against a real git server over HTTPS: a plugin with skills, a
 * subagent, an MCP server and a hook goes into claude-code, codex, deepagents and cst-agent; verify
 * passes; uninstall leaves every agent folder and config byte-identical to before.
 */
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {makeServedRepo, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'
import {agentSnapshot} from './tx-support.js'

const PLUGIN: FileMap = {
  'plugins/toolkit/.claude-plugin/plugin.json': JSON.stringify({
    name: 'toolkit',
    version: '1.0.0',
    description: 'Lint rules, a reviewer, a linter server and a check hook',
  }),
  'plugins/toolkit/skills/lint-rules/SKILL.md': '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the rules.\n',
  'plugins/toolkit/skills/lint-rules/references/RULES.md': '# Rules\n',
  'plugins/toolkit/skills/mine/SKILL.md': '---\nname: mine\ndescription: A skill whose name the user already took.\n---\n\nBody.\n',
  'plugins/toolkit/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep\nmodel: inherit\n---\n\nYou review code.\n',
  'plugins/toolkit/.mcp.json': JSON.stringify({
    mcpServers: {linter: {command: '${CLAUDE_PLUGIN_ROOT}/bin/lint', args: ['--stdio'], env: {LINT_LEVEL: 'strict'}}},
  }),
  'plugins/toolkit/hooks/hooks.json': JSON.stringify({
    hooks: {PostToolUse: [{matcher: 'Edit', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/bin/check'}]}]},
  }),
  'plugins/toolkit/bin/lint': {content: '#!/bin/sh\necho lint\n', mode: 0o755},
  'plugins/toolkit/bin/check': {content: '#!/bin/sh\necho check\n', mode: 0o755},
}
const CATALOG = {name: 'acme', plugins: [{name: 'toolkit', source: './plugins/toolkit', version: '1.0.0'}]}
const AGENTS = 'claude-code,codex,deepagents,cst-agent'

let work: string
let server: GitHttpsServer
const sandbox = sandboxes()

const run = (sb: Sandbox, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`, ...extra}})

const bigClaudeJson = (): string => {
  const projects: Record<string, unknown> = {}
  for (let i = 0; i < 12_000; i++) projects[`/home/user/project-${i}`] = {allowedTools: [], history: [`entry ${i} ${'x'.repeat(300)}`], lastCost: i / 7}
  return JSON.stringify({numStartups: 42, theme: 'dark', projects, mcpServers: {mine: {command: 'my-server'}}}, null, 2)
}

const CODEX_TOML = `# my codex settings
model = "o4-mini" # the model I like

[mcp_servers.mine]
# my own server, keep this comment
command = "my-server"
args = ["--verbose"]

# trailing comment
`

const prepareHome = (sb: Sandbox) => {
  const h = sb.home
  mkdirSync(join(h, '.claude', 'skills', 'mine'), {recursive: true})
  writeFileSync(join(h, '.claude', 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: My own skill.\n---\n\nMine.\n')
  writeFileSync(join(h, '.claude.json'), bigClaudeJson())
  chmodSync(join(h, '.claude.json'), 0o600)
  writeFileSync(
    join(h, '.claude', 'settings.json'),
    JSON.stringify({theme: 'dark', hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: 'echo mine'}]}]}}, null, 2) + '\n',
  )
  mkdirSync(join(h, '.codex'))
  writeFileSync(join(h, '.codex', 'config.toml'), CODEX_TOML)
  mkdirSync(join(h, '.deepagents'))
  mkdirSync(join(h, '.config', 'cst-agent'), {recursive: true})
  writeFileSync(join(h, '.config', 'cst-agent', 'mcp.json'), '{\n  "mcpServers": {\n    "mine": {"command": "x"}\n  }\n}\n')
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-install-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  makeServedRepo(join(work, 'src'), root, 'acme/market', {'.claude-plugin/marketplace.json': JSON.stringify(CATALOG, null, 2), ...PLUGIN})
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('install into four agents from a git marketplace', () => {
  let sb: Sandbox
  let before: Map<string, string>
  beforeAll(async () => {
    sb = sandbox()
    prepareHome(sb)
    before = agentSnapshot(sb.home)
    const added = await run(sb, ['marketplace', 'add', 'acme/market'])
    expect(added.status, added.stderr).toBe(0)
  })

  it('needs consent off a terminal and writes nothing without it', async () => {
    const result = await run(sb, ['install', '--loose', 'toolkit@acme', '--agent', AGENTS, '--scope', 'user', '--prefix', '--json'])
    expect(result.status).toBe(8)
    const error = jsonError(result)
    expect(error.message).toMatch(/needs your approval/)
    expect(JSON.stringify(error.details)).toMatch(/bin\/lint/)
    expect(agentSnapshot(sb.home)).toEqual(before)
  })

  it('a skill whose name the user took is a conflict naming the owner', async () => {
    const result = await run(sb, ['install', '--loose', 'toolkit@acme', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(result.status).toBe(5)
    const error = jsonError(result)
    expect(error.code).toBe('skill-taken')
    expect(error.message).toMatch(/mine.*belongs to the user.*install it as "toolkit-mine" with --prefix/)
    expect(error.suggestions.join('\n')).toMatch(/"toolkit-mine" with --prefix.*"toolkit:mine"/)
    expect(agentSnapshot(sb.home)).toEqual(before)
  })

  it('installs every part into every agent, with --prefix for the taken name', async () => {
    const result = await run(sb, ['install', '--loose', 'toolkit@acme', '--agent', AGENTS, '--scope', 'user', '--yes', '--prefix', '--json'])
    expect(result.status, result.stdout).toBe(0)
    const body = result.json()
    expect(body.status).toBe('installed')
    expect(body.consent.approvedBy).toBe('yes')
    const h = sb.home
    // skills
    for (const dir of ['.claude/skills', '.agents/skills', '.config/cst-agent/skills']) {
      expect(existsSync(join(h, dir, 'lint-rules', 'SKILL.md')), dir).toBe(true)
      expect(existsSync(join(h, dir, 'lint-rules', 'references', 'RULES.md')), dir).toBe(true)
    }
    // Deep Agents Code reads ~/.agents/skills too: Codex's copy serves it, a second would load twice
    expect(existsSync(join(h, '.deepagents/agent/skills', 'lint-rules'))).toBe(false)
    expect(readFileSync(join(h, '.claude/skills/toolkit-mine/SKILL.md'), 'utf8')).toMatch(/^---\nname: toolkit-mine\n/)
    expect(readFileSync(join(h, '.claude/skills/mine/SKILL.md'), 'utf8')).toMatch(/My own skill/)
    // subagents in each format
    expect(readFileSync(join(h, '.claude/agents/reviewer.md'), 'utf8')).toMatch(/name: reviewer/)
    expect(readFileSync(join(h, '.deepagents/agent/agents/reviewer/AGENTS.md'), 'utf8')).toMatch(/description: Reviews diffs/)
    expect(readFileSync(join(h, '.config/cst-agent/agents/reviewer.md'), 'utf8')).toMatch(/readonly: true/)
    // MCP servers: JSON key, Codex TOML table, the user's entries kept
    const claude = JSON.parse(readFileSync(join(h, '.claude.json'), 'utf8'))
    expect(claude.mcpServers.mine).toEqual({command: 'my-server'})
    const linter = claude.mcpServers['toolkit-linter']
    expect(linter.args).toEqual(['--stdio'])
    expect(linter.command).toMatch(/\/bin\/lint$/)
    expect(linter.command).not.toContain('${')
    expect(existsSync(linter.command)).toBe(true)
    const toml = readFileSync(join(h, '.codex/config.toml'), 'utf8')
    expect(toml.startsWith(CODEX_TOML)).toBe(true)
    expect(toml).toMatch(/\[mcp_servers\.toolkit-linter\]/)
    expect(JSON.parse(readFileSync(join(h, '.deepagents/.mcp.json'), 'utf8')).mcpServers['toolkit-linter']).toBeTruthy()
    const cst = JSON.parse(readFileSync(join(h, '.config/cst-agent/mcp.json'), 'utf8'))
    expect(Object.keys(cst.mcpServers)).toEqual(['mine', 'toolkit-linter'])
    // hooks merged next to the user's own
    const settings = JSON.parse(readFileSync(join(h, '.claude/settings.json'), 'utf8'))
    expect(settings.hooks.PreToolUse).toHaveLength(1)
    expect(settings.hooks.PostToolUse[0].hooks[0].command).toMatch(/\/bin\/check$/)
    expect(JSON.parse(readFileSync(join(h, '.deepagents/hooks.json'), 'utf8')).hooks.PostToolUse).toHaveLength(1)
    // what a target cannot hold is reported, not dropped
    // (Codex keeps subagents in the user scope too: reviewer is written as .codex/agents/reviewer.toml)
    expect(readFileSync(join(h, '.codex/agents/reviewer.toml'), 'utf8')).toMatch(/^name = "reviewer"$/m)
    const cstPlan = body.plans.find((p: {target: string}) => p.target === 'cst-agent')
    expect(cstPlan.skipped.map((s: {component: string}) => s.component)).toContain('toolkit@acme/hooks/hooks')
  })

  it('keeps ~/.claude.json byte for byte outside the key, and its mode', async () => {
    const text = readFileSync(join(sb.home, '.claude.json'), 'utf8')
    expect(text.length).toBeGreaterThan(4_000_000)
    const inserted = /,\n {4}"toolkit-linter": \{[\s\S]*?\n {4}\}/
    expect(text).toMatch(inserted)
    expect(text.replace(inserted, '')).toBe(bigClaudeJson())
    expect((await import('node:fs')).statSync(join(sb.home, '.claude.json')).mode & 0o777).toBe(0o600)
  })

  it('verify passes, then catches a changed file, and list shows the installs', async () => {
    const ok = await run(sb, ['verify', '--json'])
    expect(ok.status, ok.stderr).toBe(0)
    expect(ok.json()).toMatchObject({ok: true, checked: 4})
    const file = join(sb.home, '.claude/agents/reviewer.md')
    const original = readFileSync(file, 'utf8')
    writeFileSync(file, original + '\nchanged\n')
    const bad = await run(sb, ['verify', '--json'])
    expect(bad.status).toBe(7)
    expect(JSON.stringify(jsonError(bad).details)).toContain('reviewer.md')
    writeFileSync(file, original)
    const list = (await run(sb, ['list', '--json'])).json()
    expect(list.installs.map((i: {target: string}) => i.target).sort()).toEqual(['claude-code', 'codex', 'cst-agent', 'deepagents'])
    expect(list.installs.every((i: {version: string; enabled: boolean}) => i.version === '1.0.0' && i.enabled)).toBe(true)
  })

  it('installing again is a no-op; disable takes the parts out, enable puts them back', async () => {
    const again = await run(sb, ['install', '--loose', 'toolkit@acme', '--agent', AGENTS, '--scope', 'user', '--yes', '--json'])
    expect(again.status, again.stderr).toBe(0)
    expect(again.json().status).toBe('already-installed')
    const disabled = await run(sb, ['disable', 'toolkit@acme', '--scope', 'user', '--json'])
    expect(disabled.status, disabled.stderr).toBe(0)
    expect(disabled.json().targets.flatMap((t: {kept: string[]}) => t.kept)).toEqual([])
    expect(
      existsSync(join(sb.home, '.claude/skills/lint-rules')),
      disabled.stdout + readFileSync(join(sb.home, '.config/loadout/state.json'), 'utf8').slice(0, 3000),
    ).toBe(false)
    expect(JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers['toolkit-linter']).toBeUndefined()
    const enabled = await run(sb, ['enable', 'toolkit@acme', '--scope', 'user', '--json'])
    expect(enabled.status, enabled.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude/skills/lint-rules/SKILL.md'))).toBe(true)
    expect((await run(sb, ['verify'])).status).toBe(0)
  })

  it('uninstall leaves every agent folder and config byte-identical to before', async () => {
    const removed = await run(sb, ['uninstall', 'toolkit@acme', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(agentSnapshot(sb.home)).toEqual(before)
  })
})

describe('bad configs and concurrency', () => {
  it('an MCP config that is not valid JSON is refused, naming the file, and nothing is written', async () => {
    const sb = sandbox()
    prepareHome(sb)
    writeFileSync(join(sb.home, '.config', 'cst-agent', 'mcp.json'), '{"mcpServers": {oops}')
    const before = agentSnapshot(sb.home)
    expect((await run(sb, ['marketplace', 'add', 'acme/market'])).status).toBe(0)
    const result = await run(sb, ['install', '--loose', 'toolkit@acme', '--agent', AGENTS, '--scope', 'user', '--yes', '--prefix', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result).message).toContain(join(sb.home, '.config', 'cst-agent', 'mcp.json'))
    expect(agentSnapshot(sb.home)).toEqual(before)
  })

  it('two installs at once in the same HOME: both finish or one fails "locked", nothing is corrupted', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const [a, b] = await Promise.all([
      run(sb, ['install', '--loose', 'loadout-guide@loadout', '--agent', 'claude-code', '--scope', 'user', '--json']),
      run(sb, ['install', '--loose', 'skill-authoring@loadout', '--agent', 'claude-code', '--scope', 'user', '--json']),
    ])
    for (const r of [a, b]) expect([0, 9], r.stderr).toContain(r.status)
    const state = JSON.parse(readFileSync(join(sb.home, '.config/loadout/state.json'), 'utf8'))
    const installed = [a, b].filter((r) => r.status === 0).length
    expect(state.installs).toHaveLength(installed)
    expect((await run(sb, ['verify'])).status).toBe(0)
  })
  // a run killed half way: test/e2e/crash.test.ts kills real runs at 40 moments each
})
