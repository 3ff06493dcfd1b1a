import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {resolveCommit, updateMirror} from '../../src/core/kernel/sources/git.js'
import {gitContext, runGit} from '../../src/core/kernel/sources/git-process.js'
import {localGitCommit} from '../../src/core/ops/install/local-commit.js'

const base = mkdtempSync(join(tmpdir(), 'loadout-git-head-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
}
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, {cwd, env: gitEnv, encoding: 'utf8'}).trim()

const env: Environment = {
  vars: {PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'},
  home: base,
  cwd: base,
  platform: process.platform,
  interactive: false,
}
const context = gitContext(env, join(base, 'cache'), true)

let count = 0
/** A work repository with one commit on `branch`, and a bare mirror of it made by loadout. */
const setup = async (branch = 'main') => {
  const dir = join(base, `r${++count}`)
  const work = join(dir, 'work')
  mkdirSync(work, {recursive: true})
  git(work, 'init', '-q', '-b', branch)
  writeFileSync(join(work, 'a.txt'), 'one\n')
  git(work, 'add', '-A')
  git(work, 'commit', '-q', '-m', 'one')
  const mirror = join(dir, 'mirror')
  await updateMirror(context, `file://${work}`, mirror)
  return {work, mirror, url: `file://${work}`}
}

const commit = (work: string, text: string) => {
  writeFileSync(join(work, 'a.txt'), text)
  git(work, 'commit', '-q', '-am', text)
  return git(work, 'rev-parse', 'HEAD')
}

describe('resolveCommit of HEAD', () => {
  it('answers what git rev-parse answers, from packed refs and then from a newer loose ref', async () => {
    const {work, mirror, url} = await setup('trunk')
    // a fresh clone packs its refs
    expect(readFileSync(join(mirror, 'packed-refs'), 'utf8')).toContain('refs/heads/trunk')
    expect(await resolveCommit(context, mirror, undefined, url)).toBe(git(work, 'rev-parse', 'HEAD'))
    // a fetch writes the moved branch as a loose ref; the packed line still names the old commit
    const second = commit(work, 'two\n')
    await updateMirror(context, url, mirror)
    expect(await resolveCommit(context, mirror, undefined, url)).toBe(second)
    expect(await resolveCommit(context, mirror, undefined, url)).toBe(git(mirror, 'rev-parse', 'HEAD'))
  })

  it('does not take a longer branch name that ends the same for HEAD', async () => {
    const {work, mirror, url} = await setup('main')
    git(work, 'checkout', '-q', '-b', 'feature/main')
    const other = commit(work, 'other\n')
    git(work, 'checkout', '-q', 'main')
    rmSync(mirror, {recursive: true, force: true})
    await updateMirror(context, url, mirror)
    const head = await resolveCommit(context, mirror, undefined, url)
    expect(head).not.toBe(other)
    expect(head).toBe(git(work, 'rev-parse', 'main'))
  })

  it('a HEAD naming a missing branch is "not found", as git says', async () => {
    const {mirror, url} = await setup()
    writeFileSync(join(mirror, 'HEAD'), 'ref: refs/heads/gone\n')
    await expect(resolveCommit(context, mirror, undefined, url)).rejects.toMatchObject({code: 'ref-not-found'})
  })

  it('a HEAD with a name that climbs out of the mirror is left to git, which refuses it', async () => {
    const {mirror, url} = await setup()
    const outside = join(mirror, '..', 'refs', 'heads')
    mkdirSync(outside, {recursive: true})
    writeFileSync(join(outside, 'x'), `${'a'.repeat(40)}\n`)
    writeFileSync(join(mirror, 'HEAD'), 'ref: refs/heads/../../../refs/heads/x\n')
    await expect(resolveCommit(context, mirror, undefined, url)).rejects.toMatchObject({code: 'ref-not-found'})
  })
})

describe('runGit', () => {
  it("returns stdout, and fails with git's own message", async () => {
    const {mirror} = await setup()
    expect((await runGit(context, mirror, ['rev-parse', '--is-bare-repository'], {GIT_DIR: mirror})).trim()).toBe('true')
    await expect(runGit(context, mirror, ['rev-parse', '--verify', 'no-such-ref'], {GIT_DIR: mirror})).rejects.toMatchObject({
      code: 'git-failed',
      message: expect.stringMatching(/Needed a single revision/),
    })
  })
})

describe('localGitCommit', () => {
  it("reads a work tree's commit on a branch, after a new commit, and when detached (asked of git)", async () => {
    const {work} = await setup('main')
    mkdirSync(join(work, 'plugins', 'p'), {recursive: true})
    const folder = join(work, 'plugins', 'p')
    expect(await localGitCommit(folder, env)).toBe(git(work, 'rev-parse', 'HEAD'))
    const second = commit(work, 'two\n')
    expect(await localGitCommit(folder, env)).toBe(second)
    git(work, 'pack-refs', '--all')
    const third = commit(work, 'three\n')
    expect(await localGitCommit(folder, env)).toBe(third)
    git(work, 'checkout', '-q', '--detach', second)
    expect(await localGitCommit(folder, env)).toBe(second)
  })
})
