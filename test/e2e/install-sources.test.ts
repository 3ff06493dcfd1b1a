import {createHash} from 'node:crypto'
import {mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {makeServedRepo, type FileMap} from '../support/git-repos.js'
import {loadout, sandboxes} from './helpers.js'

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nBody of ${name}.\n`

let work: string
let server: GitHttpsServer
const sandbox = sandboxes()
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_GITHUB_URL: `${server.origin}/git`}})

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-sources-')))
  const root = join(work, 'served')
  mkdirSync(root)
  server = await startGitHttpsServer({root})
  makeServedRepo(join(work, 'src'), root, 'acme/alpha', {'skills/alpha-one/SKILL.md': skill('alpha-one')})
  makeServedRepo(join(work, 'src'), root, 'acme/mono', {'README.md': 'mono', 'plugins/beta/skills/beta-one/SKILL.md': skill('beta-one'), 'plugins/gamma/skills/gamma-one/SKILL.md': skill('gamma-one')})
  const catalog = {
    name: 'acme',
    plugins: [
      {name: 'alpha', source: {source: 'github', repo: 'acme/alpha'}},
      {name: 'alpha-url', source: {source: 'url', url: `${server.origin}/git/acme/alpha.git`}},
      {name: 'beta', source: {source: 'git-subdir', url: `${server.origin}/git/acme/mono.git`, path: 'plugins/beta'}},
    ],
  }
  makeServedRepo(join(work, 'src'), root, 'acme/market', {'.claude-plugin/marketplace.json': JSON.stringify(catalog)})
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})


const octal = (value: number, width: number): string => `${value.toString(8).padStart(width - 1, '0')}\0`
interface TarEntry {name: string; type?: '0' | '2' | '5'; body?: string; linkname?: string; mode?: number}
const tarHeader = (entry: TarEntry, size: number): Buffer => {
  const header = Buffer.alloc(512)
  header.write(entry.name, 0, 'utf8')
  const type = entry.type ?? '0'
  header.write(octal(entry.mode ?? (type === '5' ? 0o755 : 0o644), 8), 100, 'ascii')
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
/** A .tar.gz holding exactly these entries, names as given (nothing cleaned up). */
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
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

describe('explore', () => {
  it('sources', async () => {
    const sb = sandbox()
    const good = tarGz([{name: 'delta/', type: '5'}, {name: 'delta/skills/delta-one/SKILL.md', body: skill('delta-one')}])
    const dotdot = tarGz([{name: 'delta/skills/x/SKILL.md', body: skill('x')}, {name: 'delta/../../escape.txt', body: 'x'}])
    const link = tarGz([{name: 'delta/skills/x/SKILL.md', body: skill('x')}, {name: 'delta/skills/x/pw', type: '2', linkname: '/etc/passwd'}])
    server.file('/a/good.tar.gz', good)
    server.file('/a/dotdot.tar.gz', dotdot)
    server.file('/a/link.tar.gz', link)
    const catalog = {name: 'arch', plugins: [
      {name: 'good', source: {source: 'archive', url: server.url('/a/good.tar.gz'), sha256: sha256(good)}},
      {name: 'wrong', source: {source: 'archive', url: server.url('/a/good.tar.gz'), sha256: 'a'.repeat(64)}},
      {name: 'dotdot', source: {source: 'archive', url: server.url('/a/dotdot.tar.gz')}},
      {name: 'link', source: {source: 'archive', url: server.url('/a/link.tar.gz')}},
      {name: 'pinned', source: {source: 'github', repo: 'acme/alpha', sha: 'b'.repeat(40)}},
    ]}
    server.json('/arch.json', catalog)
    const added = await run(sb, ['marketplace', 'add', server.url('/arch.json'), '--json'])
    console.log(added.stdout)
    for (const p of ['good@arch', 'wrong@arch', 'dotdot@arch', 'link@arch', 'pinned@arch', 'good@arch@9.9.9']) {
      const r = await run(sb, ['install', p, '--agent', 'claude-code', '--scope', 'user', '--json'])
      console.log(p, r.status, r.stdout.slice(0, 700), r.stderr)
    }
    const r = await run(sb, ['install', server.url('/a/good.tar.gz'), '--agent', 'codex', '--scope', 'user', '--json'])
    console.log(r.status, r.stdout.slice(0, 300), r.stderr)
    expect(1).toBe(1)
  })
})
