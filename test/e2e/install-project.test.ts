/**
 * Project scope, end to end against a real git server over HTTPS: an install inside a git work tree
 * writes the agents' project folders, declares the plugin in loadout.json and records it in a
 * deterministic loadout.lock; a fresh clone installs exactly what the lock says (at the locked
 * commits, into the locked agents) and asks again for consent, because a project's files can never
 * approve themselves; --frozen refuses a lock that would change; uninstall takes the declaration out.
 */
import {createHash} from 'node:crypto'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, makeServedRepo, syncServedRepo, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const LINT_V1 = '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the rules.\n'
const LINT_V2 = '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the NEW rules.\n'
const NOTES_V1 = '---\nname: note-taking\ndescription: Use when taking notes.\n---\n\nWrite it down.\n'
const NOTES_V2 = '---\nname: note-taking\ndescription: Use when taking notes.\n---\n\nWrite it down, twice.\n'
const EXTRA = '---\nname: extra-skill\ndescription: An extra skill.\n---\n\nExtra.\n'

const MARKET: FileMap = {
  'plugins/toolkit/.claude-plugin/plugin.json': JSON.stringify({name: 'toolkit', version: '1.0.0'}),
  'plugins/toolkit/skills/lint-rules/SKILL.md': LINT_V1,
  'plugins/toolkit/.mcp.json': JSON.stringify({mcpServers: {linter: {command: '${CLAUDE_PLUGIN_ROOT}/bin/lint', args: ['--stdio']}}}),
  'plugins/toolkit/hooks/hooks.json': JSON.stringify({
    hooks: {PostToolUse: [{matcher: 'Edit', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/bin/check'}]}]},
  }),
  'plugins/toolkit/bin/lint': {content: '#!/bin/sh\necho lint\n', mode: 0o755},
  'plugins/toolkit/bin/check': {content: '#!/bin/sh\necho check\n', mode: 0o755},
  'plugins/extra/skills/extra-skill/SKILL.md': EXTRA,
  '.claude-plugin/marketplace.json': JSON.stringify({
    name: 'acme',
    plugins: [
      {name: 'toolkit', source: './plugins/toolkit', version: '1.0.0'},
      {name: 'notes', source: {source: 'github', repo: 'acme/notes'}, version: '2.0.0'},
      {name: 'extra', source: './plugins/extra', version: '0.1.0'},
    ],
  }),
}

let work: string
let server: GitHttpsServer
let market: {repo: string; bare: string; sha: string}
let notes: {repo: string; bare: string; sha: string}
const sandbox = sandboxes()

const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const read = (path: string) => readFileSync(path, 'utf8')
const readJson = (path: string) => JSON.parse(read(path))

/** Every file and folder under `root`, hashed (skipping the paths given). */
const tree = (root: string, skip: readonly string[] = []): Map<string, string> => {
  const out = new Map<string, string>()
  if (!existsSync(root)) return out
  for (const entry of readdirSync(root, {withFileTypes: true, recursive: true})) {
    const full = join(entry.parentPath, entry.name)
    const rel = full.slice(root.length + 1)
    if (skip.some((s) => rel === s || rel.startsWith(`${s}/`))) continue
    out.set(rel, entry.isDirectory() ? 'dir' : sha256(full))
  }
  return out
}

/** HOME without loadout's own config, cache and data: the user's agent folders. */
const agentFolders = (sb: Sandbox): string[] =>
  [...tree(sb.home, ['.config/loadout', '.cache/loadout', '.local/share/loadout']).keys()]
    .filter((k) => !['.config', '.cache', '.local', '.local/share'].includes(k))
    .sort()

/** JSON with object keys sorted at every level, two-space indented: what a deterministic lock must already be. */
const sortedJson = (value: unknown): string => {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v
  return `${JSON.stringify(sort(value), null, 2)}\n`
}

/** A lock's text with the sandbox's own folder replaced, so two sandboxes' locks can be compared. */
const portable = (sb: Sandbox) => read(join(sb.project, 'loadout.lock')).replaceAll(sb.dir, '<sandbox>')

interface LockRecord {
  plugin: string
  target: string
  source: string
  commit?: string
  integrity: string
  files: Array<{path: string; sha256: string; component?: string}>
  dirs: string[]
  config: Array<{file: string; path: string[]; key: string; component: string}>
}
const lockRecords = (sb: Sandbox): LockRecord[] => readJson(join(sb.project, 'loadout.lock')).installs

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-project-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  market = makeServedRepo(join(work, 'src'), root, 'acme/market', MARKET)
  notes = makeServedRepo(join(work, 'src'), root, 'acme/notes', {'skills/note-taking/SKILL.md': NOTES_V1})
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

/** marketplace add + install of toolkit (hooks and MCP) and notes (a github source) into claude-code. */
const installBoth = async (sb: Sandbox, scope: string[] = []) => {
  const added = await run(sb, ['marketplace', 'add', 'acme/market', ...scope, '--json'])
  expect(added.status, added.stdout).toBe(0)
  expect(added.json().scope).toBe('project')
  const toolkit = await run(sb, ['install', '--loose', 'toolkit@acme', '--agent', 'claude-code', '--yes', ...scope, '--json'])
  expect(toolkit.status, toolkit.stdout).toBe(0)
  const notesRun = await run(sb, ['install', '--loose', 'notes@acme', '--agent', 'claude-code', ...scope, '--json'])
  expect(notesRun.status, notesRun.stdout).toBe(0)
  return {toolkit: toolkit.json(), notes: notesRun.json()}
}

describe('project scope: install, loadout.json, loadout.lock, fresh clone, --frozen, uninstall', () => {
  let sb: Sandbox
  let installed: Awaited<ReturnType<typeof installBoth>>
  let firstLock: string
  beforeAll(async () => {
    sb = sandbox({git: true})
    mkdirSync(join(sb.home, '.claude'))
    installed = await installBoth(sb)
    firstLock = read(join(sb.project, 'loadout.lock'))
  })

  it('inside a git work tree the default scope is the project: agent files go under the project, none under HOME', async () => {
    expect(installed.toolkit.scope).toBe('project')
    expect(installed.notes.scope).toBe('project')
    const p = sb.project
    expect(read(join(p, '.claude/skills/lint-rules/SKILL.md'))).toBe(LINT_V1)
    expect(read(join(p, '.claude/skills/note-taking/SKILL.md'))).toBe(NOTES_V1)
    const linter = readJson(join(p, '.mcp.json')).mcpServers['toolkit-linter']
    expect(linter.args).toEqual(['--stdio'])
    // the installed copy lives in the project (.loadout/, ignored); Claude Code expands no project variable in .mcp.json
    expect(linter.command).toMatch(/^\.loadout\/plugins\/toolkit@acme\/[0-9a-f]{16}\/bin\/lint$/)
    expect(existsSync(join(p, linter.command))).toBe(true)
    expect(readJson(join(p, '.claude/settings.json')).hooks.PostToolUse[0].hooks[0].command).toMatch(/\/bin\/check$/)
    // the user's own agent folders got nothing
    expect(agentFolders(sb)).toEqual(['.claude'])
    const list = (await run(sb, ['list', '--json'])).json()
    expect(list.installs.map((i: {plugin: string; scope: string; target: string}) => `${i.plugin} ${i.scope} ${i.target}`).sort()).toEqual([
      'notes@acme project claude-code',
      'toolkit@acme project claude-code',
    ])
    const verify = await run(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    expect(verify.json()).toMatchObject({ok: true, checked: 2})
  })

  it('loadout.json declares the marketplace and each plugin with its version', () => {
    expect(readJson(join(sb.project, 'loadout.json'))).toEqual({
      marketplaces: {acme: {source: 'acme/market'}},
      plugins: {'notes@acme': {version: '2.0.0', form: 'loose'}, 'toolkit@acme': {version: '1.0.0', form: 'loose'}},
    })
  })

  it('loadout.lock records source, commit, integrity and the exact files and config entries, project-relative', () => {
    const records = lockRecords(sb)
    expect(records.map((r) => `${r.plugin} ${r.target}`)).toEqual(['notes@acme claude-code', 'toolkit@acme claude-code'])
    const [notesLock, toolkitLock] = records as [LockRecord, LockRecord]
    // a plugin in the marketplace's own repository is at the marketplace's commit
    expect(toolkitLock).toMatchObject({source: './plugins/toolkit', commit: market.sha, integrity: installed.toolkit.integrity})
    expect(notesLock).toMatchObject({source: 'github:acme/notes', commit: notes.sha, integrity: installed.notes.integrity})
    for (const r of records) expect(r.integrity).toMatch(/^sha256-[0-9a-f]{64}$/)
    expect(toolkitLock.files).toEqual([
      {
        path: '.claude/skills/lint-rules/SKILL.md',
        sha256: sha256(join(sb.project, '.claude/skills/lint-rules/SKILL.md')),
        component: 'toolkit@acme/skill/lint-rules',
      },
    ])
    expect(notesLock.files).toEqual([
      {
        path: '.claude/skills/note-taking/SKILL.md',
        sha256: sha256(join(sb.project, '.claude/skills/note-taking/SKILL.md')),
        component: 'notes@acme/skill/note-taking',
      },
    ])
    expect(toolkitLock.config.map((c) => ({file: c.file, path: c.path, key: c.key, component: c.component}))).toEqual([
      {file: '.mcp.json', path: ['mcpServers'], key: 'toolkit-linter', component: 'toolkit@acme/mcp/linter'},
      {file: '.claude/settings.json', path: [], key: 'hooks', component: 'toolkit@acme/hooks/hooks'},
    ])
    expect(notesLock.config).toEqual([])
    // every path loadout wrote is named relative to the project root
    for (const r of records) for (const path of [...r.files.map((f) => f.path), ...r.dirs, ...r.config.map((c) => c.file)]) expect(path).not.toMatch(/^\//)
  })

  it('the lock is deterministic: sorted keys, no timestamps, and the same lock from a second sandbox', async () => {
    expect(firstLock).toBe(sortedJson(JSON.parse(firstLock)))
    expect(firstLock).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/)
    expect(firstLock).not.toMatch(/"(installedAt|updatedAt|addedAt|time|date)"/i)
    const other = sandbox({git: true})
    mkdirSync(join(other.home, '.claude'))
    await installBoth(other, ['--scope', 'project'])
    expect(portable(other)).toBe(portable(sb))
    // a plugin without executable parts records no machine path at all
    const notesLock = lockRecords(other).find((r) => r.plugin === 'notes@acme')!
    expect(JSON.stringify({...notesLock, pluginRoot: undefined})).not.toContain(other.dir)
  })

  describe('a fresh clone, after upstream moved on', () => {
    beforeAll(() => {
      // newer commits upstream: the lock must keep the old ones
      commitFiles(market.repo, {'plugins/toolkit/skills/lint-rules/SKILL.md': LINT_V2}, 'newer toolkit')
      syncServedRepo(market.bare)
      commitFiles(notes.repo, {'skills/note-taking/SKILL.md': NOTES_V2}, 'newer notes')
      syncServedRepo(notes.bare)
      // the clone keeps loadout.json and loadout.lock; agent folders and the user's approvals are gone
      for (const path of ['.claude', '.mcp.json']) rmSync(join(sb.project, path), {recursive: true, force: true})
      rmSync(join(sb.home, '.config', 'loadout'), {recursive: true, force: true})
    })

    it('re-adding the marketplace reads the newer commit', async () => {
      const added = await run(sb, ['marketplace', 'add', 'acme/market', '--json'])
      expect(added.status, added.stdout).toBe(0)
      expect(added.json().commit).not.toBe(market.sha)
    })

    it("asks again before running the plugin's hooks and MCP server: off a terminal, exit 8 and nothing written", async () => {
      const projectBefore = tree(sb.project, ['.git'])
      const result = await run(sb, ['install', '--json'])
      expect(result.status, result.stdout).toBe(8)
      const error = jsonError(result)
      expect(error.message).toMatch(/toolkit@acme/)
      expect(error.message).toMatch(/approval/)
      expect(error.message).not.toMatch(/notes@acme/)
      expect(tree(sb.project, ['.git'])).toEqual(projectBefore)
      expect(read(join(sb.project, 'loadout.lock'))).toBe(firstLock)
      // a project's own files cannot approve it: a loadout.json claiming approval is not believed
      const manifest = read(join(sb.project, 'loadout.json'))
      const fingerprint = installed.toolkit.consent.fingerprint
      writeFileSync(
        join(sb.project, 'loadout.json'),
        JSON.stringify({...JSON.parse(manifest), approvals: {'toolkit@acme': fingerprint}, consent: {'toolkit@acme': fingerprint}, trust: true}),
      )
      const again = await run(sb, ['install', '--json'])
      writeFileSync(join(sb.project, 'loadout.json'), manifest)
      expect(again.status, again.stdout).toBe(8)
      expect(existsSync(join(sb.project, '.claude'))).toBe(false)
    })

    it('with --yes installs every declared plugin at its locked commit, into the locked agents, and the lock stays byte-identical', async () => {
      const result = await run(sb, ['install', '--yes', '--json'])
      expect(result.status, result.stdout).toBe(0)
      const body = result.json()
      expect(body.results.map((r: {plugin: string; status: string; commit: string}) => [r.plugin, r.status, r.commit])).toEqual([
        ['notes@acme', 'installed', notes.sha],
        ['toolkit@acme', 'installed', market.sha],
      ])
      expect(read(join(sb.project, '.claude/skills/lint-rules/SKILL.md'))).toBe(LINT_V1)
      expect(read(join(sb.project, '.claude/skills/note-taking/SKILL.md'))).toBe(NOTES_V1)
      expect(readJson(join(sb.project, '.mcp.json')).mcpServers['toolkit-linter']).toBeTruthy()
      expect(JSON.parse(read(join(sb.project, 'loadout.lock')))).toEqual(JSON.parse(firstLock))
      expect(read(join(sb.project, 'loadout.lock'))).toBe(firstLock)
      expect((await run(sb, ['verify'])).status).toBe(0)
      // the approval is the user's own now
      expect(readJson(join(sb.home, '.config/loadout/approvals.json')).approvals['toolkit@acme']).toBe(installed.toolkit.consent.fingerprint)
    })

    it('--frozen passes when nothing would change', async () => {
      const result = await run(sb, ['install', '--frozen', '--json'])
      expect(result.status, result.stdout).toBe(0)
      expect(result.json().results.map((r: {status: string}) => r.status)).toEqual(['already-installed', 'already-installed'])
      expect(read(join(sb.project, 'loadout.lock'))).toBe(firstLock)
    })

    it('--frozen fails, naming the plugin, when loadout.json declares one the lock lacks; without it the lock grows', async () => {
      const manifest = readJson(join(sb.project, 'loadout.json'))
      manifest.plugins['extra@acme'] = {version: '0.1.0'}
      writeFileSync(join(sb.project, 'loadout.json'), JSON.stringify(manifest, null, 2))
      const before = tree(sb.project, ['.git'])
      const frozen = await run(sb, ['install', '--frozen', '--yes', '--json'])
      expect(frozen.status).not.toBe(0)
      expect(jsonError(frozen).message).toMatch(/extra@acme.*not in loadout\.lock/)
      expect(tree(sb.project, ['.git'])).toEqual(before)
      const text = await run(sb, ['install', '--frozen', '--yes'])
      expect(text.status).not.toBe(0)
      expect(text.stderr).toContain('extra@acme')

      const loose = await run(sb, ['install', '--loose', '--yes', '--json'])
      expect(loose.status, loose.stdout).toBe(0)
      expect(read(join(sb.project, '.claude/skills/extra-skill/SKILL.md'))).toBe(EXTRA)
      expect(lockRecords(sb).map((r) => r.plugin)).toEqual(['extra@acme', 'notes@acme', 'toolkit@acme'])
      expect((await run(sb, ['install', '--frozen', '--json'])).status).toBe(0)
    })

    it('--frozen fails when a locked plugin would resolve to other content', async () => {
      const lock = readJson(join(sb.project, 'loadout.lock'))
      const saved = read(join(sb.project, 'loadout.lock'))
      lock.installs.find((r: LockRecord) => r.plugin === 'extra@acme').integrity = `sha256-${'0'.repeat(64)}`
      writeFileSync(join(sb.project, 'loadout.lock'), JSON.stringify(lock, null, 2))
      const frozen = await run(sb, ['install', '--frozen', '--json'])
      writeFileSync(join(sb.project, 'loadout.lock'), saved)
      expect(frozen.status).toBe(7)
      expect(jsonError(frozen).message).toMatch(/extra@acme resolves to different content/)
    })

    it('uninstall in project scope removes the files, the lock entry and the declaration', async () => {
      const result = await run(sb, ['uninstall', 'toolkit@acme', '--yes', '--json'])
      expect(result.status, result.stdout).toBe(0)
      expect(result.json().scope).toBe('project')
      expect(Object.keys(readJson(join(sb.project, 'loadout.json')).plugins)).toEqual(['extra@acme', 'notes@acme'])
      expect(lockRecords(sb).map((r) => r.plugin)).toEqual(['extra@acme', 'notes@acme'])
      expect(existsSync(join(sb.project, '.claude/skills/lint-rules'))).toBe(false)
      expect(existsSync(join(sb.project, '.mcp.json'))).toBe(false)
      expect(existsSync(join(sb.project, '.claude/settings.json'))).toBe(false)
      expect(read(join(sb.project, '.claude/skills/note-taking/SKILL.md'))).toBe(NOTES_V1)
      expect((await run(sb, ['verify'])).status).toBe(0)
    })
  })

  it('on another machine, a clone with only loadout.json and loadout.lock gets the same lock back', async () => {
    const clone = sandbox({git: true})
    for (const file of ['loadout.json', 'loadout.lock']) copyFileSync(join(sb.project, file), join(clone.project, file))
    const lockBefore = portable(sb)
    expect((await run(clone, ['marketplace', 'add', 'acme/market'])).status).toBe(0)
    const result = await run(clone, ['install', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(read(join(clone.project, '.claude/skills/note-taking/SKILL.md'))).toBe(NOTES_V1)
    expect(existsSync(join(clone.project, '.claude/skills/extra-skill/SKILL.md'))).toBe(true)
    expect(portable(clone)).toBe(lockBefore)
    expect(agentFolders(clone)).toEqual([])
  })
})
