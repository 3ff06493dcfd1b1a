/**
 * Every git process goes through runGit, on simple-git: its guards against options and variables
 * that run another program stay on, and the hardening loadout adds (no hooks, no fsmonitor, the
 * protocol allowlist, the environment allowlist) holds against a user config that asks for the
 * opposite. Each program a test offers git would create a marker file if it ran.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeEach, describe, expect, it} from 'vitest'
import {loadoutPaths, type Environment} from '../../src/core/kernel/env/environment.js'
import {descendsFrom} from '../../src/core/kernel/resolve/history.js'
import {cachedTree, gitCacheDir, resolveCommit, updateMirror} from '../../src/core/kernel/sources/git.js'
import {gitContext, runGit} from '../../src/core/kernel/sources/git-process.js'
import {gitSaying} from '../support/git-said.js'

const base = mkdtempSync(join(tmpdir(), 'loadout-git-process-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

const markers = join(base, 'markers')
/** A shell script that leaves a marker named `name` when something runs it. */
const program = (name: string): string => {
  const file = join(base, 'bin', name)
  mkdirSync(join(base, 'bin'), {recursive: true})
  writeFileSync(file, `#!/bin/sh\nmkdir -p '${markers}'\ntouch '${join(markers, name)}'\n`)
  chmodSync(file, 0o755)
  return file
}
const ran = (): string[] => (existsSync(markers) ? readdirSync(markers).sort() : [])
beforeEach(() => rmSync(markers, {recursive: true, force: true}))

const authoring = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
}
const work = join(base, 'work')
mkdirSync(work)
execFileSync('git', ['init', '-q', '-b', 'main'], {cwd: work, env: authoring})
writeFileSync(join(work, 'a.txt'), 'one\n')
execFileSync('git', ['add', '-A'], {cwd: work, env: authoring})
execFileSync('git', ['commit', '-q', '-m', 'one'], {cwd: work, env: authoring})
const url = `file://${work}`

/** A user's global git config that asks for every program git can be told to run on a checkout. */
const hooks = join(base, 'user-hooks')
mkdirSync(hooks)
for (const hook of ['reference-transaction', 'post-checkout', 'pre-auto-gc']) {
  writeFileSync(join(hooks, hook), `#!/bin/sh\nexec '${program(hook)}'\n`)
  chmodSync(join(hooks, hook), 0o755)
}
const userConfig = join(base, 'gitconfig')
writeFileSync(
  userConfig,
  `[core]\n\thooksPath = ${hooks}\n\tfsmonitor = ${program('fsmonitor')}\n\taskPass = ${program('askpass')}\n[protocol]\n\tallow = always\n`,
)

const envWith = (vars: Record<string, string>): Environment => ({
  vars: {PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: userConfig, ...vars},
  home: base,
  cwd: base,
  platform: process.platform,
  interactive: false,
})
const env = envWith({})

describe("simple-git's guards stay on", () => {
  const context = gitContext(env, join(base, 'cache'), true, 'https://127.0.0.1:9/x.git')
  it.each([
    ['--upload-pack', ['clone', `--upload-pack=${program('upload-pack')}`, '--', url, join(base, 'c1')], /allowUnsafePack/],
    ['-c core.sshCommand', ['-c', `core.sshCommand=${program('ssh')}`, 'ls-remote', '--', 'ssh://127.0.0.1:9/x.git'], /allowUnsafeSshCommand/],
    ['-c core.pager', ['-c', `core.pager=${program('pager')}`, 'log', '-1'], /allowUnsafePager/],
    ['-c protocol.allow', ['-c', 'protocol.ext.allow=always', 'ls-remote', '--', `ext::${program('ext')}`], /allowUnsafeProtocolOverride/],
    ['--template', ['clone', `--template=${hooks}`, '--', url, join(base, 'c2')], /allowUnsafeTemplateDir/],
  ])('refuses %s before git starts', async (_, args, guard) => {
    const error = await runGit(context, work, args).catch((e: unknown) => e)
    expect(error).toMatchObject({code: 'git-refused', message: expect.stringMatching(guard)})
    expect(ran()).toEqual([])
    expect(existsSync(join(base, 'c1')) || existsSync(join(base, 'c2'))).toBe(false)
  })

  it.each([
    ['GIT_EDITOR', /allowUnsafeEditor/],
    ['GIT_SSH_COMMAND', /allowUnsafeSshCommand/],
  ])('refuses a variable that names a program (%s), even one loadout passes itself', async (name, guard) => {
    const https = gitContext(env, join(base, 'cache'), false, 'https://127.0.0.1:9/x.git')
    await expect(runGit(https, work, ['--version'], {[name]: program('editor')})).rejects.toMatchObject({
      code: 'git-refused',
      message: expect.stringMatching(guard),
    })
    expect(ran()).toEqual([])
  })
})

