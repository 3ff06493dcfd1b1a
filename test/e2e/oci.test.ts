/**
 * OCI registries as a channel, end to end through bin/run.js against the real CNCF distribution
 * registry (Debian's docker-registry, test/support/oci-registry.ts) on 127.0.0.1 behind htpasswd basic
 * auth (and, in one test, token auth from a token server of ours). Credentials are given the way
 * Docker keeps them: ~/.docker/config.json in the sandbox HOME.
 */
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {request} from 'node:https'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {startOciRegistry, type OciRegistry} from '../support/oci-registry.js'
import {filesHolding, jsonError, loadout, sandboxes, type RunOptions} from './helpers.js'
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
    const install = await loadout(author, ['install', '--loose', ref, '--agent', 'claude-code,codex', '--scope', 'project', '--yes', '--json'], trust(registry))
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

describe('a tag that moves', () => {
  it('a teammate gets the digest the lock records, not what the tag names now; outdated says the tag moved', async () => {
    const author = sandbox({git: true})
    dockerLogin(author, registry)
    const first = await push(author, writePlugin(join(author.dir, 'moving-1'), 'moving', '1.0.0', 'first content'), `oci://${registry.host}/acme/moving:stable`)
    const install = await loadout(
      author,
      ['install', `oci://${registry.host}/acme/moving:stable`, '--agent', 'codex', '--scope', 'project', '--yes', '--json'],
      trust(registry),
    )
    expect(install.status, install.stderr + install.stdout).toBe(0)
    const second = await push(
      author,
      writePlugin(join(author.dir, 'moving-2'), 'moving', '1.0.1', 'second content'),
      `oci://${registry.host}/acme/moving:stable`,
    )
    expect(second.digest).not.toBe(first.digest)

    const mate = sandbox({git: true})
    dockerLogin(mate, registry)
    for (const name of ['loadout.json', 'loadout.lock']) cpSync(join(author.project, name), join(mate.project, name))
    const frozen = await loadout(mate, ['install', '--frozen', '--yes', '--json'], trust(registry))
    expect(frozen.status, frozen.stderr + frozen.stdout).toBe(0)
    expect(readFileSync(join(mate.project, '.agents', 'skills', 'moving-skill', 'SKILL.md'), 'utf8')).toContain('first content')

    const outdated = await loadout(author, ['outdated', '--json'], trust(registry))
    expect(outdated.json<{rows: unknown[]}>().rows).toEqual([expect.objectContaining({outdated: true, reason: 'the tag names a new digest'})])
  }, 120_000)
})

describe('what an OCI registry serves is checked', () => {
  it('refuses a tampered layer blob (exit 7) and writes nothing: no skill, no lock, no cache folder', async () => {
    const sb = sandbox({git: true})
    dockerLogin(sb, registry)
    const pushed = await push(
      sb,
      writePlugin(join(sb.dir, 'tampered'), 'tampered', '1.0.0', 'the published bytes'),
      `oci://${registry.host}/acme/tampered:1.0.0`,
    )
    registry.tamperBlob(pushed.layer.digest)
    const result = await loadout(
      sb,
      ['install', '--loose', `oci://${registry.host}/acme/tampered:1.0.0`, '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'],
      trust(registry),
    )
    expect(result.status, result.stderr + result.stdout).toBe(7)
    const error = jsonError(result)
    expect(error.code).toBe('integrity-mismatch')
    expect(error.message).toContain(pushed.layer.digest)
    expect(existsSync(join(sb.project, '.claude'))).toBe(false)
    expect(existsSync(join(sb.project, 'loadout.lock'))).toBe(false)
    const cache = join(sb.home, '.cache', 'loadout')
    expect(existsSync(cache) ? readdirSync(cache).filter((name) => name.includes('oci')) : []).toEqual([])
  }, 60_000)

  it('refuses a registry the policy blocks before any request, for install and for push', async () => {
    const sb = sandbox({git: true})
    dockerLogin(sb, registry)
    const policy = join(sb.dir, 'policy.json')
    writeFileSync(policy, JSON.stringify({sources: {block: [`127.0.0.1:${registry.port}`]}}))
    const env = {env: {NODE_EXTRA_CA_CERTS: registry.caFile, LOADOUT_POLICY: policy}}
    const install = await loadout(
      sb,
      ['install', '--loose', `oci://${registry.host}/acme/kit:1.0.0`, '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'],
      env,
    )
    expect(install.status, install.stderr + install.stdout).toBe(11)
    expect(jsonError(install).code).toBe('policy-refused')
    const pushed = await loadout(
      sb,
      ['plugin', 'push', writePlugin(join(sb.dir, 'blocked'), 'blocked', '1.0.0', 'x'), `oci://${registry.host}/acme/blocked:1.0.0`, '--json'],
      env,
    )
    expect(pushed.status, pushed.stderr + pushed.stdout).toBe(11)
    // nothing reached the registry: the tag was never pushed
    const check = await loadout(
      sb,
      ['install', '--loose', `oci://${registry.host}/acme/blocked:1.0.0`, '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'],
      trust(registry),
    )
    expect(check.status).toBe(3)
  }, 60_000)
})

