/**
 * Hostile dependency trees, from a marketplace folder on this machine: a chain deeper than
 * MAX_DEPENDENCY_DEPTH or wider than MAX_DEPENDENCIES is refused before anything is written (each
 * dependency was fetched, read and kept in memory, and the chain copied at every level: no bound at
 * all), and a dependency on a host the policy refuses is refused before it is fetched, by the policy.
 */
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {MAX_DEPENDENCIES, MAX_DEPENDENCY_DEPTH} from '../../src/core/ops/install/tree.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
const USER = ['--agent', 'cursor', '--scope', 'user', '--yes', '--json']

const write = (file: string, value: unknown) => {
  mkdirSync(dirname(file), {recursive: true})
  writeFileSync(file, JSON.stringify(value))
}

/** A marketplace folder `deps` whose plugins are given as name -> dependencies (or a catalog source). */
const market = async (sb: Sandbox, plugins: Record<string, string[] | {source: unknown}>): Promise<void> => {
  const root = join(sb.dir, 'market')
  const entries = Object.entries(plugins).map(([name, deps]) => {
    if (!Array.isArray(deps)) return {name, source: deps.source}
    write(join(root, 'plugins', name, '.claude-plugin', 'plugin.json'), {name, version: '1.0.0', dependencies: deps})
    mkdirSync(join(root, 'plugins', name, 'skills', `${name}-skill`), {recursive: true})
    writeFileSync(join(root, 'plugins', name, 'skills', `${name}-skill`, 'SKILL.md'), `---\nname: ${name}-skill\ndescription: ${name}\n---\n${name}\n`)
    return {name, source: `./plugins/${name}`}
  })
  write(join(root, '.claude-plugin', 'marketplace.json'), {name: 'deps', owner: {name: 't'}, plugins: entries})
  mkdirSync(join(sb.home, '.cursor'), {recursive: true})
  const added = await loadout(sb, ['marketplace', 'add', root, '--scope', 'user', '--json'])
  expect(added.status, added.stdout + added.stderr).toBe(0)
}

const nothingInstalled = (sb: Sandbox) => expect(existsSync(join(sb.home, '.cursor', 'skills'))).toBe(false)

describe('dependency trees', () => {
  it(`a chain deeper than ${MAX_DEPENDENCY_DEPTH} is refused, naming it, writing nothing`, async () => {
    const sb = sandbox()
    const depth = MAX_DEPENDENCY_DEPTH + 2
    await market(sb, Object.fromEntries(Array.from({length: depth + 1}, (_, i) => [`p${i}`, i < depth ? [`p${i + 1}`] : []])))
    const result = await loadout(sb, ['install', 'p0@deps', ...USER])
    expect(result.status, result.stdout).toBe(4)
    expect(jsonError(result).code).toBe('dependency-tree-too-large')
    expect(jsonError(result).message).toContain('p0@deps -> p1@deps')
    nothingInstalled(sb)
    // within the bound it installs
    expect((await loadout(sb, ['install', `p${depth - MAX_DEPENDENCY_DEPTH + 1}@deps`, ...USER])).status).toBe(0)
  })

  it(`more than ${MAX_DEPENDENCIES} dependencies in all are refused, writing nothing`, async () => {
    const sb = sandbox()
    const leaves = Array.from({length: MAX_DEPENDENCIES + 1}, (_, i) => `leaf${i}`)
    await market(sb, {root: leaves, ...Object.fromEntries(leaves.map((l) => [l, []]))})
    const result = await loadout(sb, ['install', 'root@deps', ...USER])
    expect(result.status, result.stdout).toBe(4)
    expect(jsonError(result).code).toBe('dependency-tree-too-large')
    nothingInstalled(sb)
  })

  it('a dependency on a host the policy refuses is refused by the policy before it is fetched', async () => {
    const sb = sandbox()
    await market(sb, {app: ['lib'], lib: {source: {source: 'url', url: 'https://evil.example/lib.git'}}})
    write(join(sb.home, '.config', 'loadout', 'policy.json'), {sources: {block: ['evil.example']}})
    const result = await loadout(sb, ['install', 'app@deps', ...USER])
    expect(result.status, result.stdout).toBe(11)
    expect(JSON.stringify(jsonError(result))).toContain('evil.example')
    nothingInstalled(sb)
  })
})
