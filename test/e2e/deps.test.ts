/**
 * Plugin dependencies and version ranges, end to end: a marketplace repository with
 * `{name}--v{version}` tags served by git http-backend over HTTPS on 127.0.0.1, and the built CLI.
 */
import {existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {checkout, commitFiles, git, headSha, makeRepo, makeServedRepo, syncServedRepo, tag, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'
import * as inProcess from './in-process.js'

const plugin = (name: string, version: string, dependencies?: unknown[], text = `${name} ${version}`): FileMap => ({
  [`plugins/${name}/.claude-plugin/plugin.json`]: JSON.stringify({name, version, ...(dependencies ? {dependencies} : {})}),
  [`plugins/${name}/skills/${name}-skill/SKILL.md`]: `---\nname: ${name}-skill\ndescription: The ${name} skill.\n---\n\n${text}\n`,
})
const entry = (name: string, version: string) => ({name, source: `./plugins/${name}`, version})
const catalog = (entries: Array<Record<string, unknown>>, extra: Record<string, unknown> = {metadata: {pluginRoot: './plugins'}}) => ({
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: entries, ...extra}),
})

let work: string
let server: GitHttpsServer
const tagged: Record<string, string> = {}
let served: {repo: string; bare: string}
const sandbox = sandboxes()

