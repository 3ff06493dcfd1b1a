/**
 * The marketplace and plugin-authoring commands on the fast path. Two sandboxes made alike run the
 * same steps, one through the fast path and one through oclif (LOADOUT_NO_FAST=1): every step must
 * print the same (sandbox paths and times aside), exit the same and leave the same files, and each
 * step must have taken the path expected (the modules loaded).
 */
import {createHash} from 'node:crypto'
import {lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {afterAll, beforeAll, describe, it} from 'vitest'
import {makeRepo} from '../support/git-repos.js'
import {startOciRegistry, type OciRegistry} from '../support/oci-registry.js'
import {sandboxes, type Sandbox} from './helpers.js'
import {writeKit} from './tx-support.js'
import {bothWays, fast, oclif, shown, type Step} from './both-ways.js'

const sandbox = sandboxes()
const runBoth = bothWays()

/** Every file and folder below the sandbox, each file with a hash of its text (sandbox paths and times aside). */
const files = (sb: Sandbox): string[] => {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name)
      const path = shown(sb, relative(sb.dir, full))
      if (lstatSync(full).isDirectory()) {
        out.push(`${path}/`)
        if (name !== '.git') walk(full)
      } else
        out.push(
          `${path} ${createHash('sha256')
            .update(shown(sb, readFileSync(full, 'utf8')))
            .digest('hex')
            .slice(0, 12)}`,
        )
    }
  }
  walk(sb.dir)
  return out
}

const holdsEqual = (pair: readonly [Sandbox, Sandbox], steps: readonly Step[], env: NodeJS.ProcessEnv = {}) => runBoth(pair, steps, {env, files})

const market = (sb: Sandbox) => join(sb.dir, 'market')

const withMarket = (): Sandbox => {
  const sb = sandbox({git: true})
  mkdirSync(join(market(sb), '.claude-plugin'), {recursive: true})
  writeKit(market(sb), 'review')
  writeFileSync(
    join(market(sb), '.claude-plugin', 'marketplace.json'),
    JSON.stringify({name: 'acme', owner: {name: 'Acme'}, plugins: [{name: 'review', source: './review', description: 'Reviews code'}]}),
  )
  return sb
}

describe('the fast path of marketplace list, info, update and remove', () => {
  it('prints, exits and writes what oclif does, step by step', async () => {
    await holdsEqual(
      [withMarket(), withMarket()],
      [
        fast(() => ['marketplace', 'list']),
        fast((sb) => ['marketplace', 'add', market(sb), '--scope', 'user']),
        fast(() => ['marketplace', 'list']),
        fast(() => ['marketplace', 'list', '--json']),
        oclif(() => ['marketplace', 'list', 'extra']),
        fast(() => ['marketplace', 'info', 'acme']),
        fast(() => ['marketplace', 'info', 'acme', '--json']),
        fast(() => ['marketplace', 'info', 'nothing', '--json'], 3),
        oclif(() => ['marketplace', 'info']),
        fast(() => ['marketplace', 'update']),
        fast(() => ['marketplace', 'update', 'acme', '--dry-run', '--json']),
        fast(() => ['marketplace', 'update', 'nothing'], 3),
        fast(() => ['marketplace', 'update', 'acme', '--auto-update', 'notify', '--json']),
        oclif(() => ['marketplace', 'update', 'acme', '--auto-update', 'often']),
        fast(() => ['marketplace', 'remove', 'acme'], 8),
        fast(() => ['marketplace', 'remove', 'nothing', '--yes'], 3),
        fast(() => ['marketplace', 'remove', 'acme', '--dry-run', '--json']),
        fast(() => ['marketplace', 'remove', 'acme', '-y', '--json']),
        oclif(() => ['marketplace', 'remove']),
        fast(() => ['marketplace', 'list', '--json']),
      ],
    )
  }, 300_000)
})

const team = (sb: Sandbox, ...below: string[]) => join(sb.project, 'team-tools', ...below)
const review = (sb: Sandbox) => team(sb, 'plugins', 'review')
const tagged = (sb: Sandbox) => join(sb.dir, 'tagged', 'plugins', 'b')

