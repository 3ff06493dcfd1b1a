/**
 * npm registry signatures, end to end, against the static registry stand-in on 127.0.0.1 (as in
 * npm-source.test.ts) publishing its own signing key at `/-/npm/v1/keys`, an ECDSA P-256 key made
 * here. A version signed with it installs and says so; a signature by another key is refused (exit
 * 7) before anything is written; policy `requireProvenance` refuses a package without a checked
 * attestation (exit 11).
 */
import {createHash, createSign, generateKeyPairSync, type KeyObject} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const KEYID = 'SHA256:loadout-test-registry-key'
let work: string
let server: TestHttpsServer
const sandbox = sandboxes()
const integrityOf = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`

const packTarball = async (name: string, version: string): Promise<Buffer> => {
  const dir = mkdtempSync(join(work, 'pack-'))
  const pkg = join(dir, 'package')
  mkdirSync(join(pkg, 'skills', 'signed-skill'), {recursive: true})
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({name, version}))
  mkdirSync(join(pkg, '.claude-plugin'))
  writeFileSync(join(pkg, '.claude-plugin', 'plugin.json'), JSON.stringify({name: name.replace(/^@[^/]+\//, ''), version}))
  writeFileSync(join(pkg, 'skills', 'signed-skill', 'SKILL.md'), `---\nname: signed-skill\ndescription: From ${name}.\n---\n\nBody.\n`)
  const file = join(dir, 'package.tgz')
  await create({gzip: true, file, cwd: dir, portable: true}, ['package'])
  return readFileSync(file)
}

/** The registry's signature over `name@version:integrity`, as npm's registry signs a version. */
const sign = (key: KeyObject, name: string, version: string, integrity: string): string =>
  createSign('SHA256').update(`${name}@${version}:${integrity}`).end().sign(key, 'base64')

/** Publishes one version, signed by `signer` (or unsigned). */
const publish = async (name: string, signer: KeyObject | undefined) => {
  const bytes = await packTarball(name, '1.0.0')
  const integrity = integrityOf(bytes)
  const tarball = `/tarballs/${name}-1.0.0.tgz`
  server.file(tarball, bytes)
  server.json(`/${name}`, {
    name,
    'dist-tags': {latest: '1.0.0'},
    versions: {
      '1.0.0': {
        name,
        version: '1.0.0',
        dist: {tarball: server.url(tarball), integrity, ...(signer ? {signatures: [{keyid: KEYID, sig: sign(signer, name, '1.0.0', integrity)}]} : {})},
      },
    },
  })
}

const run = (args: string[], options: {policy?: object} = {}) => {
  const sb = sandbox({git: true})
  if (options.policy) writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify(options.policy))
  return {sb, result: loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_NPM_REGISTRY: server.origin}})}
}
const installArgs = (name: string) => ['install', `npm:${name}`, '--agent', 'universal', '--scope', 'user', '--yes', '--json']

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-npm-prov-')))
  server = await startHttpsServer()
  const registry = generateKeyPairSync('ec', {namedCurve: 'P-256'})
  const other = generateKeyPairSync('ec', {namedCurve: 'P-256'})
  const spki = registry.publicKey.export({type: 'spki', format: 'der'}).toString('base64')
  server.json('/-/npm/v1/keys', {keys: [{expires: null, keyid: KEYID, keytype: 'ecdsa-sha2-nistp256', scheme: 'ecdsa-sha2-nistp256', key: spki}]})
  await publish('signed-tools', registry.privateKey)
  await publish('forged-tools', other.privateKey)
  await publish('plain-tools', undefined)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe("npm registry signatures checked against the registry's keys", () => {
  it('a version signed with the published key installs, its provenance in --json', async () => {
    const {result} = run(installArgs('signed-tools'))
    const done = await result
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({plugin: 'signed-tools@direct', provenance: {signatures: 'verified', attestations: 'none'}})
    expect(server.requestsTo('/-/npm/v1/keys').length).toBeGreaterThan(0)
  })

  it('a version signed with another key is refused (exit 7) and nothing is written', async () => {
    const {sb, result} = run(installArgs('forged-tools'))
    const done = await result
    expect(done.status, done.stdout + done.stderr).toBe(7)
    expect(jsonError(done).code).toBe('npm-signature-invalid')
    expect(jsonError(done).message).toContain('forged-tools@1.0.0')
    expect(existsSync(join(sb.home, '.agents', 'skills', 'signed-skill'))).toBe(false)
  })

  it('an unsigned version installs (nothing demands it), and says it carries no signatures', async () => {
    const done = await run(installArgs('plain-tools')).result
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json().provenance).toEqual({signatures: 'none', attestations: 'none'})
  })

  it('policy requireProvenance refuses a package without a checked attestation (exit 11), naming what is missing', async () => {
    const signed = await run(installArgs('signed-tools'), {policy: {requireProvenance: true}}).result
    expect(signed.status, signed.stdout + signed.stderr).toBe(11)
    expect(jsonError(signed).message).toMatch(/requireProvenance/)
    expect(jsonError(signed).message).toContain('a provenance attestation')
    expect(jsonError(signed).message).not.toContain('registry signatures')
    const plain = await run(installArgs('plain-tools'), {policy: {requireProvenance: true}}).result
    expect(plain.status).toBe(11)
    expect(jsonError(plain).message).toContain('registry signatures and a provenance attestation')
  })
})
