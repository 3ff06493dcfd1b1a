/** `loadout doctor` and `loadout cache list|clean` against real installs in a temporary HOME. */
import {existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

interface Check {
  id: string
  status: 'ok' | 'warn' | 'error'
  message: string
  fixed?: boolean
}
interface Entry {
  kind: string
  path: string
  bytes: number
  usedBy?: string
}

/** A plugin folder with one skill; `version` changes its content, so each install makes a new copy. */
const writePlugin = (sb: Sandbox, version: string): string => {
  const root = join(sb.dir, 'plug')
  mkdirSync(join(root, 'skills', 'one'), {recursive: true})
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, 'skills', 'one', 'SKILL.md'), `---\nname: one\ndescription: The one skill, ${version}.\n---\n\nBody ${version}.\n`)
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'plug', version}))
  return root
}

const install = async (sb: Sandbox, version: string) => {
  const result = await loadout(sb, ['install', writePlugin(sb, version), '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
  expect(result.status, result.stderr).toBe(0)
}

const copies = (entries: Entry[]) => entries.filter((e) => e.kind === 'plugin-copy')

describe('loadout doctor', () => {
  it('says a healthy setup is healthy', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    const result = await loadout(sb, ['doctor', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const report = result.json<{ok: boolean; checks: Check[]}>()
    expect(report.ok).toBe(true)
    const byId = new Map(report.checks.map((c) => [c.id, c]))
    for (const id of ['node', 'git', 'agent:claude-code', 'journal', 'records', 'cache']) expect(byId.get(id)?.status, id).toBe('ok')
    expect(byId.get('git')!.message).toMatch(/^git version \d/)
    const text = await loadout(sb, ['doctor'])
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/^ok +node: Node v/m)
  })

  it('finds an unreadable config file, a linked folder and recorded files that are gone (status 4)', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    writeFileSync(join(sb.home, '.claude.json'), '{\n  "mcpServers": {},,\n}\n')
    mkdirSync(join(sb.dir, 'elsewhere'))
    symlinkSync(join(sb.dir, 'elsewhere'), join(sb.home, '.claude', 'agents'))
    rmSync(join(sb.home, '.claude', 'skills', 'one', 'SKILL.md'))
    const result = await loadout(sb, ['doctor', '--json'])
    expect(result.status).toBe(4)
    const error = jsonError(result)
    expect(error.code).toBe('doctor-found-problems')
    const checks = (error.details as {checks: Check[]}).checks
    const claude = checks.filter((c) => c.id === 'agent:claude-code')
    expect(claude).toContainEqual(expect.objectContaining({status: 'error', message: expect.stringMatching(/\.claude\.json: not valid JSON: .* at line 2, column 20$/)}))
    expect(claude).toContainEqual(expect.objectContaining({status: 'warn', message: expect.stringContaining(`${join(sb.home, '.claude', 'agents')} is a link to`)}))
    expect(checks).toContainEqual(expect.objectContaining({id: 'records', status: 'error', message: expect.stringContaining('plug@direct (user, claude-code): 1 of its 1 files are gone')}))
    const text = await loadout(sb, ['doctor'])
    expect(text.status).toBe(4)
    expect(text.stderr).toContain('error: doctor found 2 problems')
  })

  it('--fix removes the plugin copies nothing uses, and only those', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    await install(sb, '1.0.1')
    const before = await loadout(sb, ['doctor', '--json'])
    expect(before.status, before.stderr).toBe(0)
    expect(before.json<{checks: Check[]}>().checks.find((c) => c.id === 'cache')).toMatchObject({status: 'warn', message: expect.stringContaining('1 cache entries and plugin copies nothing uses')})
    const fixed = await loadout(sb, ['doctor', '--fix', '--json'])
    expect(fixed.status, fixed.stderr).toBe(0)
    expect(fixed.json<{checks: Check[]}>().checks.find((c) => c.id === 'cache')).toMatchObject({status: 'ok', fixed: true})
    const left = copies((await loadout(sb, ['cache', 'list', '--json'])).json<{entries: Entry[]}>().entries)
    expect(left).toHaveLength(1)
    expect(left[0]!.usedBy).toContain('plug@direct')
  })
})

describe('loadout cache', () => {
  it('lists plugin copies with sizes and users; clean removes the unused ones and never a recorded pluginRoot', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    await install(sb, '1.0.0')
    await install(sb, '1.0.1')
    await install(sb, '1.0.2')
    const list = await loadout(sb, ['cache', 'list', '--json'])
    expect(list.status, list.stderr).toBe(0)
    const listing = list.json<{entries: Entry[]; totalBytes: number; unusedBytes: number}>()
    const all = copies(listing.entries)
    expect(all).toHaveLength(3)
    expect(all.every((e) => e.bytes > 0)).toBe(true)
    const used = all.filter((e) => e.usedBy)
    expect(used).toHaveLength(1)
    expect(listing.unusedBytes).toBeGreaterThan(0)
    expect(listing.totalBytes).toBeGreaterThan(listing.unusedBytes)

    const dry = await loadout(sb, ['cache', 'clean', '--dry-run', '--json'])
    expect(dry.status, dry.stderr).toBe(0)
    expect(dry.json<{removed: Entry[]}>().removed).toHaveLength(2)
    expect(all.every((e) => existsSync(e.path))).toBe(true)

    const clean = await loadout(sb, ['cache', 'clean'])
    expect(clean.status, clean.stderr).toBe(0)
    expect(clean.stdout).toContain('removed 2 entries')
    for (const e of all) expect(existsSync(e.path), e.path).toBe(e === used[0])
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)

    const again = await loadout(sb, ['cache', 'clean', '--json'])
    expect(again.json<{removed: Entry[]}>().removed).toEqual([])
  })

  it('says so when the cache is empty', async () => {
    const sb = sandbox()
    const list = await loadout(sb, ['cache', 'list'])
    expect(list.status, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^the cache is empty/)
  })
})