const envFor = (): NodeJS.ProcessEnv => ({...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`, LOADOUT_GIT_TIMEOUT: '20'})
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: envFor()})
const USER = ['--agent', 'universal', '--scope', 'user', '--yes']
const skillText = (sb: Sandbox, name: string) => readFileSync(join(sb.home, '.agents', 'skills', `${name}-skill`, 'SKILL.md'), 'utf8')
const hasSkill = (sb: Sandbox, name: string) => existsSync(join(sb.home, '.agents', 'skills', `${name}-skill`))
// no state file once nothing is installed
const state = (sb: Sandbox) => {
  const file = join(sb.home, '.config', 'loadout', 'state.json')
  return (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {installs: []}) as {installs: Array<Record<string, unknown> & {plugin: string}>}
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-deps-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  // e is defined by its entry (strict: false) and placed by metadata.pluginRoot
  const e = {name: 'e', source: 'e', strict: false, version: '1.0.0', dependencies: ['c']}
  const v1 = [...['a', 'b', 'c', 'd', 'x', 'y', 'z', 'w', 'q'].map((n) => entry(n, '1.0.0')), e]
  served = makeServedRepo(join(work, 'src'), root, 'acme/plugins', {
    ...catalog(v1),
    ...plugin('a', '1.0.0', [{name: 'b', version: '^1'}]),
    ...plugin('b', '1.0.0', ['c']),
    ...plugin('c', '1.0.0'),
    ...plugin('d', '1.0.0', ['c@acme']),
    ...plugin('x', '1.0.0', ['y']),
    ...plugin('y', '1.0.0', ['x']),
    ...plugin('z', '1.0.0', [{name: 'c', version: '^2'}]),
    ...plugin('w', '1.0.0', ['b', {name: 'c', version: '^2'}]),
    ...plugin('q', '1.0.0', ['c']),
    'plugins/e/skills/e-skill/SKILL.md': '---\nname: e-skill\ndescription: The e skill.\n---\n\ne 1.0.0\n',
  })
  for (const n of ['a', 'b', 'c', 'd']) tag(served.repo, `${n}--v1.0.0`)
  tagged['b@1.0.0'] = headSha(served.repo)
  commitFiles(served.repo, {...catalog(v1.map((e) => (e.name === 'b' ? entry('b', '1.1.0') : e))), ...plugin('b', '1.1.0', ['c'])}, 'b 1.1.0')
  tag(served.repo, 'b--v1.1.0', {message: 'b 1.1.0'})
  tagged['b@1.1.0'] = headSha(served.repo)
  commitFiles(served.repo, {...catalog(v1.map((e) => (e.name === 'b' ? entry('b', '2.0.0') : e))), ...plugin('b', '2.0.0', ['c'])}, 'b 2.0.0')
  tag(served.repo, 'b--v2.0.0')
  tagged['b@2.0.0'] = headSha(served.repo)
  syncServedRepo(served.bare)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

/**
 * A sandbox with the marketplace added: in-process (test/e2e/in-process.ts), since what the tests
 * check comes after; `marketplace add` through the CLI is marketplace-git.test.ts's to prove.
 */
const withMarketplace = async (options: {git?: boolean} = {}): Promise<Sandbox> => {
  const sb = sandbox(options)
  await inProcess.marketplaceAdd(inProcess.sandboxEnv(sb, envFor()), 'acme/plugins')
  return sb
}
/** `install <plugin> --agent universal --scope user --yes`, in-process: the state a test starts from (a failure throws). */
const installed = (sb: Sandbox, plugin: string) => inProcess.install(inProcess.sandboxEnv(sb, envFor()), [plugin], 'universal')

describe('dependencies', () => {
  it('installs a chain (a needs b ^1, b needs c) from tagged versions, recording who needs what', async () => {
    const sb = await withMarketplace()
    const result = await run(sb, ['install', 'a@acme', ...USER, '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    const json = result.json()
    expect(json.plugin).toBe('a@acme')
    expect(json.dependencies.map((d: {plugin: string; version: string}) => `${d.plugin} ${d.version}`)).toEqual(['c@acme 1.0.0', 'b@acme 1.1.0'])
    // b at ^1 is the 1.1.0 tag, not the catalog's current 2.0.0
    expect(skillText(sb, 'b')).toContain('b 1.1.0')
    expect(hasSkill(sb, 'a') && hasSkill(sb, 'c')).toBe(true)
    const records = state(sb).installs
    const b = records.find((r) => r.plugin === 'b@acme')!
    expect(b).toMatchObject({autoInstalled: true, dependencyOf: ['a@acme'], commit: tagged['b@1.1.0'], version: '1.1.0'})
    expect(records.find((r) => r.plugin === 'c@acme')).toMatchObject({autoInstalled: true, dependencyOf: ['b@acme']})
    expect(records.find((r) => r.plugin === 'a@acme')!.autoInstalled).toBeUndefined()
  })

  it('an entry that is the manifest (strict: false) under metadata.pluginRoot brings its dependencies too', async () => {
    const sb = await withMarketplace()
    const result = await run(sb, ['install', 'e@acme', ...USER, '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(result.json().dependencies.map((d: {plugin: string}) => d.plugin)).toEqual(['c@acme'])
    expect(skillText(sb, 'e')).toContain('e 1.0.0')
    expect(state(sb).installs.find((r) => r.plugin === 'c@acme')).toMatchObject({autoInstalled: true, dependencyOf: ['e@acme']})
  })

  it('when the plugin itself cannot be installed, the dependencies this run added are taken out again', async () => {
    const sb = await withMarketplace()
    // a hand-made skill where q's would go: loadout never overwrites what it did not write
    const mine = join(sb.home, '.agents', 'skills', 'q-skill')
    mkdirSync(mine, {recursive: true})
    writeFileSync(join(mine, 'SKILL.md'), '---\nname: q-skill\ndescription: mine\n---\nmine\n')
    const result = await run(sb, ['install', 'q@acme', ...USER, '--json'])
    expect(result.status, result.stdout).toBe(5)
    expect(hasSkill(sb, 'c')).toBe(false)
    expect(existsSync(join(sb.home, '.config', 'loadout', 'state.json')) ? state(sb).installs : []).toEqual([])
    expect(readFileSync(join(mine, 'SKILL.md'), 'utf8')).toContain('mine')
  })

  it('refuses a cycle, naming it, and writes nothing', async () => {
    const sb = await withMarketplace()
    const result = await run(sb, ['install', 'x@acme', ...USER, '--json'])
    expect(result.status).toBe(5)
    expect(jsonError(result).message).toContain('x@acme -> y@acme -> x@acme')
    expect(hasSkill(sb, 'x') || hasSkill(sb, 'y')).toBe(false)
  })

  it('refuses a range nothing satisfies, naming the chain, and writes nothing', async () => {
    const sb = await withMarketplace()
    const result = await run(sb, ['install', 'z@acme', ...USER, '--json'])
    expect(result.status).toBe(3)
    const error = jsonError(result)
    expect(error.message).toContain('z@acme -> c@acme@^2')
    expect(error.suggestions.join(' ')).toContain('1.0.0')
    expect(hasSkill(sb, 'z') || hasSkill(sb, 'b') || hasSkill(sb, 'c')).toBe(false)
  })

  it('refuses two ranges of one plugin that no single version satisfies, naming both paths', async () => {
    const sb = await withMarketplace()
    const result = await run(sb, ['install', 'w@acme', ...USER, '--json'])
    expect(result.status).toBe(5)
    expect(jsonError(result).message).toBe('w@acme -> c@acme needs ^2, but w@acme -> b@acme -> c@acme resolved c@acme to 1.0.0')
    expect(hasSkill(sb, 'w') || hasSkill(sb, 'b') || hasSkill(sb, 'c')).toBe(false)
  })

  it('uninstall removes only the dependencies nothing else needs; prune removes the rest later', async () => {
    const sb = await withMarketplace()
    await installed(sb, 'a@acme')
    const d = await run(sb, ['install', 'd@acme', ...USER, '--json'])
    expect(d.status, d.stderr).toBe(0)
    expect(state(sb).installs.find((r) => r.plugin === 'c@acme')!.dependencyOf).toEqual(['b@acme', 'd@acme'])

    const gone = await run(sb, ['uninstall', 'a@acme', '--scope', 'user', '--yes', '--json'])
    expect(gone.status, gone.stderr).toBe(0)
    expect(gone.json().dependencies.removed).toEqual(['b@acme'])
    expect(hasSkill(sb, 'a') || hasSkill(sb, 'b')).toBe(false)
    expect(hasSkill(sb, 'c')).toBe(true) // d still needs it

    const kept = await run(sb, ['uninstall', 'd@acme', '--scope', 'user', '--yes', '--keep-dependencies', '--json'])
    expect(kept.status).toBe(0)
    expect(hasSkill(sb, 'c')).toBe(true)
    const dry = await run(sb, ['prune', '--scope', 'user', '--dry-run', '--json'])
    expect(dry.json()).toMatchObject({removed: ['c@acme'], dryRun: true})
    expect(hasSkill(sb, 'c')).toBe(true)
    const noTty = await run(sb, ['prune', '--scope', 'user', '--json'])
    expect(noTty.status).toBe(8)
    const pruned = await run(sb, ['prune', '--scope', 'user', '--yes', '--json'])
    expect(pruned.status).toBe(0)
    expect(pruned.json().removed).toEqual(['c@acme'])
    expect(hasSkill(sb, 'c')).toBe(false)
    expect(state(sb).installs).toEqual([])
    expect((await run(sb, ['prune', '--scope', 'user', '--yes', '--json'])).json().removed).toEqual([])
  })

  it('a dependency is not uninstalled from under the plugin that needs it (exit 5, naming it) unless --force', async () => {
    const sb = await withMarketplace()
    await installed(sb, 'a@acme')
    for (const dry of [['--dry-run'], []]) {
      const refused = await run(sb, ['uninstall', 'b@acme', '--scope', 'user', '--yes', ...dry, '--json'])
      expect(refused.status, refused.stdout).toBe(5)
      expect(jsonError(refused)).toMatchObject({code: 'dependency-needed', details: {dependents: ['a@acme']}})
      expect(jsonError(refused).message).toContain('a@acme')
      expect(hasSkill(sb, 'b')).toBe(true)
    }
    const forced = await run(sb, ['uninstall', 'b@acme', '--scope', 'user', '--yes', '--force', '--json'])
    expect(forced.status, forced.stdout).toBe(0)
    expect(hasSkill(sb, 'b')).toBe(false)
  })

  it('an explicitly installed plugin is never pruned, even when a dependent needed it', async () => {
    const sb = await withMarketplace()
    await installed(sb, 'c@acme')
    await installed(sb, 'b@acme@^1')
    expect(state(sb).installs.find((r) => r.plugin === 'c@acme')).toMatchObject({dependencyOf: ['b@acme']})
    const gone = await run(sb, ['uninstall', 'b@acme', '--scope', 'user', '--yes', '--json'])
    expect(gone.json().dependencies).toBeUndefined()
    expect(hasSkill(sb, 'c')).toBe(true)
  })
})

describe('version ranges', () => {
  it('picks the highest tag matching the range and the lock pins its commit', async () => {
    const sb = await withMarketplace({git: true})
    const result = await run(sb, ['install', 'b@acme@~1.0', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(result.json()).toMatchObject({version: '1.0.0', commit: tagged['b@1.0.0']})
    const caret = await run(sb, ['install', 'b@acme@^1', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(caret.json()).toMatchObject({version: '1.1.0', commit: tagged['b@1.1.0']})
    const lock = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8')) as {installs: Array<{plugin: string; commit: string; version: string}>}
    expect(lock.installs.find((r) => r.plugin === 'b@acme')).toMatchObject({commit: tagged['b@1.1.0'], version: '1.1.0'})
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'b-skill', 'SKILL.md'), 'utf8')).toContain('b 1.1.0')
    // an exact version still works, and one that is not tagged is "not found" with the versions listed
    const exact = await run(sb, ['install', 'b@acme@2.0.0', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(exact.json()).toMatchObject({version: '2.0.0', commit: tagged['b@2.0.0']})
    const missing = await run(sb, ['install', 'b@acme@^3', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(missing.status).toBe(3)
    expect(jsonError(missing).suggestions.join(' ')).toContain('2.0.0, 1.1.0, 1.0.0')
    const bad = await run(sb, ['install', 'b@acme@not a range', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(bad.status).toBe(2)
  })

  it('name@range without a marketplace takes the range the way name@marketplace@range does (it was an exact match on the catalog entry, and ^1 a marketplace name)', async () => {
    const sb = await withMarketplace({git: true})
    const caret = await run(sb, ['install', 'b@^1', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(caret.status, caret.stderr + caret.stdout).toBe(0)
    expect(caret.json()).toMatchObject({plugin: 'b@acme', version: '1.1.0', commit: tagged['b@1.1.0']})
    const tilde = await run(sb, ['install', 'b@~1.0', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(tilde.json()).toMatchObject({version: '1.0.0', commit: tagged['b@1.0.0']})
    const exactTagged = await run(sb, ['install', 'b@1.1.0', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(exactTagged.json()).toMatchObject({version: '1.1.0', commit: tagged['b@1.1.0']})
    const empty = await run(sb, ['install', 'b@@^1', '--agent', 'universal', '--scope', 'project', '--yes', '--json'])
    expect(empty.status).toBe(2)
    expect(jsonError(empty).code).toBe('bad-plugin-spec')
  })
})

describe('update within ranges', () => {
  it('a dependency installed for ^1 updates to the newest 1.x tag, never to 2.0.0', async () => {
    const sb = await withMarketplace()
    await installed(sb, 'a@acme')
    expect(state(sb).installs.find((r) => r.plugin === 'b@acme')).toMatchObject({range: '^1', version: '1.1.0'})
    const current = await run(sb, ['update', '--scope', 'user', '--yes', '--json'])
    expect(current.status, current.stderr + current.stdout).toBe(0)
    expect(current.json().updates.find((u: {plugin: string}) => u.plugin === 'b@acme').status).toBe('current')
    expect((await run(sb, ['outdated', '--json'])).json().rows.find((r: {plugin: string}) => r.plugin === 'b@acme')).toMatchObject({
      range: '^1',
      outdated: false,
      wanted: {version: '1.1.0'},
    })
    // a 1.2.0 released from a maintenance branch
    checkout(served.repo, 'release-1.x', true)
    git(served.repo, ['reset', '-q', '--hard', 'b--v1.1.0'])
    commitFiles(served.repo, {...plugin('b', '1.2.0', ['c'])}, 'b 1.2.0')
    tag(served.repo, 'b--v1.2.0')
    tagged['b@1.2.0'] = headSha(served.repo)
    checkout(served.repo, 'main')
    syncServedRepo(served.bare)
    const outdated = (await run(sb, ['outdated', '--json'])).json().rows.find((r: {plugin: string}) => r.plugin === 'b@acme')
    expect(outdated).toMatchObject({
      range: '^1',
      outdated: true,
      current: {version: '1.1.0'},
      wanted: {version: '1.2.0', commit: tagged['b@1.2.0']},
      latest: {version: '2.0.0'},
    })
    const updated = await run(sb, ['update', '--scope', 'user', '--yes', '--json'])
    expect(updated.status, updated.stderr + updated.stdout).toBe(0)
    expect(updated.json().updates.find((u: {plugin: string}) => u.plugin === 'b@acme')).toMatchObject({
      status: 'updated',
      to: {version: '1.2.0', commit: tagged['b@1.2.0']},
    })
    expect(skillText(sb, 'b')).toContain('b 1.2.0')
    expect(state(sb).installs.find((r) => r.plugin === 'b@acme')).toMatchObject({range: '^1', autoInstalled: true, dependencyOf: ['a@acme']})
  })
})

describe('plugin tag', () => {
  it('tags the commit as {name}--v{version}, refusing a dirty tree, an existing tag and a missing version', async () => {
    const sb = sandbox()
    const repo = join(sb.dir, 'market')
    makeRepo(repo, {
      ...catalog([entry('b', '1.2.0')]),
      ...plugin('b', '1.2.0'),
      'plugins/nov/.claude-plugin/plugin.json': JSON.stringify({name: 'nov'}),
      'plugins/nov/skills/nov/SKILL.md': '---\nname: nov\ndescription: x\n---\nx\n',
    })
    const dry = await loadout(sb, ['plugin', 'tag', join(repo, 'plugins', 'b'), '--dry-run', '--json'])
    expect(dry.status, dry.stderr + dry.stdout).toBe(0)
    expect(git(repo, ['tag', '--list'])).toBe('')
    const made = await loadout(sb, ['plugin', 'tag', '--json'], {cwd: join(repo, 'plugins', 'b')})
    expect(made.status, made.stderr + made.stdout).toBe(0)
    expect(made.json()).toMatchObject({plugin: 'b', version: '1.2.0', tag: 'b--v1.2.0', commit: headSha(repo), dryRun: false})
    expect(git(repo, ['rev-parse', 'b--v1.2.0^{commit}'])).toBe(headSha(repo))
    const again = await loadout(sb, ['plugin', 'tag', join(repo, 'plugins', 'b'), '--json'])
    expect(again.status).toBe(5)
    expect(jsonError(again).code).toBe('tag-exists')
    const noVersion = await loadout(sb, ['plugin', 'tag', join(repo, 'plugins', 'nov'), '--json'])
    expect(noVersion.status).toBe(4)
    writeFileSync(join(repo, 'plugins', 'b', 'NOTES.md'), 'wip\n')
    commitFiles(repo, {'plugins/b/.claude-plugin/plugin.json': JSON.stringify({name: 'b', version: '1.3.0'})})
    writeFileSync(join(repo, 'plugins', 'b', 'draft.txt'), 'not committed\n')
    const dirty = await loadout(sb, ['plugin', 'tag', join(repo, 'plugins', 'b'), '--json'])
    expect(dirty.status).toBe(5)
    expect(jsonError(dirty).code).toBe('tree-dirty')
    expect(git(repo, ['tag', '--list'])).toBe('b--v1.2.0')
  })
})

describe('an update that drops a dependency', () => {
  it('lets prune find the dropped dependency, and list shows the new version', async () => {
    const sb = await withMarketplace()
    await installed(sb, 'q@acme')
    expect(state(sb).installs.find((r) => r.plugin === 'c@acme')).toMatchObject({autoInstalled: true, dependencyOf: ['q@acme']})
    const v1 = JSON.parse(readFileSync(join(served.repo, '.claude-plugin/marketplace.json'), 'utf8'))
    v1.plugins = v1.plugins.map((e: {name: string}) => (e.name === 'q' ? entry('q', '1.1.0') : e))
    commitFiles(served.repo, {'.claude-plugin/marketplace.json': JSON.stringify(v1), ...plugin('q', '1.1.0')}, 'q 1.1.0 needs nothing')
    syncServedRepo(served.bare)
    const updated = await run(sb, ['update', 'q@acme', '--scope', 'user', '--yes', '--json'])
    expect(updated.status, updated.stderr + updated.stdout).toBe(0)
    expect(updated.json().updates[0]).toMatchObject({plugin: 'q@acme', status: 'updated', to: {version: '1.1.0'}})
    // list through the fast path and through oclif (LOADOUT_NO_FAST), as JSON and as text: q is 1.1.0 everywhere
    for (const vars of [{}, {LOADOUT_NO_FAST: '1'}]) {
      const listed = await loadout(sb, ['list', '--json'], {env: {...envFor(), ...vars}})
      expect(listed.status, listed.stderr).toBe(0)
      const rows = listed.json().installs as Array<{plugin: string; version?: string}>
      expect(rows.filter((r) => r.plugin === 'q@acme').map((r) => r.version)).toEqual(['1.1.0'])
      expect(rows.filter((r) => r.plugin === 'c@acme').map((r) => r.version)).toEqual(['1.0.0'])
      const text = await loadout(sb, ['list'], {env: {...envFor(), ...vars}})
      const qLine = text.stdout.split('\n').find((l) => l.includes('q@acme'))
      expect(qLine, text.stdout).toMatch(/1\.1\.0/)
      expect(qLine).not.toMatch(/1\.0\.0/)
    }
    const dry = await run(sb, ['prune', '--scope', 'user', '--dry-run', '--json'])
    expect(dry.json()).toMatchObject({removed: ['c@acme'], dryRun: true})
  })

  it(
    "a chain (a needs b needs c) whose root drops b: list shows the new a, and prune --dry-run lists b and c (it refused c as b's dependency)",
    {timeout: 240_000},
    async () => {
      const sb = await withMarketplace()
      await installed(sb, 'a@acme')
      const before = JSON.parse(readFileSync(join(served.repo, '.claude-plugin/marketplace.json'), 'utf8'))
      const head = headSha(served.repo)
      before.plugins = before.plugins.map((e: {name: string}) => (e.name === 'a' ? entry('a', '1.1.0') : e))
      commitFiles(served.repo, {'.claude-plugin/marketplace.json': JSON.stringify(before), ...plugin('a', '1.1.0')}, 'a 1.1.0 needs nothing')
      syncServedRepo(served.bare)
      try {
        const updated = await run(sb, ['update', 'a@acme', '--scope', 'user', '--yes', '--json'])
        expect(updated.status, updated.stderr + updated.stdout).toBe(0)
        for (const vars of [{}, {LOADOUT_NO_FAST: '1'}]) {
          const rows = (await loadout(sb, ['list', '--json'], {env: {...envFor(), ...vars}})).json().installs as Array<{plugin: string; version?: string}>
          const versions = Object.fromEntries(rows.map((r) => [r.plugin, r.version]))
          // b is whatever 1.x the range took (an earlier test may have tagged a newer one)
          expect(versions).toEqual({'a@acme': '1.1.0', 'b@acme': expect.stringMatching(/^1\./), 'c@acme': '1.0.0'})
        }
        const dry = await run(sb, ['prune', '--scope', 'user', '--dry-run', '--json'])
        expect(dry.status, dry.stdout + dry.stderr).toBe(0)
        expect(dry.json().removed, dry.stdout).toEqual(['b@acme', 'c@acme'])
      } finally {
        git(served.repo, ['reset', '-q', '--hard', head])
        syncServedRepo(served.bare)
      }
    },
  )
})
