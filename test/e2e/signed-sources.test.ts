/**
 * Signed sources, end to end: keys made here (ssh-keygen, gpg in a temporary GNUPGHOME), commits
 * signed in real repositories served by git http-backend over HTTPS on 127.0.0.1. A marketplace
 * whose tip is signed by a trusted key adds and installs, the lock recording the signer; an unsigned
 * commit on top is refused by `marketplace update` and by `install --frozen` in a teammate's clone
 * (exit 7, naming the commit); a tip signed by another key is refused naming that key; policy
 * `requireSigned` refuses a source with no key declared for it.
 */
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {commitFiles, git, headSha, makeRepo, serveRepo, syncServedRepo, writeFiles, type FileMap} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const SKILL = '---\nname: lint-rules\ndescription: Use when fixing lint errors.\n---\n\nFollow the rules.\n'
const MARKET = (name: string): FileMap => ({
  '.claude-plugin/marketplace.json': JSON.stringify({name, plugins: [{name: 'toolkit', source: './plugins/toolkit', version: '1.0.0'}]}),
  'plugins/toolkit/.claude-plugin/plugin.json': JSON.stringify({name: 'toolkit', version: '1.0.0'}),
  'plugins/toolkit/skills/lint-rules/SKILL.md': SKILL,
})

let work: string
let server: GitHttpsServer
let gnupgHome: string
const keys: Record<'alice' | 'mallory', {pub: string; fingerprint: string}> = {} as never
let pgp: {file: string; fingerprint: string}
const sandbox = sandboxes()
const run = (sb: Sandbox, args: string[], cwd?: string) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GIT_TIMEOUT: '20'}, ...(cwd ? {cwd} : {})})
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'))

/** A new SSH key pair (no passphrase); its public key file and its SHA256 fingerprint as ssh-keygen prints it. */
const sshKey = (name: string): {pub: string; fingerprint: string} => {
  const file = join(work, 'keys', name)
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file])
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-f', `${file}.pub`])
    .toString()
    .split(' ')[1]!
  return {pub: `${file}.pub`, fingerprint}
}

