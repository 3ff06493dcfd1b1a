/**
 * Where plugins come from, end to end against a real git server and an HTTPS server: every source
 * kind a catalog entry can name (github with and without ref, url, git-subdir, a pinned sha that
 * exists and one that does not, archive with a right or wrong sha256, hostile archives), direct
 * installs (a folder, owner/repo, an archive URL, --skill), name resolution errors, and hostile
 * plugins, each refused with a message naming the problem and nothing written to any agent folder.
 */
import {createHash} from 'node:crypto'
import {existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {branch, commitFiles, git, makeServedRepo, runGit, syncServedRepo} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'
import {agentSnapshot} from './tx-support.js'

const skill = (name: string, body = `Body of ${name}.`) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}\n`
const ALPHA_V1 = skill('alpha-one', 'First version.')
const ALPHA_V2 = skill('alpha-one', 'Second version.')

let work: string
let server: GitHttpsServer
const sandbox = sandboxes()
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex')
const read = (path: string) => readFileSync(path, 'utf8')

/** Every symbolic link below `root`, except in git checkouts of the cache (the marketplace holds a hostile plugin). */
const linksBelow = (root: string): string[] =>
  readdirSync(root, {withFileTypes: true, recursive: true})
    .filter((e) => e.isSymbolicLink())
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !path.startsWith(join(root, '.cache/loadout/git/')))

/** The install records of loadout's user state. */
const userRecords = (sb: Sandbox): Array<Record<string, unknown> & {plugin: string; target: string}> =>
  JSON.parse(read(join(sb.home, '.config/loadout/state.json'))).installs

// ---------------------------------------------------------------------------------------------
// .tar.gz archives built here, entry by entry, so names tar would clean up reach loadout as written

interface TarEntry {
  name: string
  /** '0' file (default), '2' symbolic link, '5' folder */
  type?: '0' | '2' | '5'
  body?: string
  linkname?: string
}
const octal = (value: number, width: number): string => `${value.toString(8).padStart(width - 1, '0')}\0`
const tarHeader = (entry: TarEntry, size: number): Buffer => {
  const header = Buffer.alloc(512)
  header.write(entry.name, 0, 'utf8')
  const type = entry.type ?? '0'
  header.write(octal(type === '5' ? 0o755 : 0o644, 8), 100, 'ascii')
  header.write(octal(1000, 8), 108, 'ascii')
  header.write(octal(1000, 8), 116, 'ascii')
  header.write(octal(size, 12), 124, 'ascii')
  header.write(octal(1_700_000_000, 12), 136, 'ascii')
  header.write('        ', 148, 'ascii')
  header.write(type, 156, 'ascii')
  if (entry.linkname) header.write(entry.linkname, 157, 'utf8')
  header.write('ustar\0', 257, 'ascii')
  header.write('00', 263, 'ascii')
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${octal(sum, 7)} `, 148, 'ascii')
  return header
}
const tarGz = (entries: TarEntry[]): Buffer =>
  gzipSync(
    Buffer.concat([
      ...entries.flatMap((e) => {
        const body = Buffer.from(e.body ?? '')
        return [tarHeader(e, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512)]
      }),
      Buffer.alloc(1024),
    ]),
  )

const GOOD_ARCHIVE = tarGz([
  {name: 'delta-1.0.0/', type: '5'},
  {name: 'delta-1.0.0/.claude-plugin/plugin.json', body: JSON.stringify({name: 'delta', version: '1.0.0'})},
  {name: 'delta-1.0.0/skills/delta-one/SKILL.md', body: skill('delta-one')},
])
const BARE_ARCHIVE = tarGz([
  {name: 'echo-kit-main/skills/echo-one/SKILL.md', body: skill('echo-one')},
  {name: 'echo-kit-main/README.md', body: '# echo\n'},
])
const DOTDOT_ARCHIVE = tarGz([
  {name: 'delta/skills/x/SKILL.md', body: skill('x')},
  {name: 'delta/../../escaped.txt', body: 'I got out\n'},
])
const LINK_ARCHIVE = tarGz([
  {name: 'delta/skills/x/SKILL.md', body: skill('x')},
  {name: 'delta/skills/x/passwd', type: '2', linkname: '/etc/passwd'},
])