describe('the hardening holds against the user config asking for the opposite', () => {
  it('clones, fetches and checks out with no hook, fsmonitor or askpass run, and the stray variables left out', async () => {
    const strays = envWith({GIT_DIR: join(base, 'elsewhere'), GIT_ASKPASS: program('env-askpass'), EDITOR: program('env-editor'), PAGER: program('env-pager')})
    const context = gitContext(strays, join(base, 'cache'), true, url)
    const repo = join(base, 'cache', 'r1')
    expect(await updateMirror(context, url, join(repo, 'mirror'))).toBe('cloned')
    expect(await updateMirror(context, url, join(repo, 'mirror'))).toBe('fetched')
    const head = execFileSync('git', ['rev-parse', 'HEAD'], {cwd: work, env: authoring, encoding: 'utf8'}).trim()
    const tree = await cachedTree(context, repo, head)
    expect(readdirSync(tree)).toEqual(['a.txt'])
    expect(ran()).toEqual([])
  })

  it('keeps to the protocol allowlist when the user config allows every protocol', async () => {
    // no remote named: only a file:// remote loadout made from a path opens the file transport
    const context = gitContext(env, join(base, 'cache'), false)
    await expect(updateMirror(context, url, join(base, 'cache', 'r2', 'mirror'))).rejects.toMatchObject({code: 'git-protocol-refused'})
    await expect(runGit(context, base, ['ls-remote', '--', `ext::${program('ext')}`])).rejects.toMatchObject({code: 'git-protocol-refused'})
    expect(ran()).toEqual([])
  })
})

describe('failures', () => {
  const context = gitContext(env, join(base, 'cache'), true)
  it('a non-zero exit is a failure even when git printed nothing', async () => {
    await expect(runGit(context, work, ['rev-parse', '--quiet', '--verify', 'refs/tags/none'])).rejects.toMatchObject({code: 'git-failed'})
  })

  it('git missing from PATH says so, with no stack trace', async () => {
    const error = await runGit(gitContext(envWith({PATH: join(base, 'empty')}), join(base, 'cache')), work, ['--version']).catch((e: unknown) => e)
    expect(error).toMatchObject({code: 'git-failed', exitStatus: 6, message: 'git --version failed: git could not run: spawn git ENOENT'})
  })
})

