/**
 * The `npm` source kind against a real registry on 127.0.0.1: static packuments and tarballs behind
 * the HTTPS test server (test CA), fetched by pacote as npm would. A static registry, rather than a
 * registry program, because it is all pacote reads (GET packument, GET tarball), it starts in
 * milliseconds with no extra dependency, and it lets a test serve a tarball other than the one the
 * packument's integrity names.
 */
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

let work: string
const published: Record<string, Buffer> = {}
let server: TestHttpsServer
const sandbox = sandboxes()
const integrityOf = (bytes: Buffer) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`

/** A package tarball as npm packs it: every file under `package/`. */
const packTarball = async (name: string, version: string, text: string): Promise<Buffer> => {
  const dir = mkdtempSync(join(work, 'pack-'))
  const pkg = join(dir, 'package')
  mkdirSync(join(pkg, '.claude-plugin'), {recursive: true})
  mkdirSync(join(pkg, 'skills', 'tools-skill'), {recursive: true})
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({name, version}))
  writeFileSync(join(pkg, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'tools', version}))
  writeFileSync(join(pkg, 'skills', 'tools-skill', 'SKILL.md'), `---\nname: tools-skill\ndescription: Tools from npm.\n---\n\n${text}\n`)
  const file = join(dir, 'package.tgz')
  await create({gzip: true, file, cwd: dir, portable: true}, ['package'])
  return readFileSync(file)
}

/** Serves a packument (at npm's escaped path) and the tarballs; `served` overrides what a tarball URL returns. */
const publish = (name: string, versions: Record<string, Buffer>, served: Record<string, Buffer> = {}) => {
  const escaped = name.replace('/', '%2f')
  const packument = {
    name,
    'dist-tags': {latest: Object.keys(versions).at(-1)},
    versions: Object.fromEntries(
      Object.entries(versions).map(([version, bytes]) => {
        const tarball = `/tarballs/${escaped}-${version}.tgz`
        server.file(tarball, served[version] ?? bytes)
        return [version, {name, version, dist: {tarball: server.url(tarball), integrity: integrityOf(bytes)}}]
      }),
    ),
  }
  server.json(`/${escaped}`, packument)
}

const marketplace = (dir: string, entries: Array<Record<string, unknown>>) => {
  mkdirSync(join(dir, '.claude-plugin'), {recursive: true})
  writeFileSync(join(dir, '.claude-plugin', 'marketplace.json'), JSON.stringify({name: 'npmkt', owner: {name: 'Acme'}, plugins: entries}))
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-npm-')))
  server = await startHttpsServer()
  const v120 = await packTarball('@acme/tools', '1.2.0', 'tools 1.2.0')
  const v130 = await packTarball('@acme/tools', '1.3.0', 'tools 1.3.0')
  const v200 = await packTarball('@acme/tools', '2.0.0', 'tools 2.0.0')
  Object.assign(published, {'1.2.0': v120, '1.3.0': v130, '2.0.0': v200})
  publish('@acme/tools', published)
  const good = await packTarball('bad-tools', '1.0.0', 'the published bytes')
  const evil = await packTarball('bad-tools', '1.0.0', 'other bytes')
  publish('bad-tools', {'1.0.0': good}, {'1.0.0': evil})
  // an old publish: the registry gives only a sha1 shasum, no dist.integrity
  const old = await packTarball('old-tools', '1.0.0', 'old tools')
  server.file('/tarballs/old-tools-1.0.0.tgz', old)
  server.json('/old-tools', {
    name: 'old-tools',
    'dist-tags': {latest: '1.0.0'},
    versions: {
      '1.0.0': {
        name: 'old-tools',
        version: '1.0.0',
        dist: {tarball: server.url('/tarballs/old-tools-1.0.0.tgz'), shasum: createHash('sha1').update(old).digest('hex')},
      },
    },
  })
  marketplace(join(work, 'market'), [
    {name: 'tools', source: {source: 'npm', package: '@acme/tools', version: '^1.2.0', registry: server.origin}},
    {name: 'bad', source: {source: 'npm', package: 'bad-tools', registry: server.origin}},
    {name: 'nope', source: {source: 'npm', package: 'Not A Name', registry: server.origin}},
  ])
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('npm sources', () => {
  it('installs the highest version the range allows, checked against dist.integrity, cached and recorded', async () => {
    const sb = sandbox({git: true})
    const env = {env: server.trustEnv()}
    expect((await loadout(sb, ['marketplace', 'add', join(work, 'market'), '--scope', 'user', '--json'], env)).status).toBe(0)
    const info = (await loadout(sb, ['marketplace', 'info', 'npmkt', '--json'], env)).json()
    expect(info.plugins.map((p: {name: string}) => p.name)).toEqual(['tools', 'bad'])

    const result = await loadout(sb, ['install', 'tools@npmkt', '--agent', 'universal', '--scope', 'project', '--yes', '--json'], env)
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'tools@npmkt', version: '1.3.0'})
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'tools-skill', 'SKILL.md'), 'utf8')).toContain('tools 1.3.0')
    const lock = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8')) as {installs: Array<Record<string, unknown>>}
    const v130 = server.requestsTo('/tarballs/@acme%2ftools-1.3.0.tgz')
    expect(v130.length).toBe(1)
    expect(lock.installs[0]).toMatchObject({plugin: 'tools@npmkt', artifact: {version: '1.3.0'}})
    expect(String((lock.installs[0]!.artifact as {integrity: string}).integrity)).toMatch(/^sha512-/)
    // cached under loadout's cache folder
    expect(readdirSync(join(sb.home, '.cache', 'loadout', 'npm', 'trees')).filter((n) => !n.startsWith('.')).length).toBe(1)

    // a fresh install from the lock fetches the pinned version, even after a newer 1.x is published
    const v140 = await packTarball('@acme/tools', '1.4.0', 'tools 1.4.0')
    publish('@acme/tools', {...published, '1.4.0': v140})
    rmSync(join(sb.project, '.agents'), {recursive: true, force: true})
    const again = await loadout(sb, ['install', '--yes', '--json'], env)
    expect(again.status, again.stderr + again.stdout).toBe(0)
    expect(readFileSync(join(sb.project, '.agents', 'skills', 'tools-skill', 'SKILL.md'), 'utf8')).toContain('tools 1.3.0')
  })

  it("refuses a tarball that does not match the registry's integrity (exit 7) and writes nothing", async () => {
    const sb = sandbox()
    const env = {env: server.trustEnv()}
    expect((await loadout(sb, ['marketplace', 'add', join(work, 'market'), '--scope', 'user'], env)).status).toBe(0)
    const result = await loadout(sb, ['install', 'bad@npmkt', '--agent', 'universal', '--scope', 'user', '--yes', '--json'], env)
    expect(result.status, result.stdout).toBe(7)
    expect(jsonError(result).code).toBe('integrity-mismatch')
    expect(existsSync(join(sb.home, '.agents', 'skills', 'tools-skill'))).toBe(false)
    const trees = join(sb.home, '.cache', 'loadout', 'npm', 'trees')
    expect(existsSync(trees) ? readdirSync(trees) : []).toEqual([])
  })

  it('refuses a package the registry vouches for only with a sha1 shasum, fetching no tarball', async () => {
    const sb = sandbox()
    const env = {env: {...server.trustEnv(), LOADOUT_NPM_REGISTRY: server.origin}}
    const result = await loadout(sb, ['install', 'npm:old-tools@1.0.0', '--agent', 'universal', '--scope', 'user', '--yes', '--json'], env)
    expect(result.status, result.stdout).toBe(7)
    expect(jsonError(result)).toMatchObject({code: 'npm-no-integrity', message: expect.stringContaining('sha1')})
    expect(server.requestsTo('/tarballs/old-tools-1.0.0.tgz')).toEqual([])
  })

  it('installs straight from a registry with npm:<package>@<range> (LOADOUT_NPM_REGISTRY)', async () => {
    const sb = sandbox()
    const env = {env: {...server.trustEnv(), LOADOUT_NPM_REGISTRY: server.origin}}
    const result = await loadout(sb, ['install', 'npm:@acme/tools@~1.2.0', '--agent', 'universal', '--scope', 'user', '--yes', '--json'], env)
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'tools@direct', version: '1.2.0', source: 'npm:@acme/tools@~1.2.0'})
    expect(readFileSync(join(sb.home, '.agents', 'skills', 'tools-skill', 'SKILL.md'), 'utf8')).toContain('tools 1.2.0')
    const bad = await loadout(sb, ['install', 'npm:Bad Name', '--agent', 'universal', '--scope', 'user', '--yes', '--json'], env)
    expect(bad.status).toBe(2)
    const missing = await loadout(sb, ['install', 'npm:@acme/tools@^9', '--agent', 'universal', '--scope', 'user', '--yes', '--json'], env)
    expect(missing.status).toBe(3)
    expect(jsonError(missing).code).toBe('npm-not-found')
  })

  it('skips a catalog entry whose package name npm would refuse, with the rule', async () => {
    const sb = sandbox()
    const added = await loadout(sb, ['marketplace', 'add', join(work, 'market'), '--scope', 'user'], {env: server.trustEnv()})
    expect(added.status).toBe(0)
    const text = added.stdout + added.stderr
    expect(text).toContain('is not an npm package name')
  })
})
