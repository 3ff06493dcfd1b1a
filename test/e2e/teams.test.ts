/**
 * Teams, played on two machines. Machine A (its own HOME, the project at one path) adds an HTTPS git
 * marketplace and a marketplace folder inside the repository, installs a plugin with a skill, an MCP
 * server and a hook into Claude Code and Deep Agents, and commits loadout.json and loadout.lock (not
 * the agent folders). Machine B (another HOME, `git clone` to another path) runs `loadout install`:
 * without --yes it stops for consent (exit 8, a lock never approves itself); with --yes it writes the
 * same skills, MCP and hook commands that point at files existing on B, a clean verify, an unchanged
 * lock, and --frozen passes. No committed file names A's HOME or A's project folder.
 */
import {createHash} from 'node:crypto'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {isAbsolute, join, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, git, makeRepo, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const LINT = '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the rules.\n'
const LINT_V2 = '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the NEW rules.\n'
const STYLE = '---\nname: house-style\ndescription: Use when writing prose for the team.\n---\n\nShort sentences.\n'

const toolkit = (prefix: string, skill = LINT): FileMap => ({
  [`${prefix}/.claude-plugin/plugin.json`]: JSON.stringify({name: 'toolkit', version: '1.0.0'}),
  [`${prefix}/skills/lint-rules/SKILL.md`]: skill,
  [`${prefix}/.mcp.json`]: JSON.stringify({mcpServers: {linter: {command: '${CLAUDE_PLUGIN_ROOT}/bin/lint', args: ['--stdio']}}}),
  [`${prefix}/hooks/hooks.json`]: JSON.stringify({
    hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/bin/check'}]}]},
  }),
  [`${prefix}/bin/lint`]: {content: '#!/bin/sh\necho lint\n', mode: 0o755},
  [`${prefix}/bin/check`]: {content: '#!/bin/sh\necho check\n', mode: 0o755},
})

const REMOTE: FileMap = {
  ...toolkit('plugins/toolkit'),
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', plugins: [{name: 'toolkit', source: './plugins/toolkit', version: '1.0.0'}]}),
}

/** The marketplace folder committed inside the project. */
const IN_REPO: FileMap = {
  'team-market/.claude-plugin/marketplace.json': JSON.stringify({name: 'team', plugins: [{name: 'style', source: './style', version: '0.1.0'}]}),
  'team-market/style/skills/house-style/SKILL.md': STYLE,
  'team-market/style/hooks/hooks.json': JSON.stringify({
    hooks: {SessionStart: [{hooks: [{type: 'command', command: '"${CLAUDE_PLUGIN_ROOT}/bin/hello" --quiet'}]}]},
  }),
  'team-market/style/bin/hello': {content: '#!/bin/sh\necho hello\n', mode: 0o755},
  'README.md': '# the team project\n',
}

const AGENTS = 'claude-code,deepagents'
const SKILL_DIRS = ['.claude/skills', '.deepagents/skills']

let work: string
let server: GitHttpsServer
let remote: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: server.trustEnv()})
const read = (path: string) => readFileSync(path, 'utf8')
const readJson = (path: string) => JSON.parse(read(path))
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

const hashed = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  if (!existsSync(root)) return out
  for (const entry of readdirSync(root, {withFileTypes: true, recursive: true})) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(root.length + 1)] = sha256(join(entry.parentPath, entry.name))
  }
  return out
}

/** Every command word an agent config file names for MCP servers and hooks. */
const commands = (file: string): string[] => {
  const data = readJson(file)
  const out: string[] = []
  for (const server of Object.values((data.mcpServers ?? {}) as Record<string, {command: string}>)) out.push(server.command)
  for (const groups of Object.values((data.hooks ?? {}) as Record<string, Array<{hooks: Array<{command: string}>}>>))
    for (const g of groups) for (const h of g.hooks) out.push(h.command.split(' ')[0]!.replaceAll('"', ''))
  return out
}