// ---------------------------------------------------------------------------------------------

let alpha: {repo: string; bare: string; first: string; head: string}
let mono: {sha: string; bare: string}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-sources-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  const src = join(work, 'src')

  // acme/alpha: three skills and no manifest; branch "stable" stays at the first commit, main moves on
  const made = makeServedRepo(src, root, 'acme/alpha', {
    'skills/alpha-one/SKILL.md': ALPHA_V1,
    'skills/alpha-two/SKILL.md': skill('alpha-two'),
    'skills/alpha-three/SKILL.md': skill('alpha-three'),
  })
  branch(made.repo, 'stable')
  const head = commitFiles(made.repo, {'skills/alpha-one/SKILL.md': ALPHA_V2}, 'second version')
  syncServedRepo(made.bare)
  alpha = {repo: made.repo, bare: made.bare, first: made.sha, head}

  const monoRepo = makeServedRepo(src, root, 'acme/mono', {
    'README.md': '# Many plugins\n',
    'plugins/beta/skills/beta-one/SKILL.md': skill('beta-one'),
    'plugins/gamma/skills/gamma-one/SKILL.md': skill('gamma-one'),
  })
  mono = {sha: monoRepo.sha, bare: monoRepo.bare}

  server.file('/archives/delta.tar.gz', GOOD_ARCHIVE)
  server.file('/archives/echo-kit.tar.gz', BARE_ARCHIVE)
  server.file('/archives/dotdot.tar.gz', DOTDOT_ARCHIVE)
  server.file('/archives/link.tar.gz', LINK_ARCHIVE)

  const gitUrl = (name: string) => `${server.origin}/git/${name}.git`
  makeServedRepo(src, root, 'acme/market', {
    'plugins/evil-link/skills/pw/SKILL.md': skill('pw'),
    'plugins/evil-link/skills/pw/passwd': {symlink: '/etc/passwd'},
    '.claude-plugin/marketplace.json': JSON.stringify({
      name: 'acme',
      plugins: [
        {name: 'alpha', source: {source: 'github', repo: 'acme/alpha'}, version: '1.0.0'},
        {name: 'alpha-stable', source: {source: 'github', repo: 'acme/alpha', ref: 'stable'}},
        {name: 'alpha-url', source: {source: 'url', url: gitUrl('acme/alpha')}},
        {name: 'beta', source: {source: 'git-subdir', url: gitUrl('acme/mono'), path: 'plugins/beta'}},
        {name: 'pinned', source: {source: 'github', repo: 'acme/alpha', sha: alpha.first}},
        {name: 'ghost-pin', source: {source: 'github', repo: 'acme/alpha', sha: 'b'.repeat(40)}},
        {name: 'delta', source: {source: 'archive', url: server.url('/archives/delta.tar.gz'), sha256: sha256(GOOD_ARCHIVE)}},
        {name: 'delta-tampered', source: {source: 'archive', url: server.url('/archives/delta.tar.gz'), sha256: sha256('something else')}},
        {name: 'dotdot', source: {source: 'archive', url: server.url('/archives/dotdot.tar.gz')}},
        {name: 'linked', source: {source: 'archive', url: server.url('/archives/link.tar.gz')}},
        {name: 'evil-link', source: './plugins/evil-link'},
      ],
    }),
  })
  // a second marketplace that also lists "alpha"
  makeServedRepo(src, root, 'other/market', {
    '.claude-plugin/marketplace.json': JSON.stringify({name: 'other', plugins: [{name: 'alpha', source: {source: 'github', repo: 'acme/alpha'}}]}),
  })
})