/** Re-tags a pushed manifest under `tag` with the OCI `created` annotation set to `created`, as a build tool that stamps dates would. */
const retagCreated = async (reg: OciRegistry, repository: string, digest: string, tag: string, created: Date): Promise<void> => {
  const auth = `Basic ${Buffer.from(`${reg.username}:${reg.password}`).toString('base64')}`
  const ask = (path: string, init: {method?: string; headers?: Record<string, string>; body?: string} = {}) =>
    new Promise<{status: number; body: string}>((resolve, reject) => {
      const req = request(
        `${reg.origin}/v2/${repository}${path}`,
        {ca: readFileSync(reg.caFile, 'utf8'), method: init.method ?? 'GET', headers: {authorization: auth, ...init.headers}},
        (res) => {
          let body = ''
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
          res.on('end', () => resolve({status: res.statusCode ?? 0, body}))
        },
      )
      req.on('error', reject)
      req.end(init.body)
    })
  const got = await ask(`/manifests/${digest}`, {headers: {accept: 'application/vnd.oci.image.manifest.v1+json'}})
  expect(got.status).toBe(200)
  const manifest = JSON.parse(got.body) as {annotations?: Record<string, string>}
  manifest.annotations = {...manifest.annotations, 'org.opencontainers.image.created': created.toISOString()}
  const put = await ask(`/manifests/${tag}`, {
    method: 'PUT',
    headers: {'content-type': 'application/vnd.oci.image.manifest.v1+json'},
    body: JSON.stringify(manifest),
  })
  expect(put.status, put.body).toBe(201)
}

describe('policy minimumReleaseAge for OCI artifacts', () => {
  it('an artifact whose created annotation is an hour old is refused under a 7d cool-down (exit 11); an old one installs', async () => {
    const sb = sandbox({git: true})
    dockerLogin(sb, registry)
    const pushed = await push(sb, writePlugin(join(sb.dir, 'aged'), 'aged', '1.0.0', 'aged'), `oci://${registry.host}/acme/aged:1.0.0`)
    await retagCreated(registry, 'acme/aged', pushed.digest, 'fresh', new Date(Date.now() - 3600_000))
    await retagCreated(registry, 'acme/aged', pushed.digest, 'seasoned', new Date(Date.now() - 30 * 24 * 3600_000))
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({minimumReleaseAge: '7d'}))
    const install = (tag: string) =>
      loadout(sb, ['install', `oci://${registry.host}/acme/aged:${tag}`, '--agent', 'codex', '--scope', 'project', '--yes', '--json'], trust(registry))
    const fresh = await install('fresh')
    expect(fresh.status, fresh.stderr + fresh.stdout).toBe(11)
    expect(jsonError(fresh).code).toBe('release-too-young')
    expect(jsonError(fresh).message).toContain('minimumReleaseAge 7d')
    const seasoned = await install('seasoned')
    expect(seasoned.status, seasoned.stderr + seasoned.stdout).toBe(0)
  }, 120_000)
})

