/**
 * Sigstore bundles for archives, end to end, against a Sigstore of the test's own (test/support/
 * sigstore.ts: its own certificate authority and log key, named by LOADOUT_SIGSTORE_TRUSTED_ROOT;
 * nothing reaches a public log). A marketplace pins an identity with --signed-by-identity; an
 * archive whose bundle verifies to it installs, recording the identity; a bundle naming another
 * identity, a bundle over other bytes, and an entry without a bundle are refused (exit 7).
 */
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {makeTestSigstore, type TestSigstore} from '../support/sigstore.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const ISSUER = 'https://token.actions.example'
const SUBJECT = 'https://git.example/acme/tools/.github/workflows/release.yml@refs/tags/v1'
let work: string
let server: TestHttpsServer
let sigstore: TestSigstore
const sandbox = sandboxes()

const archive = async (name: string): Promise<Buffer> => {
  const dir = mkdtempSync(join(work, 'pack-'))
  mkdirSync(join(dir, name, '.claude-plugin'), {recursive: true})
  mkdirSync(join(dir, name, 'skills', `${name}-skill`), {recursive: true})
  writeFileSync(join(dir, name, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0'}))
  writeFileSync(join(dir, name, 'skills', `${name}-skill`, 'SKILL.md'), `---\nname: ${name}-skill\ndescription: From ${name}.\n---\n\nBody.\n`)
  const file = join(dir, 'a.tar.gz')
  await create({gzip: true, file, cwd: dir, portable: true}, [name])
  return readFileSync(file)
}

const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_SIGSTORE_TRUSTED_ROOT: sigstore.trustedRoot}})

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-sigstore-')))
  server = await startHttpsServer()
  mkdirSync(join(work, 'ca'))
  sigstore = makeTestSigstore(join(work, 'ca'))
  const entries: Array<Record<string, unknown>> = []
  const publish = async (name: string, bundle?: (bytes: Buffer) => object, pinned = false) => {
    const bytes = await archive(name)
    server.file(`/${name}.tar.gz`, bytes)
    if (bundle) server.json(`/${name}.sigstore.json`, bundle(bytes))
    entries.push({
      name,
      source: {
        source: 'archive',
        url: server.url(`/${name}.tar.gz`),
        ...(pinned ? {sha256: createHash('sha256').update(bytes).digest('hex')} : {}),
        ...(bundle ? {sigstore: server.url(`/${name}.sigstore.json`)} : {}),
      },
    })
  }
  await publish('tools', (bytes) => sigstore.bundle(bytes, {issuer: ISSUER, subject: SUBJECT}))
  await publish('impostor', (bytes) =>
    sigstore.bundle(bytes, {issuer: ISSUER, subject: 'https://git.example/mallory/tools/.github/workflows/release.yml@refs/heads/main'}),
  )
  await publish('swapped', () => sigstore.bundle(Buffer.from('other bytes'), {issuer: ISSUER, subject: SUBJECT}))
  await publish('bare')
  await publish('pinned', (bytes) => sigstore.bundle(bytes, {issuer: ISSUER, subject: SUBJECT}), true)
  mkdirSync(join(work, 'market', '.claude-plugin'), {recursive: true})
  writeFileSync(join(work, 'market', '.claude-plugin', 'marketplace.json'), JSON.stringify({name: 'signed', plugins: entries}))
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('archives with Sigstore bundles from a test trust root', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', join(work, 'market'), '--signed-by-identity', `${ISSUER}=${SUBJECT}`, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    expect(added.json()).toMatchObject({signedByIdentity: [`${ISSUER}=${SUBJECT}`]})
  })
  const install = (name: string) => run(sb, ['install', `${name}@signed`, '--agent', 'universal', '--yes', '--json'])

  it('an archive whose bundle verifies to the pinned identity installs, recording it', async () => {
    const done = await install('tools')
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({plugin: 'tools@signed', signer: `${ISSUER}=${SUBJECT}`})
  })

  it('--offline installs an archive pinned by sha256 again, its kept bundle verified anew; with none kept it is refused', async () => {
    expect((await install('pinned')).status).toBe(0)
    const uninstall = ['uninstall', 'pinned@signed', '--yes', '--json']
    expect((await run(sb, uninstall)).status).toBe(0)
    // without the test server's CA any request would fail: the offline run makes none
    const offline = () =>
      loadout(sb, ['install', 'pinned@signed', '--agent', 'universal', '--yes', '--offline', '--json'], {
        env: {LOADOUT_SIGSTORE_TRUSTED_ROOT: sigstore.trustedRoot},
      })
    const again = await offline()
    expect(again.status, again.stdout + again.stderr).toBe(0)
    expect(again.json()).toMatchObject({plugin: 'pinned@signed', signer: `${ISSUER}=${SUBJECT}`})
    expect((await run(sb, uninstall)).status).toBe(0)
    rmSync(join(sb.home, '.cache', 'loadout', 'archive-signatures'), {recursive: true})
    const refused = await offline()
    expect(refused.status, refused.stdout + refused.stderr).toBe(6)
    expect(jsonError(refused)).toMatchObject({code: 'offline-not-cached', message: expect.stringContaining('no verified signature')})
  })

  it('a bundle naming another identity is refused (exit 7), naming that identity', async () => {
    const done = await install('impostor')
    expect(done.status, done.stdout + done.stderr).toBe(7)
    expect(jsonError(done).code).toBe('untrusted-identity')
    expect(jsonError(done).message).toContain('mallory/tools')
  })

  it('a bundle over other bytes is refused (exit 7)', async () => {
    const done = await install('swapped')
    expect(done.status, done.stdout + done.stderr).toBe(7)
    expect(jsonError(done).code).toBe('sigstore-bundle-invalid')
  })

  it('an entry without a bundle is refused (exit 7)', async () => {
    const done = await install('bare')
    expect(done.status, done.stdout + done.stderr).toBe(7)
    expect(jsonError(done).code).toBe('unsigned-source')
  })

  it("Sigstore's public trust root is fetched through the policy's host check: a policy blocking its TUF host refuses (exit 11) before any request", async () => {
    const blocked = sandbox()
    writeFileSync(join(blocked.project, 'loadout-policy.json'), JSON.stringify({sources: {block: ['tuf-repo-cdn.sigstore.dev']}}))
    const added = await run(blocked, ['marketplace', 'add', join(work, 'market'), '--signed-by-identity', `${ISSUER}=${SUBJECT}`, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    // no LOADOUT_SIGSTORE_TRUSTED_ROOT: the public root would be fetched from tuf-repo-cdn.sigstore.dev
    const done = await loadout(blocked, ['install', 'tools@signed', '--agent', 'universal', '--yes', '--json'], {env: server.trustEnv()})
    expect(done.status, done.stdout + done.stderr).toBe(11)
    expect(jsonError(done).message).toContain('tuf-repo-cdn.sigstore.dev')
    // refused before the TUF client started: not even the shipped root was copied into the cache
    expect(existsSync(join(blocked.home, '.cache', 'loadout', 'sigstore-tuf'))).toBe(false)
  })

  it('a malformed identity is a usage error (exit 2)', async () => {
    const added = await run(sandbox(), ['marketplace', 'add', join(work, 'market'), '--signed-by-identity', 'not-an-identity', '--json'])
    expect(added.status).toBe(2)
    expect(jsonError(added).code).toBe('bad-signed-by-identity')
  })
})