/** A command's file as the agent will find it on this machine: ${CLAUDE_PROJECT_DIR} expanded, relative to the project root. */
const onMachine = (command: string, project: string): string => {
  const expanded = command.replace('${CLAUDE_PROJECT_DIR}', project)
  return isAbsolute(expanded) ? expanded : resolve(project, expanded)
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-teams-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  remote = makeServedRepo(join(work, 'src'), root, 'acme/market', REMOTE)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('a committed project reproduces on a teammate machine', () => {
  let a: Sandbox
  let b: Sandbox
  let committedLock: string

  beforeAll(async () => {
    a = sandbox()
    b = sandbox()
    makeRepo(a.project, IN_REPO)
    const https = await run(a, ['marketplace', 'add', server.git.url('acme/market'), '--json'])
    expect(https.status, https.stdout + https.stderr).toBe(0)
    expect(https.json().scope).toBe('project')
    const folder = await run(a, ['marketplace', 'add', './team-market', '--json'])
    expect(folder.status, folder.stdout + folder.stderr).toBe(0)
    for (const plugin of ['toolkit@acme', 'style@team']) {
      const installed = await run(a, ['install', '--loose', plugin, '--agent', AGENTS, '--yes', '--json'])
      expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    }
    // only loadout.json and loadout.lock are committed (the marketplace folder already was)
    git(a.project, ['add', '--', 'loadout.json', 'loadout.lock'])
    git(a.project, ['commit', '-q', '--no-gpg-sign', '-m', 'loadout'])
    committedLock = git(a.project, ['show', 'HEAD:loadout.lock'])
    rmSync(b.project, {recursive: true})
    git(b.dir, ['clone', '-q', '--', a.project, b.project])
  })

  it('on A, the project declares both marketplaces portably and the agents got everything', () => {
    expect(readJson(join(a.project, 'loadout.json')).marketplaces).toEqual({acme: {source: server.git.url('acme/market')}, team: {source: './team-market'}})
    for (const dir of SKILL_DIRS) expect(Object.keys(hashed(join(a.project, dir))).sort()).toEqual(['house-style/SKILL.md', 'lint-rules/SKILL.md'])
    const lock = JSON.parse(committedLock) as {installs: Array<{plugin: string; commit?: string}>}
    expect(lock.installs.find((r) => r.plugin === 'toolkit@acme')?.commit).toBe(remote.sha)
  })

  it("no committed file names A's HOME or A's project folder", () => {
    const files = git(a.project, ['ls-files']).split('\n')
    expect(files.sort()).toEqual(expect.arrayContaining(['loadout.json', 'loadout.lock']))
    expect(files.some((f) => f.startsWith('.claude') || f.startsWith('.deepagents') || f.startsWith('.loadout') || f === '.mcp.json')).toBe(false)
    for (const file of files) {
      const text = git(a.project, ['show', `HEAD:${file}`])
      expect(text, file).not.toContain(a.home)
      expect(text, file).not.toContain(a.project)
      expect(text, file).not.toContain(a.dir)
    }
  })

  it('on B, loadout install without --yes stops for consent (exit 8) and writes nothing', async () => {
    const result = await run(b, ['install', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(8)
    expect(jsonError(result).message).toMatch(/style@team.*toolkit@acme|toolkit@acme.*style@team/)
    for (const path of ['.claude', '.deepagents', '.mcp.json', '.loadout']) expect(existsSync(join(b.project, path)), path).toBe(false)
    expect(read(join(b.project, 'loadout.lock'))).toBe(`${committedLock}\n`)
  })

  it('with --yes, B gets byte-identical skills, commands that exist on B, a clean verify and the same lock', async () => {
    const result = await run(b, ['install', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const body = result.json()
    // the first run registered what loadout.json declares, in project scope, the folder at B's path
    const markets = (await run(b, ['marketplace', 'list', '--json'])).json()
    expect(JSON.stringify(markets)).not.toContain(a.dir)
    expect(JSON.stringify(markets)).toContain(join(b.project, 'team-market'))
    expect(body.results.map((r: {plugin: string; status: string}) => `${r.plugin} ${r.status}`)).toEqual(['style@team installed', 'toolkit@acme installed'])
    for (const dir of SKILL_DIRS) expect(hashed(join(b.project, dir))).toEqual(hashed(join(a.project, dir)))
    const configs = ['.mcp.json', '.claude/settings.json', '.deepagents/.mcp.json', '.deepagents/hooks.json']
    for (const file of configs) {
      const named = commands(join(b.project, file))
      expect(named.length, file).toBeGreaterThan(0)
      for (const command of named) {
        expect(command, file).not.toContain(a.dir)
        expect(existsSync(onMachine(command, b.project)), `${file}: ${command}`).toBe(true)
      }
    }
    // Claude Code expands no project variable in .mcp.json, and Deep Agents none at all: project-relative paths
    expect(commands(join(b.project, '.mcp.json'))[0]).toMatch(/^\.loadout\/plugins\/toolkit@acme\//)
    expect(commands(join(b.project, '.deepagents/.mcp.json'))[0]).toMatch(/^\.loadout\/plugins\/toolkit@acme\//)
    const verify = await run(b, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    expect(verify.json()).toMatchObject({ok: true, checked: 4})
    expect(read(join(b.project, 'loadout.lock'))).toBe(`${committedLock}\n`)
    expect(git(b.project, ['status', '--porcelain', '--', 'loadout.json', 'loadout.lock'])).toBe('')
  })

  it('install --frozen passes on B and leaves the lock alone; install prints the ignore line', async () => {
    const frozen = await run(b, ['install', '--frozen', '--json'])
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
    expect(frozen.json().results.map((r: {status: string}) => r.status)).toEqual(['already-installed', 'already-installed'])
    expect(frozen.json().ignore).toEqual(['/.loadout/'])
    expect(read(join(b.project, 'loadout.lock'))).toBe(`${committedLock}\n`)
    writeFileSync(join(b.project, '.gitignore'), '/.loadout/\n')
    const text = await run(b, ['install', '--frozen'])
    expect(text.status).toBe(0)
    expect(text.stdout).not.toContain('.gitignore')
  })

  it('--frozen fails, naming what differs, when loadout.json and loadout.lock disagree, and writes neither', async () => {
    const manifest = read(join(b.project, 'loadout.json'))
    const data = JSON.parse(manifest)
    data.plugins['toolkit@acme'].version = '9.9.9'
    writeFileSync(join(b.project, 'loadout.json'), JSON.stringify(data))
    const frozen = await run(b, ['install', '--frozen', '--yes', '--json'])
    const changed = read(join(b.project, 'loadout.json'))
    writeFileSync(join(b.project, 'loadout.json'), manifest)
    expect(frozen.status).toBe(7)
    expect(jsonError(frozen).message).toMatch(/toolkit@acme is declared at 9\.9\.9 but locked at 1\.0\.0/)
    expect(changed).toBe(JSON.stringify(data))
    expect(read(join(b.project, 'loadout.lock'))).toBe(`${committedLock}\n`)
  })

  it('agent files committed by mistake do not count as installed: verify sees commands pointing at missing files', async () => {
    const c = sandbox()
    rmSync(c.project, {recursive: true})
    git(c.dir, ['clone', '-q', '--', a.project, c.project])
    for (const path of ['.claude', '.deepagents', '.mcp.json']) cpSync(join(a.project, path), join(c.project, path), {recursive: true})
    const verify = await run(c, ['verify', '--json'])
    expect(verify.status).not.toBe(0)
    const missing = (jsonError(verify).details as {records: Array<{missing: string[]}>}).records.flatMap((r) => r.missing)
    expect(missing.join('\n')).toMatch(/\.mcp\.json mcpServers\.toolkit-linter: runs .*\.loadout\/plugins\/toolkit@acme\/.*\/bin\/lint, which does not exist/)
    // even with A's plugin copies brought along too, what runs is not installed until C's user approves it
    cpSync(join(a.project, '.loadout'), join(c.project, '.loadout'), {recursive: true})
    const unapproved = await run(c, ['install', '--json'])
    expect(unapproved.status, unapproved.stdout + unapproved.stderr).toBe(8)
    const installed = await run(c, ['install', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(installed.json().results.map((r: {status: string}) => r.status)).toEqual(['installed', 'installed'])
    expect((await run(c, ['verify'])).status).toBe(0)
  })

  it('a lock whose integrity does not match what is fetched is refused with exit 7, nothing written', async () => {
    const c = sandbox()
    rmSync(c.project, {recursive: true})
    git(c.dir, ['clone', '-q', '--', a.project, c.project])
    writeFileSync(join(c.project, 'team-market/style/skills/house-style/SKILL.md'), `${STYLE}\nchanged\n`)
    const plain = await run(c, ['install', '--yes', '--json'])
    expect(plain.status, plain.stdout + plain.stderr).toBe(7)
    expect(jsonError(plain).message).toMatch(/style@team resolves to different content than loadout\.lock records/)
    expect(existsSync(join(c.project, '.claude'))).toBe(false)
    expect(read(join(c.project, 'loadout.lock'))).toBe(`${committedLock}\n`)
  })

  it('after pulling a teammate lock, install (at the locked commit) and update (to the newest) replace the old version, hooks included', async () => {
    // D installed the first lock; then A moves toolkit on and commits the new lock, and upstream moves on again
    const d = sandbox()
    rmSync(d.project, {recursive: true})
    git(d.dir, ['clone', '-q', '--', a.project, d.project])
    expect((await run(d, ['install', '--yes'])).status).toBe(0)
    commitFiles(remote.repo, toolkit('plugins/toolkit', LINT_V2), 'toolkit v2')
    syncServedRepo(remote.bare)
    const updatedA = await run(a, ['update', 'toolkit@acme', '--yes', '--json'])
    expect(updatedA.status, updatedA.stdout + updatedA.stderr).toBe(0)
    git(a.project, ['add', '--', 'loadout.lock'])
    git(a.project, ['commit', '-q', '--no-gpg-sign', '-m', 'toolkit v2'])
    const V3 = `${LINT_V2}\nv3\n`
    commitFiles(remote.repo, toolkit('plugins/toolkit', V3), 'toolkit v3')
    syncServedRepo(remote.bare)

    const oneHook = async (sb: Sandbox, skill: string) => {
      for (const file of ['.claude/settings.json', '.deepagents/hooks.json']) {
        const groups = readJson(join(sb.project, file)).hooks.PreToolUse
        expect(groups, file).toHaveLength(1)
        expect(existsSync(onMachine(groups[0].hooks[0].command, sb.project)), file).toBe(true)
      }
      expect(read(join(sb.project, '.claude/skills/lint-rules/SKILL.md'))).toBe(skill)
      expect((await run(sb, ['verify'])).status).toBe(0)
    }
    // D: pull, then install: exactly the locked v2, the v1 hook gone
    git(d.project, ['pull', '-q', '--no-rebase', '--ff-only'])
    const pulled = read(join(d.project, 'loadout.lock'))
    const installed = await run(d, ['install', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    await oneHook(d, LINT_V2)
    expect(read(join(d.project, 'loadout.lock'))).toBe(pulled)
    // B (still at v1 on disk): pull, then update straight away: v3, the v1 hook gone
    git(b.project, ['pull', '-q', '--no-rebase', '--ff-only'])
    const updated = await run(b, ['update', '--yes', '--json'])
    expect(updated.status, updated.stdout + updated.stderr).toBe(0)
    expect(updated.json().updates.find((u: {plugin: string}) => u.plugin === 'toolkit@acme').status).toBe('updated')
    await oneHook(b, V3)
    // only the revision in use is kept in the project's machine-local folder
    for (const sb of [b, d]) expect(readdirSync(join(sb.project, '.loadout/plugins/toolkit@acme'))).toHaveLength(1)
  })
})