/** Passes a request on to the real registry (credentials as `authorization`) and its answer back. */
const forward = (req: IncomingMessage, res: ServerResponse, authorization: string | undefined): void => {
  const headers = {...req.headers, host: registry.host, ...(authorization ? {authorization} : {})}
  const upstream = request(`${registry.origin}${req.url}`, {method: req.method, headers, ca: registry.ca.caCert}, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  upstream.on('error', () => res.destroy())
  req.pipe(upstream)
}

describe('a registry that redirects a blob to another host', () => {
  // the front of a registry (proxying the real one) that sends every blob GET to a blob host on another
  // port, as registries send blobs to a storage bucket or CDN; the blob host serves the registry's bytes
  let front: TestHttpsServer
  let blobs: TestHttpsServer
  beforeAll(async () => {
    front = await startHttpsServer({ca: registry.ca})
    blobs = await startHttpsServer({ca: registry.ca})
    const basic = `Basic ${Buffer.from(`${registry.username}:${registry.password}`).toString('base64')}`
    front.route('/v2/*', (req, res) => {
      if (req.method === 'GET' && /\/blobs\/sha256:[0-9a-f]{64}$/.test(req.url ?? '')) {
        req.resume()
        res.writeHead(307, {location: blobs.url(req.url!)})
        res.end()
        return
      }
      forward(req, res, undefined)
    })
    blobs.route('/v2/*', (req, res) => {
      // a presigned URL: the blob host needs no Authorization from the client, and must get none
      if (req.headers.authorization) {
        req.resume()
        res.writeHead(400)
        res.end('an Authorization header reached the blob host')
        return
      }
      forward(req, res, basic)
    })
  })
  afterAll(async () => {
    await front?.stop()
    await blobs?.stop()
  })

  it('follows the redirect when the policy allows the blob host (no credentials sent there), and refuses it (exit 11) when not', async () => {
    const sb = sandbox({git: true})
    mkdirSync(join(sb.home, '.docker'), {recursive: true})
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
    writeFileSync(join(sb.home, '.docker', 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}, [`127.0.0.1:${front.port}`]: {auth}}}))
    const pushed = await push(sb, writePlugin(join(sb.dir, 'hopped'), 'hopped', '1.0.0', 'behind a redirect'), `oci://${registry.host}/acme/hopped:1.0.0`)
    const ref = `oci://127.0.0.1:${front.port}/acme/hopped@${pushed.digest}`
    const policy = join(sb.dir, 'policy.json')
    const install = (allowed: string[]) => {
      writeFileSync(policy, JSON.stringify({sources: {allow: allowed}}))
      return loadout(sb, ['install', ref, '--agent', 'codex', '--scope', 'project', '--yes', '--json'], {
        env: {NODE_EXTRA_CA_CERTS: registry.caFile, LOADOUT_POLICY: policy},
      })
    }

    const refused = await install([`127.0.0.1:${front.port}`])
    expect(refused.status, refused.stderr + refused.stdout).toBe(11)
    expect(jsonError(refused).code).toBe('policy-refused')
    expect(jsonError(refused).message).toContain(`127.0.0.1:${blobs.port}`)
    // the manifest came through the front; the blob host was never asked
    expect(front.requestsTo('/v2/acme/hopped/blobs').length).toBeGreaterThan(0)
    expect(blobs.requests).toEqual([])
    expect(existsSync(join(sb.project, '.agents', 'skills', 'hopped-skill'))).toBe(false)

    const allowed = await install([`127.0.0.1:${front.port}`, `127.0.0.1:${blobs.port}`])
    expect(allowed.status, allowed.stderr + allowed.stdout).toBe(0)
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'hopped-skill', 'SKILL.md'), 'utf8')).toContain('behind a redirect')
    expect(blobs.requests.length).toBeGreaterThan(0)
    expect(blobs.requests.every((r) => r.headers.authorization === undefined)).toBe(true)
  }, 120_000)
})

