/**
 * Policy `minimumReleaseAge` for npm sources, against a registry stand-in on 127.0.0.1 whose
 * packuments carry npm's `time` field: a range takes the newest version published before the
 * cool-down (pnpm's rule), a version only too young releases satisfy is refused (exit 11,
 * `release-too-young`), and a packument without a publication time for the version is refused
 * (exit 11, `release-date-unknown`, as pnpm refuses metadata without `time`).
 */
import {createHash} from 'node:crypto'
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

let work: string
let server: TestHttpsServer
const sandbox = sandboxes()
const HOUR = 3600_000
const DAY = 24 * HOUR

const packTarball = async (name: string, version: string): Promise<Buffer> => {
  const dir = mkdtempSync(join(work, 'pack-'))
  const pkg = join(dir, 'package')
  mkdirSync(join(pkg, '.claude-plugin'), {recursive: true})
  mkdirSync(join(pkg, 'skills', 'aging-skill'), {recursive: true})
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({name, version}))
  writeFileSync(join(pkg, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version}))
  writeFileSync(join(pkg, 'skills', 'aging-skill', 'SKILL.md'), `---\nname: aging-skill\ndescription: Aging tools.\n---\n\n${name} ${version}\n`)
  const file = join(dir, 'package.tgz')
  await create({gzip: true, file, cwd: dir, portable: true}, ['package'])
  return readFileSync(file)
}

/** Publishes `versions` (version -> age in ms, or null for a version the packument gives no time for). */
const publish = async (name: string, versions: Record<string, number | null>) => {
  const entries: Record<string, object> = {}
  const time: Record<string, string> = {}
  for (const [version, age] of Object.entries(versions)) {
    const bytes = await packTarball(name, version)
    const tarball = `/tarballs/${name}-${version}.tgz`
    server.file(tarball, bytes)
    entries[version] = {name, version, dist: {tarball: server.url(tarball), integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`}}
    if (age !== null) time[version] = new Date(Date.now() - age).toISOString()
  }
  server.json(`/${name}`, {name, 'dist-tags': {latest: Object.keys(versions).at(-1)}, versions: entries, time})
}

const install = (spec: string, policy?: object) => {
  const sb = sandbox({git: true})
  if (policy) writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify(policy))
  return loadout(sb, ['install', spec, '--agent', 'universal', '--scope', 'user', '--yes', '--json'], {
    env: {...server.trustEnv(), LOADOUT_NPM_REGISTRY: server.origin},
  })
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-npm-age-')))
  server = await startHttpsServer()
  await publish('aging-tools', {'1.0.0': 30 * DAY, '1.1.0': HOUR})
  await publish('timeless-tools', {'1.0.0': null})
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('minimumReleaseAge for npm packages', () => {
  const policy = {minimumReleaseAge: '7d'}

  it('without a cool-down the newest version is taken', async () => {
    const done = await install('npm:aging-tools')
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({version: '1.1.0'})
  })

  it('a version published an hour ago is passed over for the newest one older than 7d', async () => {
    const done = await install('npm:aging-tools', policy)
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({version: '1.0.0'})
  })

  it('a version only too young releases satisfy is refused (exit 11), naming it and the rule', async () => {
    const done = await install('npm:aging-tools@1.1.0', policy)
    expect(done.status, done.stdout + done.stderr).toBe(11)
    expect(jsonError(done).code).toBe('release-too-young')
    expect(jsonError(done).message).toContain('1.1.0')
    expect(jsonError(done).message).toContain('minimumReleaseAge 7d')
  })

  it('a version the registry gives no publication time for is refused (exit 11)', async () => {
    const done = await install('npm:timeless-tools', policy)
    expect(done.status, done.stdout + done.stderr).toBe(11)
    expect(jsonError(done).code).toBe('release-date-unknown')
    expect(jsonError(done).message).toContain('timeless-tools@1.0.0')
  })
})