const forAuthoring = (): Sandbox => {
  const sb = sandbox({git: true})
  makeRepo(join(sb.dir, 'tagged'), {
    'plugins/b/.claude-plugin/plugin.json': JSON.stringify({name: 'b', version: '1.2.0', description: 'B'}),
    'plugins/b/skills/b/SKILL.md': '---\nname: b\ndescription: Does b\n---\nb\n',
  })
  mkdirSync(join(sb.dir, 'broken', '.claude-plugin'), {recursive: true})
  writeFileSync(join(sb.dir, 'broken', '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'Not Kebab', version: 1}))
  mkdirSync(join(sb.dir, 'dist'))
  return sb
}

describe('the fast path of the authoring commands', () => {
  it('prints, exits and writes what oclif does, step by step', async () => {
    const owner = ['--owner', 'Acme <tools@acme.dev>']
    const author = ['--author', 'Acme <tools@acme.dev>']
    await holdsEqual(
      [forAuthoring(), forAuthoring()],
      [
        fast(() => ['marketplace', 'create', 'team-tools', ...owner, '--dry-run', '--json']),
        fast(() => ['marketplace', 'create', 'team-tools', ...owner, '--format', 'all', '-d', 'Team tools']),
        fast(() => ['marketplace', 'create', 'team-tools', ...owner, '--no-git', '--json'], 5),
        fast(() => ['marketplace', 'create', 'Team_Tools', ...owner, '--no-git'], 2),
        oclif(() => ['marketplace', 'create', 'x', '--format', 'codex']),
        oclif(() => ['marketplace', 'create']),
        fast((sb) => ['plugin', 'create', 'review', '--with', 'skills,agents', '-d', 'Reviews code', ...author, '--dir', review(sb), '--no-git']),
        fast((sb) => ['plugin', 'create', 'lint', '-d', 'Lints', ...author, '--dir', team(sb, 'plugins', 'lint'), '--format', 'all', '--dry-run', '--json']),
        fast(() => ['plugin', 'create', 'Lint', '-d', 'Lints', ...author, '--no-git', '--json'], 2),
        oclif(() => ['plugin', 'create']),
        fast((sb) => ['plugin', 'validate', review(sb)]),
        fast((sb) => ['plugin', 'validate', review(sb), join(sb.dir, 'tagged', 'plugins'), '--strict', '--json']),
        fast((sb) => ['plugin', 'validate', join(sb.dir, 'broken')], 4),
        fast((sb) => ['plugin', 'validate', join(sb.dir, 'broken'), '--json'], 4),
        oclif((sb) => ['plugin', 'validate', review(sb), '--bogus']),
        fast((sb) => ['marketplace', 'add-plugin', review(sb), '--marketplace-dir', team(sb), '--dry-run', '--json']),
        fast((sb) => ['marketplace', 'add-plugin', review(sb), '--marketplace-dir', team(sb)]),
        fast((sb) => ['marketplace', 'add-plugin', join(sb.dir, 'broken'), '--marketplace-dir', team(sb), '--json'], 2),
        oclif(() => ['marketplace', 'add-plugin']),
        fast((sb) => ['marketplace', 'validate', team(sb)]),
        fast((sb) => ['marketplace', 'validate', team(sb), '--strict', '--json']),
        fast((sb) => ['marketplace', 'validate', join(sb.dir, 'broken')], 3),
        oclif((sb) => ['marketplace', 'validate', team(sb), 'extra']),
        fast((sb) => ['plugin', 'convert', review(sb), '--to', 'codex']),
        fast((sb) => ['plugin', 'convert', review(sb), '--to', 'codex', '--json'], 5),
        fast((sb) => ['plugin', 'convert', review(sb), '--to', 'lexora', '--out', join(sb.dir, 'lexora'), '--json']),
        fast((sb) => ['plugin', 'convert', review(sb)], 2),
        oclif((sb) => ['plugin', 'convert', review(sb), '--to', 'word']),
        fast((sb) => ['plugin', 'pack', join(sb.dir, 'lexora'), '--format', 'lexora', '--out', join(sb.dir, 'dist'), '--json']),
        fast((sb) => ['plugin', 'pack', review(sb), '--format', 'lexora', '--out', join(sb.dir, 'dist')], 2),
        oclif((sb) => ['plugin', 'pack', review(sb)]),
        fast((sb) => ['plugin', 'tag', tagged(sb), '--dry-run', '--json']),
        fast((sb) => ['plugin', 'tag', tagged(sb)]),
        fast((sb) => ['plugin', 'tag', tagged(sb), '--json'], 5),
        fast((sb) => ['plugin', 'tag', join(sb.dir, 'nowhere')], 3),
        oclif((sb) => ['plugin', 'tag', tagged(sb), 'extra']),
      ],
    )
  }, 300_000)
})

describe('the fast path of plugin push, marketplace push and plugin attach (OCI)', () => {
  let registry: OciRegistry
  beforeAll(async () => {
    registry = await startOciRegistry({auth: 'basic'})
  }, 60_000)
  afterAll(async () => {
    await registry?.stop()
  })

  /** A marketplace folder with one plugin, and the registry's credentials as `docker login` keeps them. */
  const forPush = (): Sandbox => {
    const sb = withMarket()
    mkdirSync(join(sb.home, '.docker'))
    const auth = Buffer.from(`${registry.username}:${registry.password}`).toString('base64')
    writeFileSync(join(sb.home, '.docker', 'config.json'), JSON.stringify({auths: {[registry.host]: {auth}}}))
    return sb
  }
  /** A bundle file naming the manifest digest it signs (attach checks the digest; installs check the signature). */
  const bundle = (sb: Sandbox, digest: string): string => {
    const file = join(sb.dir, 'kit.sigstore.json')
    const signed = Buffer.from(digest.slice('sha256:'.length), 'hex').toString('base64')
    writeFileSync(file, JSON.stringify({mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json', messageSignature: {messageDigest: {digest: signed}}}))
    return file
  }

  it('prints, exits and writes what oclif does, step by step', async () => {
    const oci = (path: string) => `oci://${registry.host}/${path}`
    const review = (sb: Sandbox) => join(market(sb), 'review')
    const env = {NODE_EXTRA_CA_CERTS: registry.caFile}
    const pair = [forPush(), forPush()] as const
    const pushed = await holdsEqual(
      pair,
      [
        fast((sb) => ['plugin', 'push', review(sb), oci('acme/review:1.0.0')]),
        fast((sb) => ['plugin', 'push', review(sb), oci('acme/review:1.0.0'), '--json']),
        fast((sb) => ['plugin', 'push', review(sb), 'https://example.com/review', '--json'], 2),
        oclif((sb) => ['plugin', 'push', review(sb)]),
        fast((sb) => ['marketplace', 'push', market(sb), oci('acme/catalog:latest')]),
        fast((sb) => ['marketplace', 'push', market(sb), oci('acme/catalog:latest'), '--json']),
        fast((sb) => ['marketplace', 'push', join(sb.dir, 'nowhere'), oci('acme/catalog:latest')], 2),
        oclif((sb) => ['marketplace', 'push', market(sb), oci('acme/catalog:latest'), 'extra']),
      ],
      env,
    )
    const {digest} = pushed[1]!.json<{digest: string}>()
    await holdsEqual(
      pair,
      [
        fast((sb) => ['plugin', 'attach', oci(`acme/review@${digest}`), bundle(sb, digest), '--json']),
        fast((sb) => ['plugin', 'attach', oci(`acme/review@${digest}`), bundle(sb, digest)]),
        fast((sb) => ['plugin', 'attach', oci('acme/review:1.0.0'), join(sb.dir, 'none.json')], 2),
        oclif(() => ['plugin', 'attach', oci('acme/review:1.0.0')]),
      ],
      env,
    )
    // the project's policy judges each request on the fast path too
    for (const sb of pair) writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({sources: {allow: ['git.corp.example']}}))
    await holdsEqual(
      pair,
      [
        fast((sb) => ['plugin', 'push', review(sb), oci('acme/review:1.0.0'), '--json'], 11),
        fast((sb) => ['marketplace', 'push', market(sb), oci('acme/catalog:latest')], 11),
        fast((sb) => ['plugin', 'attach', oci(`acme/review@${digest}`), bundle(sb, digest)], 11),
      ],
      env,
    )
  }, 300_000)
})
