/**
 * A plugin installed in a project from a git repository given as a path outside the project: the lock
 * records the path as typed (absolute: it is machine-specific) and the repository's commit. A
 * teammate's `install --frozen` on a machine where that path holds the repository installs the locked
 * commit, even after the repository moved on; where the path does not exist, it fails naming it.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {commitFiles, headSha, makeRepo, tag} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

const skill = (version: string) => ({
  '.claude-plugin/plugin.json': JSON.stringify({name: 'lore', version}),
  'skills/lore/SKILL.md': `---\nname: lore\ndescription: Local lore ${version}.\n---\n\nLore ${version}.\n`,
})

describe('a git repository given as a path', () => {
  it('locks its commit, and install --frozen installs that commit after the repository moved on', async () => {
    const a = sandbox({git: true})
    const repo = join(a.dir, 'lore-repo')
    makeRepo(repo, skill('1.0.0'))
    const first = headSha(repo)
    const installed = await loadout(a, ['install', repo, '--agent', 'codex', '--yes', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    expect(installed.json()).toMatchObject({commit: first, source: repo})
    const lock = readFileSync(join(a.project, 'loadout.lock'), 'utf8')
    expect(lock).toContain(first)
    commitFiles(repo, skill('2.0.0'), 'lore 2')

    // a teammate's clone on a machine with the repository at the same path
    const b = sandbox({git: true})
    for (const file of ['loadout.json', 'loadout.lock']) copyFileSync(join(a.project, file), join(b.project, file))
    const frozen = await loadout(b, ['install', '--frozen', '--yes', '--json'])
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
    expect(frozen.json().results.map((r: {status: string; commit?: string}) => [r.status, r.commit])).toEqual([['installed', first]])
    expect(readFileSync(join(b.project, '.agents', 'skills', 'lore', 'SKILL.md'), 'utf8')).toContain('Lore 1.0.0.')
    expect(readFileSync(join(b.project, 'loadout.lock'), 'utf8')).toBe(lock)

    // where the path holds nothing, the install fails naming it
    const c = sandbox({git: true})
    const moved = readFileSync(join(a.project, 'loadout.json'), 'utf8').replaceAll(repo, join(c.dir, 'elsewhere'))
    writeFileSync(join(c.project, 'loadout.json'), moved)
    writeFileSync(join(c.project, 'loadout.lock'), lock.replaceAll(repo, join(c.dir, 'elsewhere')))
    const missing = await loadout(c, ['install', '--frozen', '--yes', '--json'])
    expect(missing.status).toBe(3)
    expect(jsonError(missing)).toMatchObject({code: 'plugin-folder-missing', message: expect.stringContaining(join(c.dir, 'elsewhere'))})
  })

  it('marketplace add <path> --ref reads the repository at that ref, and its plugins install from there', async () => {
    const sb = sandbox()
    const repo = join(sb.dir, 'lore-market')
    const market = (version: string) => ({
      '.claude-plugin/marketplace.json': JSON.stringify({name: 'lm', owner: {name: 'Me'}, plugins: [{name: 'lore', source: './plugins/lore', version}]}),
      ...Object.fromEntries(Object.entries(skill(version)).map(([path, text]) => [`plugins/lore/${path}`, text])),
    })
    makeRepo(repo, market('1.0.0'))
    tag(repo, 'v1')
    const v1 = headSha(repo)
    commitFiles(repo, market('2.0.0'), 'lore 2')
    const added = await loadout(sb, ['marketplace', 'add', repo, '--ref', 'v1', '--scope', 'user', '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    expect(added.json()).toMatchObject({name: 'lm', commit: v1})
    const installed = await loadout(sb, ['install', 'lore@lm', '--agent', 'codex', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(installed.json()).toMatchObject({version: '1.0.0', commit: v1})
    expect(readFileSync(join(sb.home, '.agents', 'skills', 'lore', 'SKILL.md'), 'utf8')).toContain('Lore 1.0.0.')
    // a catalog file given by path has no ref to honour: still refused
    const file = await loadout(sb, ['marketplace', 'add', join(repo, '.claude-plugin', 'marketplace.json'), '--ref', 'v1', '--json'])
    expect(file.status).toBe(2)
    expect(jsonError(file).code).toBe('ref-not-allowed')
  })

  it('in a project, loadout.json declares the path and the ref, never the file:// address; a clone elsewhere is refused by name', async () => {
    const a = sandbox({git: true})
    const repo = join(a.dir, 'lore-market')
    makeRepo(repo, {
      '.claude-plugin/marketplace.json': JSON.stringify({name: 'lm', owner: {name: 'Me'}, plugins: [{name: 'lore', source: './plugins/lore'}]}),
      ...Object.fromEntries(Object.entries(skill('1.0.0')).map(([path, text]) => [`plugins/lore/${path}`, text])),
    })
    tag(repo, 'v1')
    const added = await loadout(a, ['marketplace', 'add', repo, '--ref', 'v1', '--scope', 'project', '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    const declared = JSON.parse(readFileSync(join(a.project, 'loadout.json'), 'utf8'))
    expect(declared.marketplaces.lm).toEqual({source: repo, ref: 'v1'})
    const installed = await loadout(a, ['install', 'lore@lm', '--agent', 'codex', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    for (const command of [
      ['list', '--json'],
      ['verify', '--json'],
    ])
      expect((await loadout(a, command)).status).toBe(0)

    // a teammate's clone: the repository is a folder outside the project, which loadout.json may not declare
    const b = sandbox({git: true})
    for (const file of ['loadout.json', 'loadout.lock']) copyFileSync(join(a.project, file), join(b.project, file))
    const teammate = await loadout(b, ['install', '--agent', 'codex', '--yes', '--json'])
    expect(teammate.status).toBe(4)
    expect(jsonError(teammate)).toMatchObject({
      code: 'declared-marketplace-outside',
      suggestions: [expect.stringContaining(`${repo} --ref v1 --scope project`)],
    })
  })
})
