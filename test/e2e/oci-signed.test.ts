/**
 * Sigstore bundles attached to OCI artifacts as referrers, end to end through bin/run.js against the
 * real CNCF distribution registry 2.8 (test/support/oci-registry.ts), which has no referrers API: the
 * bundle is listed through the `sha256-<hex>` tag's index (OCI 1.1's referrers tag schema). The
 * Sigstore is the tests' own (test/support/sigstore.ts, named by LOADOUT_SIGSTORE_TRUSTED_ROOT).
 * A catalog pushed with `marketplace push` is added with --signed-by-identity; its plugins install
 * only when a bundle attached to their manifest verifies to that identity.
 */
import {cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {request} from 'node:https'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startOciRegistry, type OciRegistry} from '../support/oci-registry.js'
import {makeTestSigstore, type TestSigstore} from '../support/sigstore.js'
import {jsonError, loadout, sandboxes, type RunOptions} from './helpers.js'

const ISSUER = 'https://token.actions.example'
const SUBJECT = 'https://git.example/acme/kit/.github/workflows/release.yml@refs/tags/v1'
const MALLORY = 'https://git.example/mallory/kit/.github/workflows/release.yml@refs/heads/main'
const sandbox = sandboxes()
let registry: OciRegistry
let sigstore: TestSigstore
let work: Sandbox

const dockerLogin = (sb: Sandbox): void => {
  mkdirSync(join(sb.home, '.docker'), {recursive: true})
  const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
  writeFileSync(join(sb.home, '.docker', 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}}}))
}

const env = (extra: Record<string, string> = {}): RunOptions => ({
  env: {NODE_EXTRA_CA_CERTS: registry.caFile, LOADOUT_SIGSTORE_TRUSTED_ROOT: sigstore.trustedRoot, ...extra},
})

/** A request straight to the registry (basic auth, the test CA): what the test reads or rewrites behind loadout's back. */
const registryRequest = (method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<{status: number; body: Buffer}> =>
  new Promise((done, reject) => {
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
    const req = request(`${registry.origin}${path}`, {method, ca: registry.ca.caCert, headers: {authorization: `Basic ${auth}`, ...headers}}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => done({status: res.statusCode ?? 0, body: Buffer.concat(chunks)}))
    })
    req.on('error', reject)
    req.end(body)
  })

