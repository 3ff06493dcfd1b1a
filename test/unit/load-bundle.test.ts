/**
 * The fast path's bundle is loaded by a registry of its own and compiled through V8's code cache
 * (src/ui/fast/load-bundle.ts): a cache is written beside a file after its first run, taken as it is by
 * the next, and one V8 refuses (garbage, another file's) only costs a compile and is written again. A hot
 * command's chunks come from its pack, the rest from their files, each chunk run once. Each case runs a
 * real Node process, as bin/run.js does.
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'

const LOADER = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'start', 'load-bundle.cjs')).href

let dirs: string[] = []
afterEach(() => {
  for (const dir of dirs) {
    chmodSync(join(dir, 'fast'), 0o755)
    rmSync(dir, {recursive: true, force: true})
  }
  dirs = []
})

/** A bundle of an entry and one chunk, with a CommonJS file outside it that the chunk requires too. */
const makeBundle = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'loadout-code-cache-'))
  dirs.push(dir)
  mkdirSync(join(dir, 'fast'))
  writeFileSync(join(dir, 'outside.cjs'), 'exports.word = "outside"\n')
  writeFileSync(
    join(dir, 'fast', 'chunk-Abc123.cjs'),
    'const o = require("../outside.cjs")\nexports.answer = (n) => `${o.word} ${n * 2} ${__filename.endsWith("chunk-Abc123.cjs")}`\n',
  )
  writeFileSync(join(dir, 'fast', 'run.cjs'), 'const c = require("./chunk-Abc123.cjs")\nexports.run = () => c.answer(21)\n')
  return join(dir, 'fast')
}

const run = (bundle: string, argv: readonly string[] = []): string => {
  const entry = JSON.stringify(join(bundle, 'run.cjs'))
  const script = `const {loadBundle} = await import(${JSON.stringify(LOADER)}); const {createRequire} = await import('node:module'); console.log(loadBundle(${entry}, ${JSON.stringify(argv)}, createRequire(${entry})).run())`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
  expect(result.stderr).toBe('')
  expect(result.status).toBe(0)
  return result.stdout.trim()
}

/** Every cache file by the name of the file it caches: its generation, inode and bytes. */
const caches = (bundle: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const root = join(bundle, '.v8-cache')
  for (const entry of readdirSync(root, {recursive: true, withFileTypes: true}))
    if (entry.isFile()) {
      const file = join(entry.parentPath, entry.name)
      const [, name, generation] = /^(.*)-\d+-\d+\.(\d)\.bin$/.exec(entry.name)!
      expect(out[name!], `one cache of ${name}`).toBeUndefined()
      out[name!] = `${generation} ${statSync(file).ino} ${readFileSync(file).toString('base64')}`
    }
  return out
}
const generations = (bundle: string): Record<string, string> =>
  Object.fromEntries(Object.entries(caches(bundle)).map(([name, value]) => [name, value.split(' ')[0]!]))