/** Commits `files` signed: with an SSH private key file, or with an OpenPGP key of the test keyring. */
const signedCommit = (repo: string, files: FileMap, by: {ssh: string} | {pgp: string}, message = 'signed'): string => {
  writeFiles(repo, files)
  git(repo, ['add', '--all', '--', '.'])
  const how = 'ssh' in by ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${by.ssh}`] : ['-c', 'gpg.format=openpgp', '-c', `user.signingkey=${by.pgp}`]
  git(repo, [...how, 'commit', '-q', '--allow-empty', '--no-verify', '-S', '-m', message], {GNUPGHOME: gnupgHome})
  return headSha(repo)
}

/** A served repository whose tip is a commit signed `by`, on top of an unsigned first commit. */
const servedSigned = (name: string, catalogName: string, by: {ssh: string} | {pgp: string}) => {
  const repo = makeRepo(join(work, 'src', name), {'README.md': '# market\n'})
  const sha = signedCommit(repo, MARKET(catalogName), by)
  const bare = serveRepo(repo, join(work, 'served'), name)
  return {repo, bare, sha, url: server.git.url(name)}
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-signed-')))
  mkdirSync(join(work, 'served'))
  mkdirSync(join(work, 'keys'))
  server = await startGitHttpsServer({root: join(work, 'served')})
  keys.alice = sshKey('alice')
  keys.mallory = sshKey('mallory')
  gnupgHome = join(work, 'gnupg')
  mkdirSync(gnupgHome, {mode: 0o700})
  const gpg = (args: string[]) =>
    execFileSync('gpg', ['--batch', '--no-tty', ...args], {env: {PATH: process.env.PATH, GNUPGHOME: gnupgHome}, stdio: ['ignore', 'pipe', 'pipe']}).toString()
  gpg(['--passphrase', '', '--quick-gen-key', 'Carol <carol@loadout.invalid>', 'ed25519', 'sign', 'never'])
  const listing = gpg(['--with-colons', '--list-keys', 'carol@loadout.invalid'])
  pgp = {file: join(work, 'keys', 'carol.asc'), fingerprint: /^fpr:+([0-9A-F]{40}):/m.exec(listing)![1]!}
  writeFileSync(pgp.file, gpg(['--armor', '--export', 'carol@loadout.invalid']))
})

afterAll(async () => {
  await server?.stop()
  // the agent gpg started for the key generation, in the test's own GNUPGHOME
  if (gnupgHome) execFileSync('gpgconf', ['--kill', 'all'], {env: {PATH: process.env.PATH, GNUPGHOME: gnupgHome}})
  rmSync(work, {recursive: true, force: true})
})

describe('git commits signed with SSH and OpenPGP keys', () => {
  it('a marketplace whose tip is signed by the trusted SSH key adds and installs, recording the signer', async () => {
    const market = servedSigned('alice/market', 'alice', {ssh: keys.alice.pub.replace(/\.pub$/, '')})
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', market.url, '--signed-by', keys.alice.pub, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    expect(added.json()).toMatchObject({
      status: 'added',
      commit: market.sha,
      signedBy: [keys.alice.fingerprint],
      signer: {format: 'ssh', fingerprint: keys.alice.fingerprint},
    })
    const installed = await run(sb, ['install', '--loose', 'toolkit@alice', '--agent', 'claude-code', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(installed.json()).toMatchObject({commit: market.sha, signer: keys.alice.fingerprint})
    const text = await run(sb, ['marketplace', 'update', 'alice'])
    expect(text.status, text.stdout + text.stderr).toBe(0)
  })

  it('a tip signed by another key is refused (exit 7) naming the commit and that key, and nothing is registered', async () => {
    const market = servedSigned('mallory/market', 'mallory', {ssh: keys.mallory.pub.replace(/\.pub$/, '')})
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', market.url, '--signed-by', keys.alice.pub, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(7)
    const error = jsonError(added)
    expect(error.code).toBe('untrusted-signer')
    expect(error.message).toContain(market.sha.slice(0, 12))
    expect(error.message).toContain(keys.mallory.fingerprint)
    expect(error.details).toMatchObject({commit: market.sha, signer: keys.mallory.fingerprint, trusted: [keys.alice.fingerprint]})
    expect((await run(sb, ['marketplace', 'list', '--json'])).json().marketplaces.map((m: {name: string}) => m.name)).toEqual(['loadout'])
  })

  it('an OpenPGP-signed tip is checked against a private keyring built from the trusted key file', async () => {
    const market = servedSigned('carol/market', 'carol', {pgp: 'carol@loadout.invalid'})
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', market.url, '--signed-by', pgp.file, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    expect(added.json()).toMatchObject({signedBy: [pgp.fingerprint], signer: {format: 'pgp', fingerprint: pgp.fingerprint}})
    // the same commit against an SSH key it was not signed with: refused, naming the OpenPGP signer
    const other = sandbox()
    const refused = await run(other, ['marketplace', 'add', market.url, '--signed-by', keys.alice.pub, '--json'])
    expect(refused.status, refused.stdout + refused.stderr).toBe(7)
    expect(jsonError(refused).message).toMatch(/signed by [0-9A-F]{16}/)
  })

  it('a key file that is no key is a usage error (exit 2)', async () => {
    const sb = sandbox()
    const bogus = join(sb.dir, 'bogus.pub')
    writeFileSync(bogus, 'ssh-ed25519 bm90IGEga2V5 nobody\n')
    const added = await run(sb, ['marketplace', 'add', server.git.url('alice/market'), '--signed-by', bogus, '--json'])
    expect(added.status).toBe(2)
    expect(jsonError(added).code).toBe('bad-signing-key')
  })

  it('adding a marketplace again with other keys is a conflict (exit 5), never a silent drop of the keys', async () => {
    const sb = sandbox()
    expect((await run(sb, ['marketplace', 'add', server.git.url('alice/market'), '--json'])).status).toBe(0)
    const again = await run(sb, ['marketplace', 'add', server.git.url('alice/market'), '--signed-by', keys.alice.pub, '--json'])
    expect(again.status, again.stdout + again.stderr).toBe(5)
    expect(jsonError(again).code).toBe('marketplace-trust-differs')
  })

  it('policy requireSigned refuses a marketplace added with no key to check it (exit 11)', async () => {
    const sb = sandbox()
    writeFileSync(join(sb.project, 'loadout-policy.json'), JSON.stringify({requireSigned: {hosts: ['127.0.0.1:*']}}))
    const added = await run(sb, ['marketplace', 'add', server.git.url('alice/market'), '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(11)
    expect(jsonError(added).message).toContain('requireSigned.hosts')
    const withKey = await run(sb, ['marketplace', 'add', server.git.url('alice/market'), '--signed-by', keys.alice.pub, '--json'])
    expect(withKey.status, withKey.stdout + withKey.stderr).toBe(0)
  })
})

describe('a project declares its keys; an unsigned commit on top is refused by update and by a teammate', () => {
  let a: Sandbox
  let b: Sandbox
  let market: ReturnType<typeof servedSigned>
  let unsigned: string

  beforeAll(async () => {
    market = servedSigned('team/market', 'team', {ssh: keys.alice.pub.replace(/\.pub$/, '')})
    a = sandbox()
    b = sandbox()
    makeRepo(a.project, {'README.md': '# project\n', 'keys/alice.pub': readFileSync(keys.alice.pub, 'utf8')})
    const added = await run(a, ['marketplace', 'add', market.url, '--signed-by', './keys/alice.pub', '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    const installed = await run(a, ['install', '--loose', 'toolkit@team', '--agent', 'claude-code', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    git(a.project, ['add', '--', 'loadout.json', 'loadout.lock'])
    git(a.project, ['commit', '-q', '--no-gpg-sign', '-m', 'loadout'])
    rmSync(b.project, {recursive: true})
    git(b.dir, ['clone', '-q', '--', a.project, b.project])
    // the publisher's next commit is not signed
    unsigned = commitFiles(market.repo, {'plugins/toolkit/skills/lint-rules/SKILL.md': SKILL.replace('Follow', 'Ignore')}, 'unsigned')
    syncServedRepo(market.bare)
  })

  it('loadout.json declares the key by its project-relative path and the lock records the signer', () => {
    expect(readJson(join(a.project, 'loadout.json')).marketplaces.team).toEqual({source: market.url, signedBy: ['./keys/alice.pub']})
    const lock = readJson(join(a.project, 'loadout.lock')) as {installs: Array<{plugin: string; commit: string; signer: string}>}
    expect(lock.installs.find((r) => r.plugin === 'toolkit@team')).toMatchObject({commit: market.sha, signer: keys.alice.fingerprint})
    expect(readFileSync(join(a.project, 'loadout.json'), 'utf8')).not.toContain(a.dir)
  })

  it('marketplace update refuses the unsigned commit (exit 7), naming it, and keeps the signed one', async () => {
    const updated = await run(a, ['marketplace', 'update', 'team', '--json'])
    expect(updated.status, updated.stdout + updated.stderr).toBe(7)
    const result = (jsonError(updated).details as {results: Array<{message: string; errorCode: string}>}).results[0]!
    expect(result.errorCode).toBe('unsigned-commit')
    expect(result.message).toContain(unsigned.slice(0, 12))
    expect(result.message).toContain(keys.alice.fingerprint)
    const row = (await run(a, ['marketplace', 'list', '--json'])).json().marketplaces.find((m: {name: string}) => m.name === 'team')
    expect(row.commit).toBe(market.sha)
  })

  it('install --frozen in a clone at another path is refused (exit 7), naming the unsigned commit', async () => {
    const frozen = await run(b, ['install', '--frozen', '--yes', '--json'])
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(7)
    expect(jsonError(frozen).code).toBe('unsigned-commit')
    expect(jsonError(frozen).message).toContain(unsigned.slice(0, 12))
  })

  it('a key file loadout.json names outside the project is refused (exit 2) before anything is fetched', async () => {
    const c = sandbox()
    makeRepo(c.project, {
      'loadout.json': JSON.stringify({marketplaces: {team: {source: market.url, signedBy: ['../../home/.ssh/id.pub']}}}),
    })
    const result = await run(c, ['install', '--frozen', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(2)
    expect(jsonError(result).code).toBe('signing-key-outside')
  })

  it('once the publisher signs the next commit with the trusted key, the clone installs at the locked, signed commit', async () => {
    signedCommit(market.repo, {}, {ssh: keys.alice.pub.replace(/\.pub$/, '')}, 'signed again')
    syncServedRepo(market.bare)
    const frozen = await run(b, ['install', '--frozen', '--yes', '--json'])
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
    expect(frozen.json().results[0]).toMatchObject({plugin: 'toolkit@team', commit: market.sha, signer: keys.alice.fingerprint})
  })
})