describe('a registry that fails for a while or stalls', () => {
  // a front of the real registry that answers 503 to the next `failures` manifest GETs, and lets a
  // blob GET hang while `stall` is set
  let front: TestHttpsServer
  let failures = 0
  let stall = false
  beforeAll(async () => {
    front = await startHttpsServer({ca: registry.ca})
    front.route('/v2/*', (req, res) => {
      if (req.method === 'GET' && req.url?.includes('/manifests/') && failures > 0) {
        failures--
        req.resume()
        res.writeHead(503, {'content-type': 'application/json'})
        res.end('{"errors":[{"code":"UNAVAILABLE"}]}')
        return
      }
      if (req.method === 'GET' && req.url?.includes('/blobs/') && stall) return // never answered
      forward(req, res, undefined)
    })
  })
  afterAll(async () => {
    await front?.stop()
  })

  it('LOADOUT_OCI_RETRIES tries a GET again after a 503; LOADOUT_OCI_TIMEOUT ends a stalled one (exit 6)', async () => {
    const sb = sandbox({git: true})
    mkdirSync(join(sb.home, '.docker'), {recursive: true})
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
    writeFileSync(join(sb.home, '.docker', 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}, [`127.0.0.1:${front.port}`]: {auth}}}))
    const pushed = await push(sb, writePlugin(join(sb.dir, 'flaky'), 'flaky', '1.0.0', 'after a while'), `oci://${registry.host}/acme/flaky:1.0.0`)
    const ref = `oci://127.0.0.1:${front.port}/acme/flaky@${pushed.digest}`
    const install = (env: Record<string, string>) =>
      loadout(sb, ['install', ref, '--agent', 'codex', '--scope', 'project', '--yes', '--json'], {env: {NODE_EXTRA_CA_CERTS: registry.caFile, ...env}})

    failures = 1
    const once = await install({LOADOUT_OCI_RETRIES: '0'})
    expect(once.status, once.stderr + once.stdout).toBe(6)
    expect(jsonError(once).message).toContain('503')

    failures = 2
    const retried = await install({})
    expect(retried.status, retried.stderr + retried.stdout).toBe(0)
    expect(failures).toBe(0)

    stall = true
    const started = Date.now()
    const stalled = await install({LOADOUT_OCI_TIMEOUT: '1', LOADOUT_OCI_RETRIES: '0', LOADOUT_CACHE_DIR: join(sb.dir, 'empty-cache')})
    stall = false
    expect(stalled.status, stalled.stderr + stalled.stdout).toBe(6)
    expect(jsonError(stalled).message).toContain('timed out after 1 s (LOADOUT_OCI_TIMEOUT)')
    expect(Date.now() - started).toBeLessThan(20_000)
  }, 120_000)
})

describe('tag ranges', () => {
  it('oci://host/repo:^1.2 installs the highest tag in the range; outdated names the newer one it allows', async () => {
    const sb = sandbox({git: true})
    dockerLogin(sb, registry)
    for (const version of ['1.2.0', '1.3.0', '2.0.0'])
      await push(sb, writePlugin(join(sb.dir, `ranged-${version}`), 'ranged', version, `ranged ${version}`), `oci://${registry.host}/acme/ranged:${version}`)
    const result = await loadout(
      sb,
      ['install', `oci://${registry.host}/acme/ranged:^1.2`, '--agent', 'codex', '--scope', 'project', '--yes', '--json'],
      trust(registry),
    )
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(result.json()).toMatchObject({version: '1.3.0'})
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'ranged-skill', 'SKILL.md'), 'utf8')).toContain('ranged 1.3.0')

    await push(sb, writePlugin(join(sb.dir, 'ranged-1.4.0'), 'ranged', '1.4.0', 'ranged 1.4.0'), `oci://${registry.host}/acme/ranged:1.4.0`)
    const outdated = await loadout(sb, ['outdated', '--json'], trust(registry))
    expect(outdated.status, outdated.stderr).toBe(0)
    expect(outdated.json<{rows: unknown[]}>().rows).toEqual([
      expect.objectContaining({
        range: '^1.2',
        current: expect.objectContaining({version: '1.3.0'}),
        wanted: {version: '1.4.0'},
        latest: {version: '2.0.0'},
        outdated: true,
      }),
    ])
    const update = await loadout(sb, ['update', '--yes', '--json'], trust(registry))
    expect(update.status, update.stderr + update.stdout).toBe(0)
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'ranged-skill', 'SKILL.md'), 'utf8')).toContain('ranged 1.4.0')
  }, 120_000)
})

describe('marketplace push and add oci://', () => {
  it('publishes a catalog whose entries point at plugin digests; add, search and install work from it', async () => {
    const sb = sandbox({git: true})
    dockerLogin(sb, registry)
    const market = join(sb.dir, 'market')
    writePlugin(join(market, 'plugins', 'toolbox'), 'toolbox', '2.0.0', 'toolbox from the catalog')
    mkdirSync(join(market, '.claude-plugin'), {recursive: true})
    writeFileSync(
      join(market, '.claude-plugin', 'marketplace.json'),
      JSON.stringify({
        name: 'acme-oci',
        owner: {name: 'Acme'},
        plugins: [{name: 'toolbox', source: './plugins/toolbox', version: '2.0.0', description: 'Tools in a box'}],
      }),
    )
    const pushed = await loadout(sb, ['marketplace', 'push', market, `oci://${registry.host}/acme/catalog:latest`, '--json'], trust(registry))
    expect(pushed.status, pushed.stderr + pushed.stdout).toBe(0)
    const catalog = pushed.json<{digest: string; plugins: Array<{name: string; reference: string}>}>()
    expect(catalog.plugins).toEqual([
      {name: 'toolbox', reference: expect.stringMatching(new RegExp(`^oci://${registry.host}/acme/catalog/toolbox:2\\.0\\.0@sha256:[0-9a-f]{64}$`))},
    ])

    const added = await loadout(sb, ['marketplace', 'add', `oci://${registry.host}/acme/catalog:latest`, '--scope', 'user', '--json'], trust(registry))
    expect(added.status, added.stderr + added.stdout).toBe(0)
    const search = await loadout(sb, ['search', 'toolbox', '--json'], trust(registry))
    expect(search.stdout).toContain('toolbox@acme-oci')
    const install = await loadout(
      sb,
      ['install', '--loose', 'toolbox@acme-oci', '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'],
      trust(registry),
    )
    expect(install.status, install.stderr + install.stdout).toBe(0)
    expect(readFileSync(join(sb.project, '.claude', 'skills', 'toolbox-skill', 'SKILL.md'), 'utf8')).toContain('toolbox from the catalog')
    const lock = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8')) as {installs: Array<{artifact?: {integrity: string}}>}
    expect(catalog.plugins[0]!.reference).toContain(lock.installs[0]!.artifact!.integrity)
  }, 120_000)
})

