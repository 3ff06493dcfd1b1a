/**
 * Loads the fast path's bundle (dist/fast/*.cjs) through V8's code cache. Node 20 has no compile cache
 * (`module.enableCompileCache` is Node 22), and compiling the ~150 KB of chunks a command loads was a
 * fifth of its own time. A chunk's cache is written beside it once, at the exit of the first run that
 * compiled it, when that folder is writable: it is the package's own folder, so whoever can write the
 * cache can write the code it caches, and a cache V8 rejects (another Node, another chunk) is only
 * rewritten. Nothing is written into HOME.
 */
import {closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import Module, {createRequire} from 'node:module'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Script} from 'node:vm'

type Loader = (module: Module, filename: string) => void
type Extensions = Record<string, Loader>

/** The folder of the caches of one bundle for this V8 (a cache is only good for the V8 that made it). */
const cacheDir = (bundleDir: string) => join(bundleDir, '.v8-cache', `${process.versions.v8}-${process.arch}`)

/** The cache's name: the chunk's own name holds its content's hash; its size and time guard a chunk rewritten in place. */
const cacheFile = (dir: string, filename: string, fd: number): string => {
  const {size, mtimeMs} = fstatSync(fd)
  return join(dir, `${basename(filename)}-${size}-${Math.trunc(mtimeMs)}.bin`)
}

const readIfAny = (file: string): Buffer | undefined => {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}

/** Writes each new cache by a rename, so that runs at once never read half of one; a folder we cannot write is left alone. */
const writeCaches = (dir: string, made: readonly (readonly [Script, string])[]) => {
  try {
    mkdirSync(dir, {recursive: true})
    for (const [script, file] of made) {
      const temp = `${file}.${process.pid}.tmp`
      writeFileSync(temp, script.createCachedData())
      renameSync(temp, file)
    }
  } catch {
    // a read-only install: the next run compiles again
  }
}

/** Requires the bundle's entry, compiling each of its chunks from the cache where V8 accepts it. */
export const requireCached = (entryUrl: URL): unknown => {
  const entry = fileURLToPath(entryUrl)
  const bundleDir = dirname(entry)
  const dir = cacheDir(bundleDir)
  const made: (readonly [Script, string])[] = []
  const extensions = (Module as unknown as {_extensions: Extensions})._extensions
  const plain = extensions['.cjs'] ?? extensions['.js']!
  extensions['.cjs'] = (module, filename) => {
    if (dirname(filename) !== bundleDir) return plain(module, filename)
    const fd = openSync(filename, 'r')
    let source: string
    let file: string
    try {
      source = readFileSync(fd, 'utf8')
      file = cacheFile(dir, filename, fd)
    } finally {
      closeSync(fd)
    }
    const cachedData = readIfAny(file)
    // no import() in the bundle (bin/build.js makes each a require): a script from V8's cache has no
    // callback for one in Node 20
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {filename, cachedData})
    if (!cachedData || script.cachedDataRejected) made.push([script, file])
    const body = script.runInThisContext() as (...args: unknown[]) => void
    body.call(module.exports, module.exports, createRequire(filename), module, filename, bundleDir)
  }
  process.once('exit', () => {
    if (made.length > 0) writeCaches(dir, made)
  })
  return createRequire(import.meta.url)(entry)
}
