import {createHash} from 'node:crypto'
import {symlinkSync, writeFileSync} from 'node:fs'
import {mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
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


const writeTree = (root: string, files: Record<string, string | {symlink: string}>) => {
  for (const [path, spec] of Object.entries(files)) {
    const full = join(root, path)
    mkdirSync(dirname(full), {recursive: true})
    if (typeof spec === 'string') writeFileSync(full, spec)
    else symlinkSync(spec.symlink, full)
  }
}
describe('explore', () => {
  it('hostile', async () => {
    const sb = sandbox()
    mkdirSync(join(sb.home, '.claude'))
    const outside = join(sb.dir, 'outside')
    writeTree(outside, {'skills/stolen/SKILL.md': skill('stolen'), 'x/SKILL.md': skill('x')})
    const cases: Record<string, Record<string, string | {symlink: string}>> = {
      dotdot: {'.claude-plugin/plugin.json': JSON.stringify({name: 'dotdot', skills: ['../x']})},
      abs: {'.claude-plugin/plugin.json': JSON.stringify({name: 'abs', skills: ['/etc']})},
      sneaky: {'.claude-plugin/plugin.json': JSON.stringify({name: 'sneaky', skills: ['./a/../../x']}), 'a/keep': ''},
      passwd: {'skills/pw/SKILL.md': skill('pw'), 'skills/pw/passwd': {symlink: '/etc/passwd'}},
      skillslink: {'skills': {symlink: join(outside, 'skills')}},
      twice: {'.claude-plugin/plugin.json': JSON.stringify({name: 'twice', skills: ['./skills/a', './skills/a']}), 'skills/a/SKILL.md': skill('a')},
      twice2: {'.claude-plugin/plugin.json': JSON.stringify({name: 'twice2', skills: ['./one', './two']}), 'one/SKILL.md': skill('same'), 'two/SKILL.md': skill('same')},
    }
    for (const [name, files] of Object.entries(cases)) {
      writeTree(join(sb.dir, 'plugins', name), files)
      const r = await run(sb, ['install', join(sb.dir, 'plugins', name), '--agent', 'claude-code', '--scope', 'user', '--json'])
      console.log(name, r.status, r.stdout.slice(0, 900), r.stderr)
    }
    writeTree(join(sb.dir, 'plugins', 'mcp'), {'.mcp.json': JSON.stringify({mcpServers: {s: {command: 'srv'}}})})
    writeFileSync(join(outside, 'elsewhere.json'), '{}\n')
    symlinkSync(join(outside, 'elsewhere.json'), join(sb.home, '.claude.json'))
    const r = await run(sb, ['install', join(sb.dir, 'plugins', 'mcp'), '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    console.log('mcp', r.status, r.stdout.slice(0, 900), r.stderr)
    expect(1).toBe(1)
  })
})