/** One HOME with the acme marketplace added, shared by the catalog and archive tests (each writes other agents or skills). */
let market: Sandbox
beforeAll(async () => {
  market = sandbox()
  mkdirSync(join(market.home, '.claude'))
  const added = await run(market, ['marketplace', 'add', 'acme/market', '--json'])
  expect(added.status, added.stdout).toBe(0)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('catalog sources: github, ref, url, git-subdir, pinned sha', () => {
  let sb: Sandbox
  beforeAll(() => {
    sb = market
  })

  it('{source: "github"} clones <LOADOUT_GITHUB_URL>/owner/repo at its default branch', async () => {
    server.clearRequests()
    const result = await run(sb, ['install', '--loose', 'alpha@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'alpha@acme', source: 'github:acme/alpha', commit: alpha.head})
    expect(server.requestsTo('/git/acme/alpha.git').length).toBeGreaterThan(0)
    const skills = join(sb.home, '.claude/skills')
    expect(readdirSync(skills).sort()).toEqual(['alpha-one', 'alpha-three', 'alpha-two'])
    expect(read(join(skills, 'alpha-one/SKILL.md'))).toBe(ALPHA_V2)
  })

  it('{source: "github", ref} installs the commit the ref names, not the default branch', async () => {
    const result = await run(sb, ['install', 'alpha-stable@acme', '--agent', 'codex', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json().commit).toBe(alpha.first)
    expect(read(join(sb.home, '.agents/skills/alpha-one/SKILL.md'))).toBe(ALPHA_V1)
  })

  it('{source: "url"} clones an https .git URL', async () => {
    const result = await run(sb, ['install', 'alpha-url@acme', '--agent', 'deepagents', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json()).toMatchObject({source: `${server.origin}/git/acme/alpha.git`, commit: alpha.head})
    // Deep Agents also reads ~/.agents/skills: when another alpha plugin (an earlier test) holds alpha-one there,
    // this plugin's skill of that name takes the plugin-qualified name, said in --json
    const held = existsSync(join(sb.home, '.agents/skills/alpha-one'))
    const name = held ? 'alpha-url-alpha-one' : 'alpha-one'
    expect(result.json().plans[0].renamed.filter((r: {name: string}) => r.name === 'alpha-one')).toEqual(
      held ? [expect.objectContaining({as: name, because: expect.stringMatching(/^alpha.*@acme$/)})] : [],
    )
    expect(read(join(sb.home, `.deepagents/agent/skills/${name}/SKILL.md`))).toBe(ALPHA_V2.replace('name: alpha-one', `name: ${name}`))
  })

  it('{source: "git-subdir"} checks out only that path, from a partial clone', async () => {
    const result = await run(sb, ['install', 'beta@acme', '--agent', 'cst-agent', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'beta@acme', commit: mono.sha})
    expect(readdirSync(join(sb.home, '.config/cst-agent/skills'))).toEqual(['beta-one'])
    // the checked-out tree holds plugins/beta and nothing else of the repository
    const from: string = result.json().plans[0].operations[0].from
    const treeRoot = from.slice(0, from.indexOf('/plugins/beta/'))
    expect(readdirSync(treeRoot)).toEqual(['plugins'])
    expect(readdirSync(join(treeRoot, 'plugins'))).toEqual(['beta'])
    // and the mirror never downloaded the other plugin's files
    const mirror = join(dirname(dirname(treeRoot)), 'mirror')
    const gammaBlob = git(mono.bare, ['rev-parse', 'HEAD:plugins/gamma/skills/gamma-one/SKILL.md'])
    const betaBlob = git(mono.bare, ['rev-parse', 'HEAD:plugins/beta/skills/beta-one/SKILL.md'])
    const objects = await runGit(['rev-list', '--objects', '--missing=print', '--all'], {cwd: mirror})
    expect(objects.status, objects.stderr).toBe(0)
    expect(objects.stdout).toContain(`?${gammaBlob}`)
    expect(objects.stdout).not.toContain(`?${betaBlob}`)
  })

  it('a pinned sha installs exactly that commit although the branch moved on', async () => {
    const result = await run(sb, ['install', '--loose', 'pinned@acme', '--agent', 'claude-code', '--scope', 'project', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json().commit).toBe(alpha.first)
    expect(alpha.head).not.toBe(alpha.first)
    expect(read(join(sb.project, '.claude/skills/alpha-one/SKILL.md'))).toBe(ALPHA_V1)
    const lock = JSON.parse(read(join(sb.project, 'loadout.lock')))
    expect(lock.installs[0]).toMatchObject({plugin: 'pinned@acme', commit: alpha.first})
  })

  it('a pinned sha that does not exist is "not found" (exit 3) and writes nothing', async () => {
    const home = agentSnapshot(sb.home)
    const project = agentSnapshot(sb.project)
    const result = await run(sb, ['install', 'ghost-pin@acme', '--agent', 'universal', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(3)
    expect(jsonError(result).message).toContain(`commit ${'b'.repeat(40)} does not exist`)
    expect(agentSnapshot(sb.home)).toEqual(home)
    expect(agentSnapshot(sb.project)).toEqual(project)
    expect(userRecords(sb).map((r) => r.plugin)).not.toContain('ghost-pin@acme')
  })

  it('plugin@marketplace@version with a version the catalog does not list is "not found" (exit 3)', async () => {
    const result = await run(sb, ['install', 'alpha@acme@9.9.9', '--agent', 'universal', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(3)
    expect(jsonError(result).message).toMatch(/alpha@acme is at version 1\.0\.0 .*not 9\.9\.9/)
    const right = await run(sb, ['install', '--loose', 'alpha@acme@1.0.0', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(right.status, right.stdout).toBe(0)
    expect(right.json().status).toBe('already-installed')
  })

  it('a plugin fetched from git with a symbolic link to /etc/passwd is refused (exit 4), nothing written', async () => {
    const before = agentSnapshot(sb.home)
    const result = await run(sb, ['install', '--loose', 'evil-link@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(4)
    expect(jsonError(result).message).toMatch(/symbolic link skills\/pw\/passwd points outside the plugin root, to \/etc\/passwd/)
    expect(agentSnapshot(sb.home)).toEqual(before)
  })

  it('a bare name found in two marketplaces is an error listing both (exit 5)', async () => {
    expect((await run(sb, ['marketplace', 'add', 'other/market'])).status).toBe(0)
    const before = agentSnapshot(sb.home)
    const result = await run(sb, ['install', 'alpha', '--agent', 'universal', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(5)
    const error = jsonError(result)
    expect(error.message).toContain('alpha@acme')
    expect(error.message).toContain('alpha@other')
    expect(agentSnapshot(sb.home)).toEqual(before)
    // a name in only one of them resolves on its own
    const single = await run(sb, ['install', 'alpha-url', '--agent', 'deepagents', '--scope', 'user', '--json'])
    expect(single.status, single.stdout).toBe(0)
    expect(single.json().plugin).toBe('alpha-url@acme')
  })
})

describe('archive sources', () => {
  let sb: Sandbox
  let before: Map<string, string>
  const cacheEntries = () =>
    existsSync(join(sb.home, '.cache/loadout')) ? readdirSync(join(sb.home, '.cache/loadout')).filter((n) => /^(archive-|\.download-)/.test(n)) : []
  beforeAll(() => {
    sb = market
    before = agentSnapshot(sb.home)
  })

  it('a sha256 that does not match is an integrity failure (exit 7): nothing extracted, nothing written', async () => {
    const result = await run(sb, ['install', '--loose', 'delta-tampered@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(7)
    const error = jsonError(result)
    expect(error.message).toContain('sha256 mismatch')
    expect(error.message).toContain(sha256('something else'))
    expect(error.message).toContain(sha256(GOOD_ARCHIVE))
    expect(agentSnapshot(sb.home)).toEqual(before)
    expect(cacheEntries()).toEqual([])
  })

  it('an archive with a "../" entry is refused (exit 4) and nothing lands outside', async () => {
    const result = await run(sb, ['install', '--loose', 'dotdot@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(4)
    expect(jsonError(result).message).toMatch(/refused entry "delta\/\.\.\/\.\.\/escaped\.txt".*"\.\."/)
    expect(agentSnapshot(sb.home)).toEqual(before)
    expect(cacheEntries()).toEqual([])
    const escaped = readdirSync(sb.dir, {recursive: true}).filter((p) => String(p).endsWith('escaped.txt'))
    expect(escaped).toEqual([])
  })

  it('an archive with a symbolic link entry is refused (exit 4) and no link is made', async () => {
    const result = await run(sb, ['install', '--loose', 'linked@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(4)
    expect(jsonError(result).message).toMatch(/refused entry "delta\/skills\/x\/passwd": it is a symbolic link \(to "\/etc\/passwd"\)/)
    expect(agentSnapshot(sb.home)).toEqual(before)
    expect(cacheEntries()).toEqual([])
    expect(linksBelow(sb.home)).toEqual([])
  })

  it('the right sha256 installs, and the record keeps the archive digest', async () => {
    const result = await run(sb, ['install', '--loose', 'delta@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'delta@acme', version: '1.0.0', source: server.url('/archives/delta.tar.gz')})
    expect(read(join(sb.home, '.claude/skills/delta-one/SKILL.md'))).toBe(skill('delta-one'))
    const record = userRecords(sb).find((r) => r.plugin === 'delta@acme')!
    expect(record.archiveSha256).toBe(sha256(GOOD_ARCHIVE))
    expect(record.integrity).toMatch(/^sha256-[0-9a-f]{64}$/)
    expect((await run(sb, ['verify'])).status).toBe(0)
  })

  it('installing the same archive again reuses its one cache folder (same URL and sha256, same folder)', async () => {
    const first = cacheEntries()
    expect(first).toHaveLength(1)
    expect((await run(sb, ['uninstall', 'delta@acme', '--scope', 'user', '--yes'])).status).toBe(0)
    const again = await run(sb, ['install', '--loose', 'delta@acme', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(again.status, again.stdout).toBe(0)
    expect(cacheEntries()).toEqual(first)
  })

  it('--offline installs from the cached archive once its sha256 checks, and refuses an archive whose cached bytes changed', async () => {
    expect((await run(sb, ['uninstall', 'delta@acme', '--scope', 'user', '--yes'])).status).toBe(0)
    const offline = await run(sb, ['install', '--loose', 'delta@acme', '--agent', 'claude-code', '--scope', 'user', '--offline', '--json'])
    expect(offline.status, offline.stdout).toBe(0)
    expect(read(join(sb.home, '.claude/skills/delta-one/SKILL.md'))).toBe(skill('delta-one'))
    expect((await run(sb, ['uninstall', 'delta@acme', '--scope', 'user', '--yes'])).status).toBe(0)
    const [folder] = cacheEntries()
    writeFileSync(join(sb.home, '.cache/loadout', folder!, 'archive.tar.gz'), 'not the archive')
    const tampered = await run(sb, ['install', '--loose', 'delta@acme', '--agent', 'claude-code', '--scope', 'user', '--offline', '--json'])
    expect(tampered.status, tampered.stdout).toBe(6)
    expect(jsonError(tampered).code).toBe('offline-not-cached')
    expect(existsSync(join(sb.home, '.claude/skills/delta-one'))).toBe(false)
  })
})

describe('direct installs', () => {
  let sb: Sandbox
  beforeAll(() => {
    sb = sandbox()
    const folder = join(sb.project, 'my-kit')
    mkdirSync(join(folder, 'skills', 'kit-one'), {recursive: true})
    writeFileSync(join(folder, 'skills', 'kit-one', 'SKILL.md'), skill('kit-one'))
  })

  it('loadout install ./folder installs the folder as <name>@direct', async () => {
    const result = await run(sb, ['install', '--loose', './my-kit', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json().plugin).toBe('my-kit@direct')
    expect(read(join(sb.home, '.claude/skills/kit-one/SKILL.md'))).toBe(skill('kit-one'))
  })

  it('loadout install owner/repo clones the GitHub shorthand and names the plugin after the repository', async () => {
    const result = await run(sb, ['install', 'acme/alpha', '--agent', 'codex', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json()).toMatchObject({plugin: 'alpha@direct', commit: alpha.head})
    expect(readdirSync(join(sb.home, '.agents/skills')).sort()).toEqual(['alpha-one', 'alpha-three', 'alpha-two'])
    const list = (await run(sb, ['list', '--json'])).json()
    expect(list.installs.map((i: {plugin: string}) => i.plugin).sort()).toEqual(['alpha@direct', 'my-kit@direct'])
  })

  it('--skill picks one skill out of several; a skill the plugin lacks is "not found", naming the ones it has', async () => {
    const result = await run(sb, ['install', 'acme/alpha', '--skill', 'alpha-two', '--agent', 'deepagents', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    // Deep Agents Code reads ~/.agents/skills, where the universal install above already wrote alpha's skills:
    // its record takes just the one skill asked for, sharing that copy
    const deep = (await run(sb, ['list', '--json']))
      .json()
      .installs.find((i: {plugin: string; target: string}) => i.plugin === 'alpha@direct' && i.target === 'deepagents')
    expect(deep.components.filter((c: string) => c.includes('/skill/'))).toEqual(['alpha@direct/skill/alpha-two'])
    const before = agentSnapshot(sb.home)
    const missing = await run(sb, ['install', 'acme/alpha', '--skill', 'alpha-four', '--agent', 'cst-agent', '--scope', 'user', '--json'])
    expect(missing.status).toBe(3)
    expect(jsonError(missing).message).toMatch(/no skill "alpha-four".*alpha-one.*alpha-two/)
    expect(agentSnapshot(sb.home)).toEqual(before)
  })

  it('an archive URL installs, named after the archive', async () => {
    const result = await run(sb, ['install', server.url('/archives/echo-kit.tar.gz'), '--agent', 'cst-agent', '--scope', 'user', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json().plugin).toBe('echo-kit@direct')
    expect(read(join(sb.home, '.config/cst-agent/skills/echo-one/SKILL.md'))).toBe(skill('echo-one'))
    const removed = await run(sb, ['uninstall', 'echo-kit@direct', '--scope', 'user', '--yes'])
    expect(removed.status, removed.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.config/cst-agent/skills/echo-one'))).toBe(false)
  })
})

describe('hostile plugins are refused with the problem named, and nothing is written to any agent folder', () => {
  let sb: Sandbox
  let outside: string
  let before: Map<string, string>
  const plugin = (name: string, files: Record<string, string | {symlink: string}>): string => {
    const root = join(sb.dir, 'plugins', name)
    for (const [path, spec] of Object.entries(files)) {
      const full = join(root, path)
      mkdirSync(dirname(full), {recursive: true})
      if (typeof spec === 'string') writeFileSync(full, spec)
      else symlinkSync(spec.symlink, full)
    }
    return root
  }
  const refused = async (root: string, rule: RegExp, extra: string[] = []) => {
    const result = await run(sb, ['install', '--loose', root, '--agent', 'claude-code,codex', '--scope', 'user', '--yes', ...extra, '--json'])
    expect(result.status, result.stdout).toBe(4)
    const message = jsonError(result).message
    expect(message).toMatch(rule)
    expect(agentSnapshot(sb.home)).toEqual(before)
    return message
  }

  beforeAll(() => {
    sb = sandbox()
    outside = join(sb.dir, 'outside')
    mkdirSync(join(outside, 'skills', 'stolen'), {recursive: true})
    writeFileSync(join(outside, 'skills', 'stolen', 'SKILL.md'), skill('stolen'))
    mkdirSync(join(outside, 'x'))
    writeFileSync(join(outside, 'x', 'SKILL.md'), skill('x'))
    // the user's own agent folders, with a skill of their own
    mkdirSync(join(sb.home, '.claude', 'skills', 'mine'), {recursive: true})
    writeFileSync(join(sb.home, '.claude', 'skills', 'mine', 'SKILL.md'), skill('mine'))
    mkdirSync(join(sb.home, '.codex'))
    before = agentSnapshot(sb.home)
  })

  // these are refused while reading the plugin, before anything is planned: they can run side by side
  describe.concurrent('refused on reading', () => {
    const manifestPaths: Array<[string, RegExp]> = [
      ['../x', /skills\[0\]: path "\.\.\/x" has a "\.\." segment/],
      ['/etc', /skills\[0\]: path "\/etc" is absolute/],
      ['./a/../../x', /skills\[0\]: path "\.\/a\/\.\.\/\.\.\/x" has a "\.\." segment/],
    ]
    for (const [path, rule] of manifestPaths) {
      it(`a manifest path ${JSON.stringify(path)}`, async () => {
        const root = plugin(`path-${manifestPaths.findIndex(([p]) => p === path)}`, {
          '.claude-plugin/plugin.json': JSON.stringify({name: 'evil', skills: [path]}),
          'a/skills/ok/SKILL.md': skill('ok'),
        })
        const message = await refused(root, rule)
        expect(message).toContain('.claude-plugin/plugin.json')
      })
    }

    it('a skill folder holding a symbolic link to /etc/passwd', async () => {
      const root = plugin('passwd', {'skills/pw/SKILL.md': skill('pw'), 'skills/pw/passwd': {symlink: '/etc/passwd'}})
      await refused(root, /symbolic link skills\/pw\/passwd points outside the plugin root, to \/etc\/passwd/)
    })

    it('a skills folder that is a symbolic link out of the plugin', async () => {
      const root = plugin('skills-link', {'.claude-plugin/plugin.json': JSON.stringify({name: 'skills-link'}), skills: {symlink: join(outside, 'skills')}})
      await refused(root, new RegExp(`symbolic link skills points outside the plugin root, to ${join(outside, 'skills')}`))
    })

    it('a plugin naming the same skill twice', async () => {
      const root = plugin('twice', {
        '.claude-plugin/plugin.json': JSON.stringify({name: 'twice', skills: ['./skills/a', './skills/a']}),
        'skills/a/SKILL.md': skill('a'),
      })
      await refused(root, /skill "a" is named twice/)
    })
  })

  it("an MCP config in the agent's folder that is a symbolic link elsewhere: refused, nothing written through it", async () => {
    const elsewhere = join(outside, 'elsewhere.json')
    writeFileSync(elsewhere, '{"mcpServers": {}}\n')
    symlinkSync(elsewhere, join(sb.home, '.claude.json'))
    try {
      const linked = agentSnapshot(sb.home)
      const root = plugin('mcp-kit', {
        'skills/mcp-helper/SKILL.md': skill('mcp-helper'),
        '.mcp.json': JSON.stringify({mcpServers: {srv: {command: 'my-server', args: ['--stdio']}}}),
      })
      const result = await run(sb, ['install', '--loose', root, '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
      expect(result.status, result.stdout).toBe(4)
      expect(jsonError(result).message).toContain(`refusing to write through the symbolic link ${join(sb.home, '.claude.json')}`)
      expect(read(elsewhere)).toBe('{"mcpServers": {}}\n')
      expect(lstatSync(join(sb.home, '.claude.json')).isSymbolicLink()).toBe(true)
      expect(agentSnapshot(sb.home)).toEqual(linked)
      expect(existsSync(join(sb.home, '.claude/skills/mcp-helper'))).toBe(false)
    } finally {
      rmSync(join(sb.home, '.claude.json'))
    }
  })

  it('and after all of that the user state records nothing', () => {
    expect(existsSync(join(sb.home, '.config/loadout/state.json')) ? userRecords(sb) : []).toEqual([])
  })
})
