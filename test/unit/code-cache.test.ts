/**
 * The fast path's bundle is compiled through V8's code cache (src/ui/fast/code-cache.ts): a cache is
 * written beside a chunk after its first run, taken as it is by the next, and one V8 refuses (garbage,
 * another chunk's) only costs a compile and is written again. Each case runs a real Node process on a
 * bundle of its own, since the loader hooks the process it runs in.
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'

const LOADER = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'ui', 'fast', 'code-cache.js')).href

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

const run = (bundle: string): string => {
  const script = `const {requireCached} = await import(${JSON.stringify(LOADER)}); console.log(requireCached(new URL(${JSON.stringify(pathToFileURL(join(bundle, 'run.cjs')).href)})).run())`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
  expect(result.stderr).toBe('')
  expect(result.status).toBe(0)
  return result.stdout.trim()
}

/** Every cache file with its inode and bytes. */
const caches = (bundle: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const root = join(bundle, '.v8-cache')
  for (const entry of readdirSync(root, {recursive: true, withFileTypes: true}))
    if (entry.isFile()) {
      const file = join(entry.parentPath, entry.name)
      out[entry.name.replace(/-\d+-\d+\.bin$/, '')] = `${statSync(file).ino} ${readFileSync(file).toString('base64')}`
    }
  return out
}

describe('the code cache of the fast path', () => {
  it('loads a bundle with no import() in it: Node 20 cannot run one from a script V8 cached', () => {
    const bundle = join(import.meta.dirname, '..', '..', 'dist', 'fast')
    const chunks = readdirSync(bundle).filter((f) => f.endsWith('.cjs'))
    expect(chunks.length).toBeGreaterThan(50)
    for (const chunk of chunks) expect(readFileSync(join(bundle, chunk), 'utf8'), chunk).not.toMatch(/\bimport\(/)
  })

  it('is written after the first run, one per chunk, and taken as it is by the next', () => {
    const bundle = makeBundle()
    expect(run(bundle)).toBe('outside 42 true')
    const first = caches(bundle)
    expect(Object.keys(first).sort()).toEqual(['chunk-Abc123.cjs', 'run.cjs'])
    expect(run(bundle)).toBe('outside 42 true')
    // accepted: not written again (a rewrite is a new file, renamed in)
    expect(caches(bundle)).toEqual(first)
  })

  it('a cache V8 refuses (garbage, or another chunk of the same size) only costs a compile, and is written again', () => {
    const bundle = makeBundle()
    run(bundle)
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
})
