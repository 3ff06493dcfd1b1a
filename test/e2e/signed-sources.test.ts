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

/** Tags `name` at the tip: signed with an SSH private key file or an OpenPGP key, annotated unsigned, or lightweight. */
const tagAt = (repo: string, name: string, how: {ssh: string} | {pgp: string} | 'annotated' | 'lightweight') => {
  if (how === 'lightweight') return git(repo, ['tag', name])
  if (how === 'annotated') return git(repo, ['tag', '-a', '-m', name, name])
  const sign = 'ssh' in how ? ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${how.ssh}`] : ['-c', 'gpg.format=openpgp', '-c', `user.signingkey=${how.pgp}`]
  git(repo, [...sign, 'tag', '-s', '-m', name, name], {GNUPGHOME: gnupgHome})
}

describe('git tags signed with SSH and OpenPGP keys (a source pinned to a tag)', () => {
  let sb: Sandbox
  let plugin: {repo: string; bare: string; sha: string}
  beforeAll(async () => {
    // the plugin's commits are not signed: a signed tag vouches for the commit it names
    const repo = makeRepo(join(work, 'src', 'tagged-plugin'), {
      '.claude-plugin/plugin.json': JSON.stringify({name: 'tagged', version: '1.0.0'}),
      'skills/tagged-skill/SKILL.md': '---\nname: tagged-skill\ndescription: Tagged.\n---\n\nBody.\n',
    })
    tagAt(repo, 'v1.0', {ssh: keys.alice.pub.replace(/\.pub$/, '')})
    tagAt(repo, 'v1.1', 'lightweight')
    tagAt(repo, 'v1.2', 'annotated')
    tagAt(repo, 'v1.3', {ssh: keys.mallory.pub.replace(/\.pub$/, '')})
    tagAt(repo, 'v1.4', {pgp: 'carol@loadout.invalid'})
    const bare = serveRepo(repo, join(work, 'served'), 'acme/tagged-plugin')
    plugin = {repo, bare, sha: headSha(repo)}
    const entry = (name: string, ref: string) => ({name, source: {source: 'url', url: server.git.url('acme/tagged-plugin'), ref}})
    const market = makeRepo(join(work, 'src', 'tags-market'), {'README.md': '# tags\n'})
    signedCommit(
      market,
      {
        '.claude-plugin/marketplace.json': JSON.stringify({
          name: 'tags',
          plugins: [entry('good', 'v1.0'), entry('light', 'v1.1'), entry('bare', 'v1.2'), entry('forged', 'v1.3'), entry('carol', 'v1.4')],
        }),
      },
      {ssh: keys.alice.pub.replace(/\.pub$/, '')},
    )
    serveRepo(market, join(work, 'served'), 'acme/tags-market')
    sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', server.git.url('acme/tags-market'), '--signed-by', keys.alice.pub, '--signed-by', pgp.file, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
  })
  const install = (name: string) => run(sb, ['install', `${name}@tags`, '--agent', 'universal', '--scope', 'user', '--yes', '--json'])

  it('a tag signed by the trusted SSH key installs the commit it names, recording the signer', async () => {
    const done = await install('good')
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({commit: plugin.sha, signer: keys.alice.fingerprint})
  })

  it('a tag signed by the trusted OpenPGP key installs', async () => {
    const done = await install('carol')
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({signer: pgp.fingerprint})
  })

  it('a lightweight tag and an unsigned annotated tag are refused (exit 7), naming the tag', async () => {
    for (const [name, tag] of [
      ['light', 'v1.1'],
      ['bare', 'v1.2'],
    ]) {
      const done = await install(name!)
      expect(done.status, done.stdout + done.stderr).toBe(7)
      expect(jsonError(done).code).toBe('unsigned-tag')
      expect(jsonError(done).message).toContain(`tag ${tag}`)
    }
  })

  it('a tag signed by another key is refused (exit 7), naming the tag and the key', async () => {
    const done = await install('forged')
    expect(done.status, done.stdout + done.stderr).toBe(7)
    expect(jsonError(done).code).toBe('untrusted-signer')
    expect(jsonError(done).message).toContain('tag v1.3')
    expect(jsonError(done).message).toContain(keys.mallory.fingerprint)
    expect(jsonError(done).details).toMatchObject({tag: 'v1.3', signer: keys.mallory.fingerprint})
  })
})

describe('a marketplace pinned to a tag, and a version range resolved to a tag', () => {
  let url: string
  let sha: string
  beforeAll(() => {
    // unsigned commits; the tags carry the signatures
    const repo = makeRepo(join(work, 'src', 'tag-pinned'), MARKET('pinned'))
    tagAt(repo, 'v1.0', {ssh: keys.alice.pub.replace(/\.pub$/, '')})
    tagAt(repo, 'v1.1', 'lightweight')
    tagAt(repo, 'toolkit--v1.0.0', {ssh: keys.alice.pub.replace(/\.pub$/, '')})
    serveRepo(repo, join(work, 'served'), 'acme/tag-pinned')
    url = server.git.url('acme/tag-pinned')
    sha = headSha(repo)
  })

  it('marketplace add --ref <signed tag> adds though its commits are unsigned; --ref <lightweight tag> is refused (exit 7)', async () => {
    const sb = sandbox()
    const added = await run(sb, ['marketplace', 'add', url, '--ref', 'v1.0', '--signed-by', keys.alice.pub, '--json'])
    expect(added.status, added.stdout + added.stderr).toBe(0)
    expect(added.json()).toMatchObject({commit: sha, signer: {format: 'ssh', fingerprint: keys.alice.fingerprint}})
    const refused = await run(sandbox(), ['marketplace', 'add', url, '--ref', 'v1.1', '--signed-by', keys.alice.pub, '--json'])
    expect(refused.status, refused.stdout + refused.stderr).toBe(7)
    expect(jsonError(refused)).toMatchObject({code: 'unsigned-tag'})
    expect(jsonError(refused).message).toContain('tag v1.1')
  })

  it("a range resolves to the plugin's version tag, whose signature is what is checked", async () => {
    const sb = sandbox()
    expect((await run(sb, ['marketplace', 'add', url, '--ref', 'v1.0', '--signed-by', keys.alice.pub])).status).toBe(0)
    const done = await run(sb, ['install', 'toolkit@pinned@^1.0.0', '--agent', 'universal', '--scope', 'user', '--yes', '--json'])
    expect(done.status, done.stdout + done.stderr).toBe(0)
    expect(done.json()).toMatchObject({version: '1.0.0', signer: keys.alice.fingerprint})
    // without a range, the folder is read at the marketplace's pinned tag, whose signature covers it
    const plain = await run(sb, ['install', 'toolkit@pinned', '--agent', 'codex', '--scope', 'user', '--yes', '--json'])
    expect(plain.status, plain.stdout + plain.stderr).toBe(0)
    expect(plain.json()).toMatchObject({commit: sha, signer: keys.alice.fingerprint})
  })
})
