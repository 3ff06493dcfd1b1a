/**
 * Archive extraction and download. Every hostile tarball is built here, in code: raw ustar headers
 * with correct checksums (so that names tar's own packer would clean up reach the extractor as an
 * attacker would send them), gzipped with zlib. The download is tested against the real HTTPS
 * server of test/support with its test CA.
 */
import {randomBytes} from 'node:crypto'
import {
  chmodSync,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {once} from 'node:events'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {create as tarCreate} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {LoadoutError} from '../../src/core/model/errors.js'
import {archiveCacheDir, cachedArchive, checkEntryPath, extractTarGz, fetchArchive, normalizeSha256} from '../../src/core/kernel/sources/archive.js'
import {fileSha256, treeIntegrity} from '../../src/core/kernel/fs/integrity.js'
import {startHttpsServer, type TestHttpsServer} from '../support/https-server.js'

// ---------------------------------------------------------------------------------------------
// a tar writer that does exactly what it is told

interface RawEntry {
  name: string
  /** the typeflag: '0' file (default), '5' folder, '1' hard link, '2' symlink, '3' char device, '6' FIFO, 'x' pax, 'g' global pax, 'L' GNU long name */
  type?: string
  body?: Buffer | string
  /** the size written in the header, when it is not the body's (a bomb's header) */
  size?: number
  mode?: number
  linkname?: string
  /** raw bytes for the name field, for names a string cannot carry (a NUL) */
  rawName?: Buffer
}

const octal = (value: number, width: number): string => `${value.toString(8).padStart(width - 1, '0')}\0`

const tarHeader = (entry: RawEntry): Buffer => {
  const header = Buffer.alloc(512)
  const name = entry.rawName ?? Buffer.from(entry.name, 'utf8')
  if (name.length > 100) throw new Error(`name too long for a ustar header: ${entry.name}`)
  name.copy(header, 0)
  const type = entry.type ?? '0'
  const size = entry.size ?? (entry.body === undefined ? 0 : Buffer.byteLength(entry.body))
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
  header.write('user', 265, 'ascii')
  header.write('user', 297, 'ascii')
  let sum = 0
  for (const byte of header) sum += byte
  header.write(`${octal(sum, 7)} `, 148, 'ascii')
  return header
}

const pad = (length: number): Buffer => Buffer.alloc((512 - (length % 512)) % 512)
const END = Buffer.alloc(1024)

const tarBytes = (entries: RawEntry[]): Buffer =>
  Buffer.concat([
    ...entries.flatMap((entry) => {
      const body = entry.body === undefined ? Buffer.alloc(0) : Buffer.from(entry.body)
      return [tarHeader(entry), body, pad(body.length)]
    }),
    END,
  ])

/** One pax record: `<length> <key>=<value>\n`, the length counting itself. */
const paxRecord = (key: string, value: string): string => {
  const rest = Buffer.byteLength(` ${key}=${value}\n`)
  let digits = 1
  while (String(rest + digits).length !== digits) digits++
  return `${rest + digits} ${key}=${value}\n`
}

const pax = (records: Record<string, string>, type = 'x'): RawEntry => ({
  name: type === 'g' ? 'pax_global_header' : 'PaxHeader/entry',
  type,
  body: Object.entries(records)
    .map(([k, v]) => paxRecord(k, v))
    .join(''),
})

const file = (name: string, body = `content of ${name}\n`, mode = 0o644): RawEntry => ({name, body, mode})
const dir = (name: string): RawEntry => ({name, type: '5'})

// ---------------------------------------------------------------------------------------------
// a sandbox per test: the archive lives apart, the destination is sandbox/out/dest, and after a
// refusal the sandbox must hold exactly what it held before (out/, empty)

const base = mkdtempSync(join(tmpdir(), 'loadout-archive-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))
let counter = 0

interface Sandbox {
  root: string
  dest: string
  archive: string
}

const sandbox = (): Sandbox => {
  const n = ++counter
  const root = join(base, `s${n}`)
  mkdirSync(join(root, 'out'), {recursive: true})
  mkdirSync(join(base, 'archives'), {recursive: true})
  return {root, dest: join(root, 'out', 'dest'), archive: join(base, 'archives', `a${n}.tar.gz`)}
}

const listTree = (root: string): string[] =>
  readdirSync(root, {recursive: true, withFileTypes: true})
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort()

const failure = async (promise: Promise<unknown>): Promise<LoadoutError> => {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(LoadoutError)
    return error as LoadoutError
  }
  throw new Error('expected a failure')
}

/** Extracts a hostile archive and checks the refusal left nothing behind, inside or outside. */
const refuse = async (entries: RawEntry[], options: Parameters<typeof extractTarGz>[2] = {}): Promise<LoadoutError> => {
  const box = sandbox()
  writeFileSync(box.archive, gzipSync(tarBytes(entries)))
  const error = await failure(extractTarGz(box.archive, box.dest, options))
  expect(existsSync(box.dest)).toBe(false)
  expect(listTree(box.root)).toEqual(['out'])
  expect(error.message).toContain(box.archive)
  return error
}

const evilName = (): string => `evil-${randomBytes(6).toString('hex')}`

// ---------------------------------------------------------------------------------------------

describe('checkEntryPath', () => {
  it.each([
    ['../evil', /\.\./],
    ['a/../../evil', /\.\./],
    ['./../evil', /\.\./],
    ['a/b/..', /\.\./],
    ['/tmp/evil', /absolute/],
    ['//server/share', /absolute/],
    ['C:\\evil', /backslash/],
    ['C:evil', /drive/],
    ['c:/evil', /drive/],
    ['a\\..\\..\\evil', /backslash/],
    ['a\0b', /NUL/],
    ['a\nb', /control/],
    ['esc\x1b[31m', /control/],
  ])('refuses %j', (path, rule) => {
    const result = checkEntryPath(path)
    expect('rule' in result && result.rule).toMatch(rule)
  })

  it.each([
    ['a/b/c.md', ['a', 'b', 'c.md']],
    ['./a/./b/', ['a', 'b']],
    ['a//b', ['a', 'b']],
    ['./', []],
    ['..foo/bar..', ['..foo', 'bar..']],
    ['émoji ☃.md', ['émoji ☃.md']],
  ])('accepts %j', (path, segments) => {
    expect(checkEntryPath(path)).toEqual({segments})
  })
})

describe('extractTarGz refuses hostile archives, leaving nothing behind', () => {
  it('an entry "../evil" (after good entries, which are removed too)', async () => {
    const error = await refuse([dir('pkg/'), file('pkg/ok.md'), file('../evil')])
    expect(error.code).toBe('archive-unsafe-entry')
    expect(error.exitStatus).toBe(4)
    expect(error.message).toContain('"../evil"')
    expect(error.message).toMatch(/"\.\." segment/)
    expect(error.details).toMatchObject({entry: '../evil'})
  })

  it.each(['a/../../evil', './../evil', 'a/../../../../../../../../../../tmp/EVIL', 'pkg/../../../evil/'])('an entry %j', async (name) => {
    const unique = evilName()
    const path = name.replace(/EVIL$/, unique)
    const error = await refuse([file('a/x.md'), name.endsWith('/') ? dir(path) : file(path)])
    expect(error.exitStatus).toBe(4)
    expect(error.message).toContain(JSON.stringify(path))
    expect(existsSync(join('/tmp', unique))).toBe(false)
  })

  it('an absolute entry /tmp/evil-<random>', async () => {
    const target = join('/tmp', evilName())
    const error = await refuse([file(target, 'pwned\n')])
    expect(error.code).toBe('archive-unsafe-entry')
    expect(error.message).toContain(JSON.stringify(target))
    expect(error.message).toMatch(/absolute/)
    expect(existsSync(target)).toBe(false)
  })

  it.each([['C:\\evil'], ['C:evil'], ['a\\..\\..\\evil']])('a Windows-style entry %j', async (name) => {
    const error = await refuse([file(name)])
    expect(error.exitStatus).toBe(4)
    expect(error.message).toMatch(/backslash|drive/)
  })

  it('a pax header whose path leaves the destination, behind a harmless ustar name', async () => {
    const error = await refuse([pax({path: '../../pax-evil'}), file('innocent.md')])
    expect(error.message).toContain('"../../pax-evil"')
  })

  it('a GNU long name (type L) that leaves the destination', async () => {
    const long = `${'../'.repeat(40)}evil`
    const error = await refuse([{name: '././@LongLink', type: 'L', body: `${long}\0`}, file('short.md')])
    expect(error.message).toContain(JSON.stringify(long))
  })

  it('a NUL in a name cannot smuggle a path out (tar ends the name at the NUL)', async () => {
    const box = sandbox()
    const raw = Buffer.concat([Buffer.from('safe.md\0'), Buffer.from('/../../../evil')])
    writeFileSync(box.archive, gzipSync(tarBytes([{name: 'safe.md', rawName: raw, body: 'hi\n'}])))
    await extractTarGz(box.archive, box.dest)
    expect(listTree(box.root)).toEqual(['out', 'out/dest', 'out/dest/safe.md'])
  })

  it('a symbolic link entry (to /etc/passwd), and a file written through it', async () => {
    const error = await refuse([file('ok.md'), {name: 'passwd', type: '2', linkname: '/etc/passwd'}, file('passwd', 'root::0:0::/:/bin/sh\n')])
    expect(error.code).toBe('archive-unsafe-entry')
    expect(error.message).toContain('"passwd"')
    expect(error.message).toMatch(/symbolic link \(to "\/etc\/passwd"\)/)
    expect(error.details).toMatchObject({entry: 'passwd', rule: expect.stringMatching(/links are refused/)})
  })

  it('a relative symbolic link that stays inside is refused as well', async () => {
    const error = await refuse([file('a.md'), {name: 'b.md', type: '2', linkname: 'a.md'}])
    expect(error.message).toMatch(/symbolic link/)
  })

  it('a hard link entry', async () => {
    const error = await refuse([file('a.md'), {name: 'hl', type: '1', linkname: '/etc/passwd'}])
    expect(error.message).toMatch(/hard link \(to "\/etc\/passwd"\)/)
  })

  it('pax metadata cannot turn a file into a link: it is written as a plain file inside', async () => {
    const box = sandbox()
    writeFileSync(box.archive, gzipSync(tarBytes([pax({type: 'SymbolicLink', linkpath: '/etc/shadow'}), file('shadow', 'plain\n')])))
    await extractTarGz(box.archive, box.dest)
    expect(lstatSync(join(box.dest, 'shadow')).isFile()).toBe(true)
    expect(readFileSync(join(box.dest, 'shadow'), 'utf8')).toBe('plain\n')
    expect(listTree(box.root)).toEqual(['out', 'out/dest', 'out/dest/shadow'])
  })

  it.each([
    ['3', /device/],
    ['4', /device/],
    ['6', /FIFO/],
    ['S', /not supported/],
    ['V', /not supported/],
  ])('an entry of type %s', async (type, rule) => {
    const error = await refuse([file('a.md'), {name: 'odd', type}])
    expect(error.exitStatus).toBe(4)
    expect(error.message).toMatch(rule)
  })

  it('the same file twice, and a file where a folder must go', async () => {
    const twice = await refuse([file('a.md', 'one'), file('a.md', 'two')])
    expect(twice.message).toMatch(/"a\.md".*collides/)
    const under = await refuse([file('a'), file('a/b.md')])
    expect(under.message).toMatch(/"a\/b\.md".*collides/)
  })

  it('more entries than the limit', async () => {
    const entries = Array.from({length: 11}, (_, i) => file(`f${i}.md`))
    const error = await refuse(entries, {maxEntries: 10})
    expect(error.code).toBe('archive-too-many-entries')
    expect(error.exitStatus).toBe(4)
    expect(error.message).toContain('"f10.md"')
    expect(error.message).toMatch(/more than 10 entries/)
  })

  it('more than 10,000 entries by default (every entry counts, even a folder named again)', async () => {
    const entries = Array.from({length: 10_001}, (_, i) => dir(i % 2 ? 'd/' : './d'))
    const error = await refuse(entries)
    expect(error.code).toBe('archive-too-many-entries')
    expect(error.message).toMatch(/more than 10000 entries/)
  })

  it('files adding up to more than the byte limit', async () => {
    const MiB = Buffer.alloc(1024 * 1024, 'x')
    const entries = Array.from({length: 5}, (_, i) => ({name: `f${i}.bin`, body: MiB}))
    const error = await refuse(entries, {maxBytes: 4 * 1024 * 1024})
    expect(error.code).toBe('archive-too-large')
    expect(error.message).toContain('"f4.bin"')
  })

  it('metadata alone cannot make it inflate without bound', async () => {
    const big = 'p'.repeat(600 * 1024)
    const error = await refuse([pax({comment: big}), pax({comment: big}), pax({comment: big}), file('a.md')], {maxBytes: 1024, maxEntries: 1})
    expect(error.code).toBe('archive-too-large')
  })

  it('a pax size that declares a bomb behind a small ustar size', async () => {
    const error = await refuse([pax({size: String(1024 ** 3)}), {name: 'bomb.bin', size: 0}])
    expect(error.code).toBe('archive-too-large')
  })

  it('not gzip, truncated, empty, or gzipped twice', async () => {
    const plain = sandbox()
    writeFileSync(plain.archive, tarBytes([file('a.md')]))
    expect((await failure(extractTarGz(plain.archive, plain.dest))).code).toBe('archive-corrupt')
    expect(existsSync(plain.dest)).toBe(false)

    const cut = sandbox()
    const whole = gzipSync(tarBytes([file('a.md', 'x'.repeat(5000))]))
    writeFileSync(cut.archive, whole.subarray(0, whole.length - 40))
    expect((await failure(extractTarGz(cut.archive, cut.dest))).code).toBe('archive-corrupt')
    expect(existsSync(cut.dest)).toBe(false)

    const empty = sandbox()
    writeFileSync(empty.archive, gzipSync(Buffer.alloc(0)))
    expect((await failure(extractTarGz(empty.archive, empty.dest))).code).toBe('archive-corrupt')

    const twice = sandbox()
    writeFileSync(twice.archive, gzipSync(gzipSync(tarBytes([file('a.md')]))))
    const error = await failure(extractTarGz(twice.archive, twice.dest))
    expect(error.code).toBe('archive-corrupt')
    expect(error.message).toMatch(/compressed twice/)
    expect(listTree(twice.root)).toEqual(['out'])
  })
})

describe('a 1 GB decompression bomb', () => {
  const GiB = 1024 ** 3
  const MiB = 1024 * 1024

  /**
   * A gzip stream of a tar holding one 1 GiB file of zeros, written as concatenated gzip members
   * (which gunzip joins): the header, 1024 copies of one member that inflates to 1 MiB of zeros,
   * and the end blocks. About 1 MB on disk; it is never inflated in memory here.
   */
  const writeBomb = async (path: string, trailer: Buffer = gzipSync(END), header = gzipSync(tarHeader({name: 'bomb.bin', size: GiB}))): Promise<void> => {
    const zeros = gzipSync(Buffer.alloc(MiB))
    const out = createWriteStream(path)
    const write = async (chunk: Buffer): Promise<void> => {
      if (!out.write(chunk)) await once(out, 'drain')
    }
    await write(header)
    for (let i = 0; i < GiB / MiB; i++) await write(zeros)
    await write(trailer)
    out.end()
    await once(out, 'close')
  }

  it('is refused at its header, quickly, with nothing written anywhere', async () => {
    const box = sandbox()
    await writeBomb(box.archive)
    expect(statSync(box.archive).size).toBeLessThan(2 * MiB)
    const started = performance.now()
    const error = await failure(extractTarGz(box.archive, box.dest))
    const elapsed = performance.now() - started
    expect(error.code).toBe('archive-too-large')
    expect(error.message).toContain('"bomb.bin"')
    expect(error.message).toMatch(/limit of 268435456 bytes/)
    expect(existsSync(box.dest)).toBe(false)
    expect(listTree(box.root)).toEqual(['out'])
    // inflating it all takes seconds; refusing at the header takes milliseconds
    expect(elapsed).toBeLessThan(1500)
  })

  it('a bomb of zeros after the end of the archive is never inflated', async () => {
    const box = sandbox()
    // a good archive (one file, then the end blocks), followed by 1 GiB of zeros
    const good = gzipSync(tarBytes([file('pkg/ok.md', 'fine\n')]))
    await writeBomb(box.archive, gzipSync(END), good)
    const started = performance.now()
    const result = await extractTarGz(box.archive, box.dest)
    const elapsed = performance.now() - started
    expect(result).toEqual({entries: 1, bytes: 5})
    expect(readFileSync(join(box.dest, 'pkg/ok.md'), 'utf8')).toBe('fine\n')
    expect(elapsed).toBeLessThan(1500)
  })
})

describe('extractTarGz extracts good archives', () => {
  const makeSource = (): string => {
    const src = join(base, `src${++counter}`)
    mkdirSync(join(src, 'pkg', 'skills', 'review', 'scripts'), {recursive: true})
    mkdirSync(join(src, 'pkg', 'empty'), {recursive: true})
    writeFileSync(join(src, 'pkg', 'README.md'), '# pkg\n')
    writeFileSync(join(src, 'pkg', 'skills', 'review', 'SKILL.md'), '---\nname: review\n---\n')
    writeFileSync(join(src, 'pkg', 'skills', 'review', 'scripts', 'run.sh'), '#!/bin/sh\necho ok\n')
    chmodSync(join(src, 'pkg', 'skills', 'review', 'scripts', 'run.sh'), 0o755)
    writeFileSync(join(src, 'pkg', 'data.bin'), randomBytes(3 * 1024 * 1024 + 17))
    writeFileSync(join(src, 'pkg', `${'long-name-'.repeat(12)}.md`), 'a name longer than 100 bytes needs a pax header\n')
    return src
  }

  it('made by the tar package: right content, modes and integrity, in a private folder', async () => {
    const src = makeSource()
    const box = sandbox()
    await tarCreate({gzip: true, file: box.archive, cwd: src, portable: true}, ['pkg'])
    const result = await extractTarGz(box.archive, box.dest)
    expect(result.entries).toBe(10)
    const sizes = listTree(join(src, 'pkg'))
      .map((p) => statSync(join(src, 'pkg', p)))
      .filter((s) => s.isFile())
    expect(result.bytes).toBe(sizes.reduce((sum, s) => sum + s.size, 0))
    expect(statSync(box.dest).mode & 0o777).toBe(0o700)
    const out = join(box.dest, 'pkg')
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toBe('# pkg\n')
    expect(readFileSync(join(out, 'data.bin')).equals(readFileSync(join(src, 'pkg', 'data.bin')))).toBe(true)
    expect(statSync(join(out, 'skills/review/scripts/run.sh')).mode & 0o100).toBe(0o100)
    expect(statSync(join(out, 'README.md')).mode & 0o111).toBe(0)
    expect(statSync(join(out, 'empty')).isDirectory()).toBe(true)
    expect(await treeIntegrity(out)).toBe(await treeIntegrity(join(src, 'pkg')))
  })

  it('stripSingleRoot moves a GitHub-style top folder away (pax global header included)', async () => {
    const box = sandbox()
    writeFileSync(
      box.archive,
      gzipSync(
        tarBytes([
          pax({comment: '0123456789abcdef0123456789abcdef01234567'}, 'g'),
          dir('acme-review-0123456/'),
          dir('acme-review-0123456/acme-review-0123456/'),
          file('acme-review-0123456/acme-review-0123456/nested.md'),
          file('acme-review-0123456/.claude-plugin/plugin.json', '{"name":"review"}\n'),
          file('acme-review-0123456/hooks/check.sh', '#!/bin/sh\n', 0o755),
        ]),
      ),
    )
    const result = await extractTarGz(box.archive, box.dest, {stripSingleRoot: true})
    expect(result.entries).toBe(5)
    expect(listTree(box.dest)).toEqual([
      '.claude-plugin',
      '.claude-plugin/plugin.json',
      'acme-review-0123456',
      'acme-review-0123456/nested.md',
      'hooks',
      'hooks/check.sh',
    ])
    expect(statSync(box.dest).mode & 0o777).toBe(0o700)
    expect(statSync(join(box.dest, 'hooks/check.sh')).mode & 0o100).toBe(0o100)
  })

  it('stripSingleRoot keeps archives with several roots, or whose one root is a file, as they are', async () => {
    const two = sandbox()
    writeFileSync(two.archive, gzipSync(tarBytes([file('a/x.md'), file('b/y.md')])))
    await extractTarGz(two.archive, two.dest, {stripSingleRoot: true})
    expect(listTree(two.dest)).toEqual(['a', 'a/x.md', 'b', 'b/y.md'])

    const single = sandbox()
    writeFileSync(single.archive, gzipSync(tarBytes([file('README.md')])))
    await extractTarGz(single.archive, single.dest, {stripSingleRoot: true})
    expect(listTree(single.dest)).toEqual(['README.md'])

    const part = sandbox()
    writeFileSync(part.archive, gzipSync(tarBytes([file('skills/a/SKILL.md')])))
    await extractTarGz(part.archive, part.dest, {stripSingleRoot: true})
    expect(listTree(part.dest)).toEqual(['skills', 'skills/a', 'skills/a/SKILL.md'])

    const without = sandbox()
    writeFileSync(without.archive, gzipSync(tarBytes([file('repo/x.md')])))
    await extractTarGz(without.archive, without.dest)
    expect(listTree(without.dest)).toEqual(['repo', 'repo/x.md'])
  })

  it('"./"-prefixed entries (tar -C dir .) and a folder mode of 000 extract fine', async () => {
    const box = sandbox()
    writeFileSync(box.archive, gzipSync(tarBytes([dir('./'), {name: './locked/', type: '5', mode: 0}, file('./locked/a.md', 'a\n', 0o4755)])))
    const result = await extractTarGz(box.archive, box.dest)
    expect(result).toEqual({entries: 3, bytes: 2})
    expect(readFileSync(join(box.dest, 'locked/a.md'), 'utf8')).toBe('a\n')
    // no setuid bit, ever
    expect(statSync(join(box.dest, 'locked/a.md')).mode & 0o7000).toBe(0)
  })

  it('an existing empty folder is used; a non-empty one or a link is refused and left alone', async () => {
    const ok = sandbox()
    writeFileSync(ok.archive, gzipSync(tarBytes([file('a.md')])))
    mkdirSync(ok.dest, {mode: 0o755})
    await extractTarGz(ok.archive, ok.dest)
    expect(statSync(ok.dest).mode & 0o777).toBe(0o700)

    const full = sandbox()
    writeFileSync(full.archive, gzipSync(tarBytes([file('a.md')])))
    mkdirSync(full.dest)
    writeFileSync(join(full.dest, 'mine.txt'), 'keep me')
    const error = await failure(extractTarGz(full.archive, full.dest))
    expect(error.exitStatus).toBe(5)
    expect(readFileSync(join(full.dest, 'mine.txt'), 'utf8')).toBe('keep me')

    const link = sandbox()
    writeFileSync(link.archive, gzipSync(tarBytes([file('a.md')])))
    const elsewhere = join(link.root, 'elsewhere')
    mkdirSync(elsewhere)
    symlinkSync(elsewhere, link.dest)
    expect((await failure(extractTarGz(link.archive, link.dest))).exitStatus).toBe(5)
    expect(lstatSync(link.dest).isSymbolicLink()).toBe(true)
    expect(readdirSync(elsewhere)).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// fetchArchive against the real HTTPS server

/**
 * Node reads NODE_EXTRA_CA_CERTS only when it starts, so this process cannot be told to trust the
 * test CA that way. Node's fetch (undici) keeps its global dispatcher under this well-known symbol
 * (the one the `undici` package's setGlobalDispatcher uses), so the tests install an Agent of the
 * same class whose TLS connections trust the test CA, and put the original back afterwards.
 */
const DISPATCHER = Symbol.for('undici.globalDispatcher.1')
type Dispatching = typeof globalThis & {[DISPATCHER]?: object}

describe('fetchArchive', () => {
  let server: TestHttpsServer
  let original: object | undefined
  const env: Environment = {vars: {}, home: '/nonexistent', cwd: '/', platform: 'linux', interactive: false}
  const fast = {backoffMs: [5, 5] as const}
  let goodArchive: Buffer
  let goodSha: string
  let goodIntegrity: string
  let untrusted: unknown

  beforeAll(async () => {
    server = await startHttpsServer()
    const src = join(base, 'served')
    mkdirSync(join(src, 'review-1.0.0', 'skills', 'review'), {recursive: true})
    writeFileSync(join(src, 'review-1.0.0', 'skills', 'review', 'SKILL.md'), '---\nname: review\n---\n')
    writeFileSync(join(src, 'review-1.0.0', 'README.md'), '# review\n')
    const tgz = join(base, 'served.tar.gz')
    await tarCreate({gzip: true, file: tgz, cwd: src, portable: true}, ['review-1.0.0'])
    goodArchive = readFileSync(tgz)
    goodSha = await fileSha256(tgz)
    goodIntegrity = await treeIntegrity(join(src, 'review-1.0.0'))
    server.file('/review.tar.gz', goodArchive)
    server.file('/evil.tar.gz', gzipSync(tarBytes([file('review/ok.md'), {name: 'review/pw', type: '2', linkname: '/etc/passwd'}])))
    server.file('/big.tar.gz', Buffer.alloc(64 * 1024))
    server.redirect('/latest.tar.gz', '/review.tar.gz')
    untrusted = await fetchArchive(server.url('/review.tar.gz'), {env, cacheDir: join(base, 'untrusted'), ...fast}).catch((error: unknown) => error)
    await trustTestCa()
  })

  const trustTestCa = async (): Promise<void> => {
    // the first fetch loads undici, which creates its global dispatcher
    await fetch(server.url('/warm-up')).catch(() => undefined)
    const current = (globalThis as Dispatching)[DISPATCHER]
    if (!current) throw new Error('no undici global dispatcher to replace')
    original = current
    const Agent = current.constructor as new (options: {connect: {ca: string}}) => object
    ;(globalThis as Dispatching)[DISPATCHER] = new Agent({connect: {ca: server.ca.caCert}})
  }

  afterAll(async () => {
    if (original) (globalThis as Dispatching)[DISPATCHER] = original
    await server?.stop()
  })

  const cacheDir = (): string => join(base, `cache${++counter}`)

  it('failed before the test CA was trusted (TLS is really verified)', () => {
    expect(untrusted).toBeInstanceOf(LoadoutError)
    expect((untrusted as LoadoutError).exitStatus).toBe(6)
  })

  it('downloads, checks the sha256, extracts into a private folder and hashes the tree', async () => {
    const cache = cacheDir()
    const result = await fetchArchive(server.url('/review.tar.gz'), {env, cacheDir: cache, sha256: goodSha, ...fast})
    expect(result.sha256).toBe(goodSha)
    expect(result.integrity).toBe(goodIntegrity)
    expect(result.dir.startsWith(`${cache}/`)).toBe(true)
    expect(statSync(result.dir).mode & 0o777).toBe(0o700)
    // GitHub-style: the one top folder is stripped by default
    expect(listTree(result.dir)).toEqual(['README.md', 'skills', 'skills/review', 'skills/review/SKILL.md'])
    // one folder for this URL and sha256, holding the checked bytes (for --offline) and the tree
    const folder = archiveCacheDir(cache, server.url('/review.tar.gz'), goodSha)
    expect(readdirSync(cache)).toEqual([basename(folder)])
    expect(readdirSync(folder).sort()).toEqual(['archive.tar.gz', 'tree'])
    expect(result.dir).toBe(join(folder, 'tree'))
    const again = await fetchArchive(server.url('/review.tar.gz'), {env, cacheDir: cache, sha256: goodSha, ...fast})
    expect(again.dir).toBe(result.dir)
    expect(readdirSync(cache)).toEqual([basename(folder)])
  })

  it('cachedArchive extracts the kept bytes again without the network, only when they match the sha256', async () => {
    const cache = cacheDir()
    const url = server.url('/review.tar.gz')
    expect(await cachedArchive(url, {env, cacheDir: cache, sha256: goodSha})).toBeUndefined()
    await fetchArchive(url, {env, cacheDir: cache, sha256: goodSha, ...fast})
    const cached = await cachedArchive(url, {env, cacheDir: cache, sha256: goodSha})
    expect(cached).toMatchObject({sha256: goodSha, integrity: goodIntegrity})
    expect(await cachedArchive(url, {env, cacheDir: cache})).toBeUndefined()
    writeFileSync(join(archiveCacheDir(cache, url, goodSha), 'archive.tar.gz'), 'changed')
    expect(await cachedArchive(url, {env, cacheDir: cache, sha256: goodSha})).toBeUndefined()
  })

  it('accepts sha256- and upper-case forms, follows a redirect, works without a sha256', async () => {
    const pinned = await fetchArchive(server.url('/latest.tar.gz'), {env, cacheDir: cacheDir(), sha256: `sha256-${goodSha.toUpperCase()}`, ...fast})
    expect(pinned.integrity).toBe(goodIntegrity)
    const unpinned = await fetchArchive(server.url('/review.tar.gz'), {env, cacheDir: cacheDir(), stripSingleRoot: false, ...fast})
    expect(unpinned.sha256).toBe(goodSha)
    expect(readdirSync(unpinned.dir)).toEqual(['review-1.0.0'])
  })

  it('a wrong sha256 fails with exit 7, naming both digests and the URL, and extracts nothing', async () => {
    const cache = cacheDir()
    const wrong = 'ab'.repeat(32)
    const error = await failure(fetchArchive(server.url('/review.tar.gz'), {env, cacheDir: cache, sha256: wrong, ...fast}))
    expect(error.code).toBe('integrity-mismatch')
    expect(error.exitStatus).toBe(7)
    expect(error.message).toContain(wrong)
    expect(error.message).toContain(goodSha)
    expect(error.message).toContain(server.url('/review.tar.gz'))
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([])
  })

  it('a hostile archive is refused and leaves nothing in the cache', async () => {
    const cache = cacheDir()
    const error = await failure(fetchArchive(server.url('/evil.tar.gz'), {env, cacheDir: cache, ...fast}))
    expect(error.code).toBe('archive-unsafe-entry')
    expect(error.message).toContain(server.url('/evil.tar.gz'))
    expect(error.message).toContain('"review/pw"')
    expect(readdirSync(cache)).toEqual([])
  })

  it('refuses http, credentials in the URL, a bad sha256 and a download over the limit', async () => {
    const insecure = await failure(fetchArchive(`http://127.0.0.1:${server.port}/review.tar.gz`, {env, cacheDir: cacheDir(), ...fast}))
    expect(insecure.exitStatus).toBe(2)
    const credentialed = await failure(fetchArchive(`https://alice:hunter2@127.0.0.1:${server.port}/review.tar.gz`, {env, cacheDir: cacheDir(), ...fast}))
    expect(credentialed.exitStatus).toBe(2)
    expect(credentialed.message).not.toContain('hunter2')
    expect(() => normalizeSha256('abc')).toThrow(/not a sha256/)
    const big = await failure(fetchArchive(server.url('/big.tar.gz'), {env, cacheDir: cacheDir(), maxDownloadBytes: 1024, ...fast}))
    expect(big.exitStatus).toBe(6)
  })
})