const writePlugin = (dir: string, name: string): void => {
  mkdirSync(join(dir, '.claude-plugin'), {recursive: true})
  mkdirSync(join(dir, 'skills', `${name}-skill`), {recursive: true})
  writeFileSync(join(dir, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0', description: `The ${name} plugin.`}))
  writeFileSync(join(dir, 'skills', `${name}-skill`, 'SKILL.md'), `---\nname: ${name}-skill\ndescription: A skill of ${name}.\n---\n\nFrom ${name}.\n`)
}

/** The plugins of the pushed catalog by name: `oci://host/acme/signed/<name>:1.0.0@sha256:<hex>`. */
let references: Record<string, string>
const repoAndDigest = (reference: string): {repository: string; digest: string} => {
  const match = /^oci:\/\/[^/]+\/([^:@]+)(?::[^@]+)?@(sha256:[0-9a-f]{64})$/.exec(reference)!
  return {repository: match[1]!, digest: match[2]!}
}

/** The catalog pushed with `marketplace push` to `repository:tag`, its plugins, and its own reference pinned by digest. */
let catalogReference: string
const pushCatalog = async (folder: string, target: string): Promise<{plugins: Array<{name: string; reference: string}>; pinned: string}> => {
  const pushed = await loadout(work, ['marketplace', 'push', folder, `oci://${registry.host}/${target}`, '--json'], env())
  expect(pushed.status, pushed.stdout + pushed.stderr).toBe(0)
  const {plugins, repository, digest} = pushed.json<{plugins: Array<{name: string; reference: string}>; repository: string; digest: string}>()
  return {plugins, pinned: `oci://${registry.host}/${repository}@${digest}`}
}

/** Signs the manifest bytes of `reference` as `subject` and attaches the bundle with `loadout plugin attach`. */
const signAndAttach = async (reference: string, subject: string) => {
  const {repository, digest} = repoAndDigest(reference)
  const manifest = await registryRequest('GET', `/v2/${repository}/manifests/${digest}`, {accept: 'application/vnd.oci.image.manifest.v1+json'})
  expect(manifest.status).toBe(200)
  const file = join(work.dir, `${repository.replace(/\//g, '-')}.sigstore.json`)
  writeFileSync(file, JSON.stringify(sigstore.bundle(manifest.body, {issuer: ISSUER, subject})))
  const attached = await loadout(work, ['plugin', 'attach', reference, file, '--json'], env())
  expect(attached.status, attached.stdout + attached.stderr).toBe(0)
  return {...attached.json<{subject: string; digest: string; via: string}>(), file}
}

beforeAll(async () => {
  registry = await startOciRegistry({auth: 'basic'})
  work = sandbox({git: true})
  dockerLogin(work)
  mkdirSync(join(work.dir, 'sigstore'))
  sigstore = makeTestSigstore(join(work.dir, 'sigstore'))
  const market = join(work.dir, 'market')
  for (const name of ['kit', 'impostor', 'bare']) writePlugin(join(market, 'plugins', name), name)
  mkdirSync(join(market, '.claude-plugin'), {recursive: true})
  writeFileSync(
    join(market, '.claude-plugin', 'marketplace.json'),
    JSON.stringify({
      name: 'signed-oci',
      owner: {name: 'Acme'},
      plugins: ['kit', 'impostor', 'bare'].map((name) => ({name, source: `./plugins/${name}`, version: '1.0.0'})),
    }),
  )
  const pushed = await pushCatalog(market, 'acme/signed:latest')
  references = Object.fromEntries(pushed.plugins.map((p) => [p.name, p.reference]))
  catalogReference = pushed.pinned
}, 120_000)

afterAll(async () => {
  await registry?.stop()
})

describe('Sigstore bundles attached to OCI artifacts (referrers tag schema)', () => {
  it('plugin attach lists the bundle under the sha256-<hex> tag; the same bundle twice is listed once, another beside it', async () => {
    const attached = await signAndAttach(references.kit!, SUBJECT)
    const {repository, digest} = repoAndDigest(references.kit!)
    const tag = digest.replace(':', '-')
    expect(attached).toMatchObject({subject: `oci://${registry.host}/${repository}@${digest}`, via: `tag ${tag}`})
    const again = await loadout(work, ['plugin', 'attach', references.kit!, attached.file, '--json'], env())
    expect(again.json()).toMatchObject({digest: attached.digest})
    await signAndAttach(references.kit!, SUBJECT)
    const index = await registryRequest('GET', `/v2/${repository}/manifests/${tag}`, {accept: 'application/vnd.oci.image.index.v1+json'})
    expect(index.status).toBe(200)
    const manifests = (JSON.parse(index.body.toString('utf8')) as {manifests: Array<{artifactType: string}>}).manifests
    expect(manifests.length).toBe(2)
    expect(manifests.every((m) => m.artifactType === 'application/vnd.dev.sigstore.bundle.v0.3+json')).toBe(true)
  }, 60_000)

  it('plugin attach refuses a bundle over other bytes than the manifest (exit 2), attaching nothing', async () => {
    const file = join(work.dir, 'other.sigstore.json')
    writeFileSync(file, JSON.stringify(sigstore.bundle(Buffer.from('other bytes'), {issuer: ISSUER, subject: SUBJECT})))
    const refused = await loadout(work, ['plugin', 'attach', references.bare!, file, '--json'], env())
    expect(refused.status, refused.stdout + refused.stderr).toBe(2)
    expect(jsonError(refused).code).toBe('sigstore-bundle-invalid')
    const {repository, digest} = repoAndDigest(references.bare!)
    expect((await registryRequest('GET', `/v2/${repository}/manifests/${digest.replace(':', '-')}`)).status).toBe(404)
  }, 60_000)

  describe('installs from a catalog added with --signed-by-identity', () => {
    let author: Sandbox
    beforeAll(async () => {
      await signAndAttach(references.impostor!, MALLORY)
      // the catalog itself is signed too: under pinned identities its artifact must be
      await signAndAttach(catalogReference, SUBJECT)
      author = sandbox({git: true})
      dockerLogin(author)
      const added = await loadout(
        author,
        ['marketplace', 'add', `oci://${registry.host}/acme/signed:latest`, '--scope', 'project', '--signed-by-identity', `${ISSUER}=${SUBJECT}`, '--json'],
        env(),
      )
      expect(added.status, added.stdout + added.stderr).toBe(0)
      expect(added.json()).toMatchObject({name: 'signed-oci', signer: {format: 'sigstore', fingerprint: `${ISSUER}=${SUBJECT}`}})
    }, 60_000)
    const install = (sb: Sandbox, name: string) =>
      loadout(sb, ['install', `${name}@signed-oci`, '--agent', 'codex', '--scope', 'project', '--yes', '--json'], env())

    it('a plugin whose attached bundle verifies to the pinned identity installs; the lock records the signer', async () => {
      const done = await install(author, 'kit')
      expect(done.status, done.stdout + done.stderr).toBe(0)
      expect(done.json()).toMatchObject({plugin: 'kit@signed-oci', signer: `${ISSUER}=${SUBJECT}`})
      const lock = JSON.parse(readFileSync(join(author.project, 'loadout.lock'), 'utf8')) as {installs: Array<{signer?: string}>}
      expect(lock.installs.map((r) => r.signer)).toEqual([`${ISSUER}=${SUBJECT}`])
    }, 60_000)

    it('--offline installs it again from the cache, its kept bundle verified anew; with no kept bundle it is refused, naming why', async () => {
      const removed = await loadout(author, ['uninstall', 'kit@signed-oci', '--scope', 'project', '--yes', '--json'], env())
      expect(removed.status, removed.stdout + removed.stderr).toBe(0)
      // without the test CA any request to the registry would fail: the offline run makes none
      const offline = {env: {LOADOUT_SIGSTORE_TRUSTED_ROOT: sigstore.trustedRoot, NODE_EXTRA_CA_CERTS: ''}}
      const args = ['install', 'kit@signed-oci', '--agent', 'codex', '--scope', 'project', '--yes', '--offline', '--json']
      const again = await loadout(author, args, offline)
      expect(again.status, again.stdout + again.stderr).toBe(0)
      expect(again.json()).toMatchObject({plugin: 'kit@signed-oci', signer: `${ISSUER}=${SUBJECT}`})
      const kept = join(author.home, '.cache', 'loadout', 'oci-signatures')
      // kit's bundle, beside the catalog's (checked at marketplace add)
      expect(readdirSync(kept)).toContain(`${repoAndDigest(references.kit!).digest.slice('sha256:'.length)}.json`)

      expect((await loadout(author, ['uninstall', 'kit@signed-oci', '--scope', 'project', '--yes', '--json'], env())).status).toBe(0)
      rmSync(kept, {recursive: true})
      const refused = await loadout(author, args, offline)
      expect(refused.status, refused.stdout + refused.stderr).toBe(6)
      expect(jsonError(refused)).toMatchObject({code: 'offline-not-cached', message: expect.stringContaining('no verified signature')})
      // back as it was for the tests below
      expect((await install(author, 'kit')).status).toBe(0)
    }, 60_000)

    it('a bundle by another identity is refused (exit 7), naming the digest and the identity seen; nothing is written', async () => {
      const done = await install(author, 'impostor')
      expect(done.status, done.stdout + done.stderr).toBe(7)
      const error = jsonError(done)
      expect(error.code).toBe('untrusted-identity')
      expect(error.message).toContain(repoAndDigest(references.impostor!).digest)
      expect(error.message).toContain('mallory/kit')
      expect(readFileSync(join(author.project, 'loadout.lock'), 'utf8')).not.toContain('impostor')
    }, 60_000)

    it('a plugin with no bundle attached is refused (exit 7), naming its digest; a cosign legacy .sig tag is named, not taken', async () => {
      const done = await install(author, 'bare')
      expect(done.status, done.stdout + done.stderr).toBe(7)
      const error = jsonError(done)
      expect(error.code).toBe('unsigned-source')
      const {repository, digest} = repoAndDigest(references.bare!)
      expect(error.message).toContain(digest)
      expect(error.message).toContain(`tag ${digest.replace(':', '-')}`)
      expect(error.details).not.toHaveProperty('cosignLegacyTag')

      // a manifest under cosign's legacy tag sha256-<hex>.sig: still unsigned for loadout, and the error says why
      const manifest = await registryRequest('GET', `/v2/${repository}/manifests/${digest}`, {accept: 'application/vnd.oci.image.manifest.v1+json'})
      const legacy = `${digest.replace(':', '-')}.sig`
      const put = await registryRequest(
        'PUT',
        `/v2/${repository}/manifests/${legacy}`,
        {'content-type': 'application/vnd.oci.image.manifest.v1+json'},
        manifest.body,
      )
      expect(put.status).toBe(201)
      const again = await install(author, 'bare')
      expect(again.status, again.stdout + again.stderr).toBe(7)
      expect(jsonError(again).code).toBe('unsigned-source')
      expect(jsonError(again).details).toMatchObject({cosignLegacyTag: legacy})
      expect(jsonError(again).suggestions.join(' ')).toContain('--new-bundle-format')
    }, 60_000)

    it("a teammate's install --frozen checks the signature again: it installs, and fails (exit 7) once the bundle is gone", async () => {
      const mate = sandbox({git: true})
      dockerLogin(mate)
      for (const name of ['loadout.json', 'loadout.lock']) cpSync(join(author.project, name), join(mate.project, name))
      const frozen = await loadout(mate, ['install', '--frozen', '--yes', '--json'], env())
      expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
      expect(readFileSync(join(mate.project, 'loadout.lock'), 'utf8')).toBe(readFileSync(join(author.project, 'loadout.lock'), 'utf8'))

      // the referrers index now lists nothing: the signature is no longer attached
      const {repository, digest} = repoAndDigest(references.kit!)
      const empty = Buffer.from(JSON.stringify({schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: []}))
      const put = await registryRequest(
        'PUT',
        `/v2/${repository}/manifests/${digest.replace(':', '-')}`,
        {'content-type': 'application/vnd.oci.image.index.v1+json'},
        empty,
      )
      expect(put.status).toBe(201)
      const again = sandbox({git: true})
      dockerLogin(again)
      for (const name of ['loadout.json', 'loadout.lock']) cpSync(join(author.project, name), join(again.project, name))
      const refused = await loadout(again, ['install', '--frozen', '--yes', '--json'], env())
      expect(refused.status, refused.stdout + refused.stderr).toBe(7)
      expect(jsonError(refused).code).toBe('unsigned-source')
      expect(jsonError(refused).message).toContain(digest)
    }, 120_000)
  })

  describe('the catalog artifact of a marketplace added with --signed-by-identity is checked too', () => {
    const add = (sb: Sandbox, repository: string) =>
      loadout(sb, ['marketplace', 'add', `oci://${registry.host}/${repository}:latest`, '--signed-by-identity', `${ISSUER}=${SUBJECT}`, '--json'], env())
    const listed = async (sb: Sandbox) => (await loadout(sb, ['marketplace', 'list', '--json'], env())).json<Array<{name: string}>>()

    it('one with no bundle attached is refused (exit 7), naming its digest, and nothing is added', async () => {
      const {pinned} = await pushCatalog(join(work.dir, 'market'), 'acme/unsigned-catalog:latest')
      const sb = sandbox({git: true})
      dockerLogin(sb)
      const refused = await add(sb, 'acme/unsigned-catalog')
      expect(refused.status, refused.stdout + refused.stderr).toBe(7)
      expect(jsonError(refused).code).toBe('unsigned-source')
      expect(jsonError(refused).message).toContain(repoAndDigest(pinned).digest)
      expect(JSON.stringify(await listed(sb))).not.toContain('signed-oci')
    }, 60_000)

    it('one signed by another identity is refused (exit 7), naming who signed it', async () => {
      const {pinned} = await pushCatalog(join(work.dir, 'market'), 'acme/mallory-catalog:latest')
      await signAndAttach(pinned, MALLORY)
      const sb = sandbox({git: true})
      dockerLogin(sb)
      const refused = await add(sb, 'acme/mallory-catalog')
      expect(refused.status, refused.stdout + refused.stderr).toBe(7)
      expect(jsonError(refused).code).toBe('untrusted-identity')
      expect(jsonError(refused).message).toContain('mallory/kit')
      expect(JSON.stringify(await listed(sb))).not.toContain('signed-oci')
    }, 60_000)

    it('marketplace update checks each new catalog: a signed one is taken, an unsigned one refused (exit 7) and the last good one kept', async () => {
      const folder = join(work.dir, 'moving-market')
      cpSync(join(work.dir, 'market'), folder, {recursive: true})
      await signAndAttach((await pushCatalog(folder, 'acme/moving:latest')).pinned, SUBJECT)
      const sb = sandbox({git: true})
      dockerLogin(sb)
      expect((await add(sb, 'acme/moving')).status).toBe(0)
      const catalogFile = join(folder, '.claude-plugin', 'marketplace.json')
      const rewrite = (description: string) => writeFileSync(catalogFile, JSON.stringify({...JSON.parse(readFileSync(catalogFile, 'utf8')), description}))
      rewrite('Second edition.')
      await signAndAttach((await pushCatalog(folder, 'acme/moving:latest')).pinned, SUBJECT)
      const updated = await loadout(sb, ['marketplace', 'update', 'signed-oci', '--json'], env())
      expect(updated.status, updated.stdout + updated.stderr).toBe(0)
      const info = async () => (await loadout(sb, ['marketplace', 'info', 'signed-oci', '--json'], env())).json<{description?: string}>()
      expect((await info()).description).toBe('Second edition.')
      rewrite('Third edition, unsigned.')
      const {pinned} = await pushCatalog(folder, 'acme/moving:latest')
      const refused = await loadout(sb, ['marketplace', 'update', 'signed-oci', '--json'], env())
      expect(refused.status, refused.stdout + refused.stderr).toBe(7)
      expect(refused.stdout + refused.stderr).toContain(repoAndDigest(pinned).digest)
      expect((await info()).description).toBe('Second edition.')
    }, 120_000)
  })

  it('policy requireSigned for the registry host refuses a direct install that pins no identity (exit 11)', async () => {
    const sb = sandbox({git: true})
    dockerLogin(sb)
    const policy = join(sb.dir, 'policy.json')
    writeFileSync(policy, JSON.stringify({requireSigned: {hosts: [registry.host]}}))
    const done = await loadout(sb, ['install', references.kit!, '--agent', 'codex', '--scope', 'project', '--yes', '--json'], env({LOADOUT_POLICY: policy}))
    expect(done.status, done.stdout + done.stderr).toBe(11)
    expect(jsonError(done).code).toBe('policy-refused')
  }, 60_000)
})