describe('token auth', () => {
  let tokenRegistry: OciRegistry
  beforeAll(async () => {
    tokenRegistry = await startOciRegistry({auth: 'token'})
  }, 60_000)
  afterAll(async () => {
    await tokenRegistry?.stop()
  })

  it('gets a Bearer token from the realm the registry names, with credentials from a Docker credential helper', async () => {
    const sb = sandbox({git: true})
    // a credential helper on PATH, named for the host in credHelpers, as `docker login` with one leaves it
    const bin = join(sb.dir, 'bin')
    mkdirSync(bin)
    writeFileSync(
      join(bin, 'docker-credential-acme'),
      `#!/bin/sh\nread host\n[ "$1" = get ] && [ "$host" = "${tokenRegistry.host}" ] || { echo "credentials not found in native keychain"; exit 1; }\necho '{"ServerURL":"${tokenRegistry.host}","Username":"${tokenRegistry.username}","Secret":"${tokenRegistry.password}"}'\n`,
      {mode: 0o755},
    )
    mkdirSync(join(sb.home, '.docker'), {recursive: true})
    writeFileSync(join(sb.home, '.docker', 'config.json'), JSON.stringify({credHelpers: {[tokenRegistry.host]: 'acme'}}))
    const env = {env: {NODE_EXTRA_CA_CERTS: tokenRegistry.caFile, PATH: `${bin}:${process.env.PATH}`}}
    const dir = writePlugin(join(sb.dir, 'tokened'), 'tokened', '0.1.0', 'behind a token')
    const pushed = await loadout(sb, ['plugin', 'push', dir, `oci://${tokenRegistry.host}/acme/tokened:0.1.0`, '--json'], env)
    expect(pushed.status, pushed.stderr + pushed.stdout).toBe(0)
    const install = await loadout(
      sb,
      ['install', `oci://${tokenRegistry.host}/acme/tokened:0.1.0`, '--agent', 'codex', '--scope', 'project', '--yes', '--json'],
      env,
    )
    expect(install.status, install.stderr + install.stdout).toBe(0)
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'tokened-skill', 'SKILL.md'), 'utf8')).toContain('behind a token')
    const tokenRequests = tokenRegistry.tokenServer!.requests.filter((r) => r.path === '/token')
    expect(tokenRequests.length).toBeGreaterThan(0)
    expect(tokenRequests.every((r) => String(r.headers.authorization).startsWith('Basic '))).toBe(true)
    expect(tokenRequests.some((r) => r.query.includes('push'))).toBe(true)
    expect(filesHolding(sb.dir, tokenRegistry.password).filter((f) => !f.endsWith('docker-credential-acme'))).toEqual([])
    expect(pushed.stdout + pushed.stderr + install.stdout + install.stderr).not.toContain(tokenRegistry.password)

    // without credentials the registry's 401 is a clear error naming docker login, never a secret
    const anonymous = sandbox({git: true})
    const refused = await loadout(
      anonymous,
      ['install', `oci://${tokenRegistry.host}/acme/tokened:0.1.0`, '--agent', 'codex', '--scope', 'project', '--yes', '--json'],
      {env: {NODE_EXTRA_CA_CERTS: tokenRegistry.caFile}},
    )
    expect(refused.status).toBe(6)
    expect(jsonError(refused).code).toBe('oci-unauthorized')
  }, 120_000)
})
