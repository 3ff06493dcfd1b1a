/**
 * OCI registries as a channel, end to end through bin/run.js against the real CNCF distribution
 * registry (Debian's docker-registry, test/support/oci-registry.ts) on 127.0.0.1 behind htpasswd basic
 * auth (and, in one test, token auth from a token server of ours). Credentials are given the way
 * Docker keeps them: ~/.docker/config.json in the sandbox HOME.
 */
import {cpSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startOciRegistry, type OciRegistry} from '../support/oci-registry.js'
import {filesHolding, loadout, sandboxes, type RunOptions} from './helpers.js'
import type {Sandbox} from '../support/cli.js'

const sandbox = sandboxes()
let registry: OciRegistry

const dockerLogin = (sb: Sandbox, reg: OciRegistry): void => {
  mkdirSync(join(sb.home, '.docker'), {recursive: true})
  const auth = Buffer.from(`${reg.username}:${reg.password}`).toString('base64')
  writeFileSync(join(sb.home, '.docker', 'config.json'), JSON.stringify({auths: {[reg.host]: {auth}}}))
}

const trust = (reg: OciRegistry): RunOptions => ({env: {NODE_EXTRA_CA_CERTS: reg.caFile}})

/** A Claude Code plugin folder with one skill whose text says `text`. */
const writePlugin = (dir: string, name: string, version: string, text: string): string => {
  mkdirSync(join(dir, '.claude-plugin'), {recursive: true})
  mkdirSync(join(dir, 'skills', `${name}-skill`), {recursive: true})
  writeFileSync(join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version, description: `The ${name} plugin.`}))
  writeFileSync(join(dir, 'skills', `${name}-skill`, 'SKILL.md'), `---\nname: ${name}-skill\ndescription: A skill of ${name}.\n---\n\n${text}\n`)
  return dir
}

const push = async (sb: Sandbox, dir: string, target: string) => {
  const result = await loadout(sb, ['plugin', 'push', dir, target, '--json'], trust(registry))
  expect(result.status, result.stderr + result.stdout).toBe(0)
  return result.json<{digest: string; reference: string; plugin: string; version?: string; layer: {digest: string}}>()
}

beforeAll(async () => {
  registry = await startOciRegistry({auth: 'basic'})
}, 60_000)

afterAll(async () => {
  await registry?.stop()
})

describe('plugin push and install oci:// behind basic auth', () => {
  it('pushes, installs by digest into claude-code and codex, records the digest; a teammate installs --frozen by it', async () => {
    const author = sandbox({git: true})
    dockerLogin(author, registry)
    const dir = writePlugin(join(author.dir, 'kit'), 'kit', '1.0.0', 'kit one')
    const pushed = await push(author, dir, `oci://${registry.host}/acme/kit:1.0.0`)
    expect(pushed.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(pushed.reference).toBe(`oci://${registry.host}/acme/kit:1.0.0@${pushed.digest}`)
    // the same folder packs to the same bytes: pushing again gives the same digest
    expect((await push(author, dir, `oci://${registry.host}/acme/kit:1.0.0`)).digest).toBe(pushed.digest)

    const ref = `oci://${registry.host}/acme/kit@${pushed.digest}`
    const install = await loadout(author, ['install', ref, '--agent', 'claude-code,codex', '--scope', 'project', '--yes', '--json'], trust(registry))
    expect(install.status, install.stderr + install.stdout).toBe(0)
    expect(readFileSync(join(author.project, '.claude', 'skills', 'kit-skill', 'SKILL.md'), 'utf8')).toContain('kit one')
    expect(readFileSync(join(author.project, '.agents', 'skills', 'kit-skill', 'SKILL.md'), 'utf8')).toContain('kit one')
    const lock = JSON.parse(readFileSync(join(author.project, 'loadout.lock'), 'utf8')) as {
      installs: Array<{target: string; source: string; artifact?: {integrity: string; version: string}}>
    }
    expect(lock.installs.map((r) => r.target).sort()).toEqual(['claude-code', 'codex'])
    for (const record of lock.installs) expect(record.artifact).toEqual({version: '1.0.0', integrity: pushed.digest})

    // a teammate's clone at another path, with its own HOME (and credentials), installs by the lock
    const mate = sandbox({git: true})
    dockerLogin(mate, registry)
    for (const name of ['loadout.json', 'loadout.lock']) cpSync(join(author.project, name), join(mate.project, name))
    const frozen = await loadout(mate, ['install', '--frozen', '--yes', '--json'], trust(registry))
    expect(frozen.status, frozen.stderr + frozen.stdout).toBe(0)
    expect(readFileSync(join(mate.project, '.claude', 'skills', 'kit-skill', 'SKILL.md'), 'utf8')).toContain('kit one')
    expect(readFileSync(join(mate.project, 'loadout.lock'), 'utf8')).toBe(readFileSync(join(author.project, 'loadout.lock'), 'utf8'))

    // credentials appear in no file loadout wrote and in no output
    for (const sb of [author, mate]) {
      const holding = [
        ...filesHolding(sb.dir, registry.password),
        ...filesHolding(sb.dir, Buffer.from(`${registry.username}:${registry.password}`).toString('base64')),
      ]
      expect(holding.filter((file) => !file.endsWith(join('.docker', 'config.json')))).toEqual([])
    }
    for (const out of [install, frozen]) expect(out.stdout + out.stderr).not.toContain(registry.password)
  }, 120_000)
})