describe('git says what it did', () => {
  // simple-git waits 50 ms more after a process that printed nothing, on every command an install runs
  const saying = gitSaying(join(base, 'saying'))

  it('in a clone, a fetch, the checkout of a whole tree or of one folder, and the ancestry of two commits', async () => {
    const env = envWith({PATH: saying.path, LOADOUT_CACHE_DIR: join(base, 'said-cache')})
    const repo = gitCacheDir(loadoutPaths(env).cache, url)
    const context = gitContext(env, loadoutPaths(env).cache, true, url)
    const head = (): string => execFileSync('git', ['rev-parse', 'HEAD'], {cwd: work, env: authoring, encoding: 'utf8'}).trim()
    const first = head()
    expect(await updateMirror(context, url, join(repo, 'mirror'))).toBe('cloned')
    writeFileSync(join(work, 'b.txt'), 'two\n')
    mkdirSync(join(work, 'plugins', 'a'), {recursive: true})
    writeFileSync(join(work, 'plugins', 'a', 'c.txt'), 'three\n')
    mkdirSync(join(work, 'docs'))
    writeFileSync(join(work, 'docs', 'd.txt'), 'four\n')
    execFileSync('git', ['add', '-A'], {cwd: work, env: authoring})
    execFileSync('git', ['commit', '-q', '-m', 'two'], {cwd: work, env: authoring})
    const second = head()
    expect(await updateMirror(context, url, join(repo, 'mirror'))).toBe('fetched')
    expect(await resolveCommit(context, join(repo, 'mirror'), second, url)).toBe(second)
    expect(readdirSync(await cachedTree(context, repo, second)).sort()).toEqual(['a.txt', 'b.txt', 'docs', 'plugins'])
    const folder = await cachedTree(context, repo, second, ['./plugins/a'])
    expect(readdirSync(folder)).toEqual(['plugins'])
    expect(readdirSync(join(folder, 'plugins', 'a'))).toEqual(['c.txt'])
    const folders = await cachedTree(context, repo, second, ['plugins/a/', 'docs', 'missing'])
    expect(readdirSync(folders).sort()).toEqual(['docs', 'plugins'])
    expect(readdirSync(join(folders, 'docs'))).toEqual(['d.txt'])
    expect(await descendsFrom(url, first, second, env)).toBe(true)
    expect(await descendsFrom(url, second, first, env)).toBe(false)
    expect(await descendsFrom(url, first, '0'.repeat(40), env)).toBe(false)
    const commands = saying.said()
    expect(commands.map((c) => c.command)).toEqual([
      'clone',
      'fetch',
      'cat-file',
      'read-tree',
      'cat-file',
      'read-tree',
      'cat-file',
      'cat-file',
      'cat-file',
      'read-tree',
      'read-tree',
      'merge-base',
      'merge-base',
      'merge-base',
    ])
    expect(commands.filter((c) => c.bytes === 0)).toEqual([])
    // a file among the paths is checked out with the folders: git checkout, which prints nothing
    const mixed = await cachedTree(context, repo, second, ['a.txt', 'plugins/a'])
    expect(readdirSync(mixed).sort()).toEqual(['a.txt', 'plugins'])
    expect(readdirSync(join(mixed, 'plugins', 'a'))).toEqual(['c.txt'])
  })

  it('in a partial clone, its blobs fetched before the checkout of one folder', async () => {
    for (const [key, value] of [
      ['uploadpack.allowFilter', 'true'],
      ['uploadpack.allowAnySHA1InWant', 'true'],
    ])
      execFileSync('git', ['config', key, value], {cwd: work, env: authoring})
    const env = envWith({PATH: saying.path, LOADOUT_CACHE_DIR: join(base, 'partial-cache')})
    const repo = gitCacheDir(loadoutPaths(env).cache, url)
    const context = gitContext(env, loadoutPaths(env).cache, true, url)
    const head = execFileSync('git', ['rev-parse', 'HEAD'], {cwd: work, env: authoring, encoding: 'utf8'}).trim()
    saying.reset()
    expect(await updateMirror(context, url, join(repo, 'mirror'), {partial: true})).toBe('cloned')
    const folder = await cachedTree(context, repo, head, ['plugins/a'])
    expect(readdirSync(join(folder, 'plugins', 'a'))).toEqual(['c.txt'])
    const commands = saying.said()
    expect(commands.map((c) => c.command)).toEqual(['clone', 'cat-file', 'ls-tree', 'fetch', 'read-tree'])
    expect(commands.filter((c) => c.bytes === 0)).toEqual([])
  })
})
