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
import {makeTestSigstore, type TestSigstore} from '../support/sigstore.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const KEYID = 'SHA256:loadout-test-registry-key'
let work: string
let server: TestHttpsServer
let sigstore: TestSigstore
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

const PROVENANCE = 'https://slsa.dev/provenance/v1'
const ISSUER = 'https://token.actions.example'
const BUILDER = 'https://git.example/acme/tools/.github/workflows/release.yml@refs/tags/v1.0.0'

/** An in-toto statement about `name@1.0.0` whose bytes hash to `sha512` (hex), as npm publishes provenance. */
const statement = (name: string, sha512: string): Buffer =>
  Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{name: `pkg:npm/${name.replace(/^@/, '%40')}@1.0.0`, digest: {sha512}}],
      predicateType: PROVENANCE,
      predicate: {buildDefinition: {buildType: 'https://example/build'}},
    }),
  )

/** A provenance bundle from the test Sigstore; `tamper` rewrites the envelope after signing. */
const provenance = (name: string, bytes: Buffer, tamper = false): object => {
  const sha512 = createHash('sha512').update(bytes).digest('hex')
  const bundle = sigstore.dsseBundle(statement(name, tamper ? '00'.repeat(64) : sha512), 'application/vnd.in-toto+json', {
    issuer: ISSUER,
    subject: BUILDER,
  }) as {
    dsseEnvelope: {payload: string}
  }
  // the signed statement named other bytes; the one served names these, under the old signature
  if (tamper) bundle.dsseEnvelope.payload = statement(name, sha512).toString('base64')
  return bundle
}

/** Publishes one version, signed by `signer` (or unsigned), with a provenance attestation when `attest` says so. */
const publish = async (name: string, signer: KeyObject | undefined, attest?: 'good' | 'tampered') => {
  const bytes = await packTarball(name, '1.0.0')
  const integrity = integrityOf(bytes)
  const tarball = `/tarballs/${name}-1.0.0.tgz`
  server.file(tarball, bytes)
  const attestations = `/-/npm/v1/attestations/${name}@1.0.0`
  if (attest) server.json(attestations, {attestations: [{predicateType: PROVENANCE, bundle: provenance(name, bytes, attest === 'tampered')}]})
  server.json(`/${name}`, {
    name,
    'dist-tags': {latest: '1.0.0'},
    versions: {
      '1.0.0': {
        name,
        version: '1.0.0',
        dist: {
          tarball: server.url(tarball),
          integrity,
          ...(signer ? {signatures: [{keyid: KEYID, sig: sign(signer, name, '1.0.0', integrity)}]} : {}),
          ...(attest ? {attestations: {url: server.url(attestations), provenance: {predicateType: PROVENANCE}}} : {}),
        },
      },
    },
  })
}

const run = (args: string[], options: {policy?: object} = {}) => {
  const sb = sandbox({git: true})
  if (options.policy) writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify(options.policy))
  return {
    sb,
    result: loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_NPM_REGISTRY: server.origin, LOADOUT_SIGSTORE_TRUSTED_ROOT: sigstore.trustedRoot}}),
  }
}
const installArgs = (name: string) => ['install', `npm:${name}`, '--agent', 'universal', '--scope', 'user', '--yes', '--json']

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-npm-prov-')))
  server = await startHttpsServer()
  mkdirSync(join(work, 'sigstore'))
  sigstore = makeTestSigstore(join(work, 'sigstore'))
  const registry = generateKeyPairSync('ec', {namedCurve: 'P-256'})
  const other = generateKeyPairSync('ec', {namedCurve: 'P-256'})
  const spki = registry.publicKey.export({type: 'spki', format: 'der'}).toString('base64')
  server.json('/-/npm/v1/keys', {keys: [{expires: null, keyid: KEYID, keytype: 'ecdsa-sha2-nistp256', scheme: 'ecdsa-sha2-nistp256', key: spki}]})
  await publish('signed-tools', registry.privateKey)
  await publish('forged-tools', other.privateKey)
  await publish('plain-tools', undefined)
  await publish('attested-tools', registry.privateKey, 'good')
  await publish('tampered-tools', registry.privateKey, 'tampered')
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

describe('npm provenance attestations checked against a test Sigstore trust root', () => {
  it('a version whose provenance verifies installs under requireProvenance, naming the build that signed it', async () => {
    const done = await run(installArgs('attested-tools'), {policy: {requireProvenance: true}}).result
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({
      plugin: 'attested-tools@direct',
      provenance: {signatures: 'verified', attestations: 'verified', attestedBy: [`${ISSUER}=${BUILDER}`]},
    })
    expect(server.requestsTo('/-/npm/v1/attestations/attested-tools@1.0.0').length).toBeGreaterThan(0)
  })

  it('a tampered attestation is refused (exit 7) and nothing is written', async () => {
    const {sb, result} = run(installArgs('tampered-tools'))
    const done = await result
    expect(done.status, done.stdout + done.stderr).toBe(7)
    expect(jsonError(done).code).toBe('npm-attestation-invalid')
    expect(jsonError(done).message).toContain('tampered-tools@1.0.0')
    expect(existsSync(join(sb.home, '.agents', 'skills', 'signed-skill'))).toBe(false)
  })
})