describe('the loader of the fast path', () => {
  it('loads a bundle with no import() in it: Node 20 cannot run one from a script V8 cached', () => {
    const bundle = join(import.meta.dirname, '..', '..', 'dist', 'fast')
    const chunks = readdirSync(bundle).filter((f) => f.endsWith('.cjs'))
    expect(chunks.length).toBeGreaterThan(50)
    for (const chunk of chunks) expect(readFileSync(join(bundle, chunk), 'utf8'), chunk).not.toMatch(/\bimport\(/)
  })

  it('is written after the first run, one per chunk, again by the next two that take it, then taken as it is', () => {
    const bundle = makeBundle()
    expect(run(bundle)).toBe('outside 42 true')
    expect(generations(bundle)).toEqual({'chunk-Abc123.cjs': '1', 'run.cjs': '1'})
    expect(run(bundle)).toBe('outside 42 true')
    expect(generations(bundle)).toEqual({'chunk-Abc123.cjs': '2', 'run.cjs': '2'})
    expect(run(bundle)).toBe('outside 42 true')
    const third = caches(bundle)
    expect(generations(bundle)).toEqual({'chunk-Abc123.cjs': '3', 'run.cjs': '3'})
    expect(run(bundle)).toBe('outside 42 true')
    // accepted: not written again (a rewrite is a new file, renamed in)
    expect(caches(bundle)).toEqual(third)
  })

  it('a cache V8 refuses (garbage, or another chunk of the same size) only costs a compile, and is written again', () => {
    const bundle = makeBundle()
    for (let i = 0; i < 3; i++) run(bundle)
    const [chunkCache, runCache] = ['chunk-Abc123.cjs', 'run.cjs'].map((name) => {
      const dir = readdirSync(join(bundle, '.v8-cache'))[0]!
      return join(
        bundle,
        '.v8-cache',
        dir,
        readdirSync(join(bundle, '.v8-cache', dir)).find((f) => f.startsWith(name))!,
      )
    })
    writeFileSync(chunkCache!, Buffer.from('not a code cache at all'.repeat(50)))
    writeFileSync(runCache!, readFileSync(chunkCache!))
    expect(run(bundle)).toBe('outside 42 true')
    const rewritten = caches(bundle)
    expect(readFileSync(chunkCache!).toString()).not.toContain('not a code cache')
    expect(generations(bundle)).toEqual({'chunk-Abc123.cjs': '3', 'run.cjs': '3'})
    expect(run(bundle)).toBe('outside 42 true')
    expect(caches(bundle)).toEqual(rewritten)
  })

  it('reads a cache shorter than its file, or an empty one, into the buffer the file was read into: refused, and written again', () => {
    const bundle = makeBundle()
    // a text longer than any cache of it, so that the cache is read over the start of the text's bytes
    writeFileSync(join(bundle, 'run.cjs'), `const c = require("./chunk-Abc123.cjs")\nexports.run = () => c.answer(21)\n// ${'x'.repeat(20_000)}\n`)
    for (let i = 0; i < 3; i++) run(bundle)
    const dir = join(bundle, '.v8-cache', readdirSync(join(bundle, '.v8-cache'))[0]!)
    const cacheOf = (name: string) =>
      join(
        dir,
        readdirSync(dir).find((f) => f.startsWith(name))!,
      )
    writeFileSync(cacheOf('run.cjs'), 'short')
    writeFileSync(cacheOf('chunk-Abc123.cjs'), '')
    expect(run(bundle)).toBe('outside 42 true')
    expect(readFileSync(cacheOf('run.cjs')).length).toBeGreaterThan(100)
    expect(readFileSync(cacheOf('chunk-Abc123.cjs')).length).toBeGreaterThan(100)
    const rewritten = caches(bundle)
    expect(run(bundle)).toBe('outside 42 true')
    expect(caches(bundle)).toEqual(rewritten)
  })

  it('a bundle in a folder it cannot write runs all the same, and writes nothing', () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere: a file where the cache folder would be stands for a folder it cannot write
      const bundle = makeBundle()
      writeFileSync(join(bundle, '.v8-cache'), '')
      expect(run(bundle)).toBe('outside 42 true')
      expect(readFileSync(join(bundle, '.v8-cache'), 'utf8')).toBe('')
      return
    }
    const bundle = makeBundle()
    chmodSync(bundle, 0o555)
    expect(run(bundle)).toBe('outside 42 true')
    expect(readdirSync(bundle).sort()).toEqual(['chunk-Abc123.cjs', 'run.cjs'])
  })

  it("takes a command's chunks from its pack and the rest from their files, each chunk run once", () => {
    const bundle = makeBundle()
    const runText = readFileSync(join(bundle, 'run.cjs'), 'utf8').replace(
      'exports.run = () => c.answer(21)',
      'const s = require("./shared-Q.cjs")\nexports.run = () => `${c.answer(21)} ${s.count()}`',
    )
    writeFileSync(join(bundle, 'run.cjs'), runText)
    writeFileSync(join(bundle, 'chunk-Abc123.cjs'), `require("./shared-Q.cjs")\n${readFileSync(join(bundle, 'chunk-Abc123.cjs'), 'utf8')}`)
    const shared = (from: string) => `globalThis.loads = (globalThis.loads ?? 0) + 1\nexports.count = () => "${from} " + globalThis.loads`
    writeFileSync(join(bundle, 'shared-Q.cjs'), shared('file'))
    const pack = (from: string) =>
      `({\n"run.cjs": function (exports, require, module, __filename, __dirname) {${runText}\n},\n"shared-Q.cjs": function (exports, require, module, __filename, __dirname) {${shared(from)}\n}\n})\n`
    mkdirSync(join(bundle, 'packs'))
    writeFileSync(join(bundle, 'packs', 'demo.pack'), pack('pack'))
    writeFileSync(join(bundle, 'packs', 'demo-two.pack'), pack('two-word pack'))
    writeFileSync(join(bundle, 'evil.pack'), pack('evil'))
    expect(run(bundle)).toBe('outside 42 true file 1')
    expect(run(bundle, ['demo', '--json'])).toBe('outside 42 true pack 1')
    expect(run(bundle, ['demo', 'p01'])).toBe('outside 42 true pack 1')
    expect(run(bundle, ['demo', 'two'])).toBe('outside 42 true two-word pack 1')
    // only command words name a pack: nothing outside packs/ is read
    expect(run(bundle, ['../evil'])).toBe('outside 42 true file 1')
    // and from the cache the second time
    expect(run(bundle, ['demo'])).toBe('outside 42 true pack 1')
    expect(Object.keys(caches(bundle)).sort()).toEqual(['chunk-Abc123.cjs', 'demo-two.pack', 'demo.pack', 'run.cjs', 'shared-Q.cjs'])
  })

  it('every file of the built bundle is ASCII, and each pack holds every chunk its command loads before it runs', () => {
    const built = join(import.meta.dirname, '..', '..', 'dist', 'fast')
    const packs = readdirSync(join(built, 'packs'))
    expect(packs).toContain('list.pack')
    for (const file of [
      ...readdirSync(built)
        .filter((f) => f.endsWith('.cjs'))
        .map((f) => join(built, f)),
      ...packs.map((f) => join(built, 'packs', f)),
    ])
      expect(readFileSync(file, 'latin1'), file).toMatch(/^[\x00-\x7f]*$/)
    // a copy beside the real one, so that packages resolve from node_modules as they do for dist/fast
    const copy = mkdtempSync(join(built, '..', '.bundle-test-'))
    try {
      cpSync(built, join(copy, 'fast'), {recursive: true, filter: (source) => !source.includes('.v8-cache')})
      for (const pack of packs) {
        const words = pack.replace('.pack', '').replace('-', ' ')
        const entry = JSON.stringify(join(copy, 'fast', 'run.cjs'))
        const script = `const {loadBundle} = await import(${JSON.stringify(LOADER)}); const {createRequire} = await import('node:module'); await loadBundle(${entry}, ${JSON.stringify(words.split(' '))}, createRequire(${entry})).FAST_COMMANDS[${JSON.stringify(words)}]()`
        const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
        expect(result.stderr).toBe('')
        expect(result.status).toBe(0)
        // a file compiled is a cache written: the pack's only
        expect(Object.keys(caches(join(copy, 'fast'))), words).toEqual([pack])
        rmSync(join(copy, 'fast', '.v8-cache'), {recursive: true})
      }
    } finally {
      rmSync(copy, {recursive: true, force: true})
    }
  })
})
