/**
 * Loads the fast path's bundle (dist/fast/, bin/build.mjs) with a module registry of its own, each file
 * compiled through V8's code cache. Node's module loader resolves, stats and wraps every file it loads
 * (~0.4 ms a chunk, ~30 chunks a command), and Node 20 has no compile cache (`module.enableCompileCache`
 * is Node 22). So:
 * - a hot command's chunks come from its pack (`packs/<words>.pack`): every chunk it loads before it
 *   runs, in one script: one read and one compile;
 * - any other chunk is read from its own file when first required;
 * - a chunk requires another as `./name.cjs`; anything else (`node:*`, packages) is Node's require
 *   from the bundle's folder.
 * The build makes every file ASCII, so it is read as Latin-1: a one-byte string, half the memory of
 * the two-byte string UTF-8 decoding makes of a file with one non-ASCII character.
 * A file's cache is written beside the bundle at the exit of the first run that compiled it, and again
 * by the next runs that took it, up to GENERATIONS: V8 caches only the functions a run compiled, and a
 * first run (in an empty home, say) seldom takes every path later ones do. Only when that folder is
 * writable: it is the package's own folder, so whoever can write the cache can write the code it
 * caches, and a cache V8 rejects (another Node, another file) is only rewritten. Nothing is written
 * into HOME.
 */
import {closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {basename, dirname, join, sep} from 'node:path'
import {Script} from 'node:vm'

interface ChunkModule {
  exports: unknown
}
type ChunkBody = (exports: unknown, require: (spec: string) => unknown, module: ChunkModule, filename: string, dirname: string) => void

/** A chunk's text as the body of a function taking what a CommonJS module is given: a pack's values (bin/build.mjs), and a chunk read on its own. */
export const chunkFunction = (source: string): string => `function (exports, require, module, __filename, __dirname) {${source}\n}`

/** The words of a command name (`skills list` → skills-list.pack): lower-case letters and dashes only. */
const COMMAND_WORD = /^[a-z][a-z-]{0,40}$/

/** Reads the open file `fd` into `buffer` from its start, up to `size` bytes (fewer if it is shorter now); returns how many. */
const readInto = (fd: number, buffer: Buffer, size: number): number => {
  let done = 0
  for (let n = -1; done < size && n !== 0; done += n) n = readSync(fd, buffer, done, size - done, done)
  return done
}

/** The open file of a cache, with its size; none when there is no such file. */
const openCache = (file: string): {fd: number; size: number} | undefined => {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return undefined
  }
  try {
    return {fd, size: fstatSync(fd).size}
  } catch {
    closeSync(fd)
    return undefined
  }
}

/** How many runs write a file's cache: the first, then each of the next that took the one before. */
const GENERATIONS = 3

interface CacheWrite {
  script: Script
  file: string
  /** the generation it replaces, removed once it is written */
  replaces?: string
}

/** Writes each new cache by a rename, so that runs at once never read half of one; a folder we cannot write is left alone. */
const writeCaches = (dir: string, made: readonly CacheWrite[]) => {
  try {
    mkdirSync(dir, {recursive: true})
    for (const {script, file, replaces} of made) {
      const temp = `${file}.${process.pid}.tmp`
      writeFileSync(temp, script.createCachedData())
      renameSync(temp, file)
      if (replaces) rmSync(replaces, {force: true})
    }
  } catch {
    // a read-only install: the next run compiles again
  }
}

/**
 * Requires the bundle's entry (a path), with the chunks of the pack named by the command words in
 * `argv` when there is one. `outside` requires what is not a chunk (`node:*`, packages): the caller's
 * own `require`, whose folder is in the same package (`module.createRequire` would load node:module,
 * and with it Node's ES module loader: ~0.5 ms of every run).
 */
export const loadBundle = (entry: string, argv: readonly string[], outside: (spec: string) => unknown): unknown => {
  const dir = dirname(entry)
  // a cache is only good for the V8 that made it
  const cacheDir = join(dir, '.v8-cache', `${process.versions.v8}-${process.arch}`)
  const made: CacheWrite[] = []
  let cacheNames: ReadonlySet<string> | undefined
  /** The newest generation of the cache named `base` there is (0: none); the folder read once. */
  const generationOf = (base: string): number => {
    if (!cacheNames) {
      try {
        cacheNames = new Set(readdirSync(cacheDir))
      } catch {
        cacheNames = new Set()
      }
    }
    let generation = GENERATIONS
    while (generation > 0 && !cacheNames.has(`${base}.${generation}.bin`)) generation--
    return generation
  }

  /** Runs the script in `file` (undefined when there is no such file), compiled from its cache where V8 takes it. */
  const evaluate = (file: string, toScript: (source: string) => string): unknown => {
    let fd: number
    try {
      fd = openSync(file, 'r')
    } catch {
      return undefined
    }
    let source: string
    let base: string
    let cachedData: Buffer | undefined
    const cacheFile = (n: number) => join(cacheDir, `${base}.${n}.bin`)
    let generation: number
    try {
      const {size, mtimeMs} = fstatSync(fd)
      // the file's own name holds its content's hash; its size and time guard one rewritten in place
      base = `${basename(file)}-${size}-${Math.trunc(mtimeMs)}`
      generation = generationOf(base)
      const cache = generation > 0 ? openCache(cacheFile(generation)) : undefined
      // One buffer holds the text, then its cache: reading the cache reuses the memory the text was read
      // into (fresh memory is dear: ~140 pages, ~2 ms, for the install pack). V8 copies the text into a
      // string of its own, and reads the cache only while it compiles.
      const buffer = Buffer.allocUnsafe(Math.max(size, cache?.size ?? 0))
      source = buffer.toString('latin1', 0, readInto(fd, buffer, size))
      if (cache) {
        try {
          cachedData = buffer.subarray(0, readInto(cache.fd, buffer, cache.size))
        } catch {
          // a cache that cannot be read is none: the text is compiled
        } finally {
          closeSync(cache.fd)
        }
      }
    } finally {
      closeSync(fd)
    }
    const script = new Script(toScript(source), {filename: file, cachedData})
    if (!cachedData || script.cachedDataRejected) made.push({script, file: cacheFile(Math.max(generation, 1))})
    else if (generation < GENERATIONS) made.push({script, file: cacheFile(generation + 1), replaces: cacheFile(generation)})
    return script.runInThisContext()
  }

  const pack = (): Readonly<Record<string, ChunkBody>> => {
    const words: string[] = []
    for (const word of argv.slice(0, 2)) {
      if (!COMMAND_WORD.test(word)) break
      words.push(word)
    }
    for (let n = words.length; n > 0; n--) {
      const chunks = evaluate(join(dir, 'packs', `${words.slice(0, n).join('-')}.pack`), (source) => source)
      if (chunks) return chunks as Record<string, ChunkBody>
    }
    return {}
  }
  const packed = pack()
  // `node:path` and `node:fs` are required by most chunks: Node's loader is asked once for each
  const outsideModules = new Map<string, unknown>()
  const requireOutside = (spec: string): unknown => {
    if (outsideModules.has(spec)) return outsideModules.get(spec)
    const loaded = outside(spec)
    outsideModules.set(spec, loaded)
    return loaded
  }
  const modules = new Map<string, ChunkModule>()
  const requireChunk = (spec: string): unknown => {
    if (!spec.startsWith('./')) return requireOutside(spec)
    const name = spec.slice(2)
    const known = modules.get(name)
    if (known) return known.exports
    // a chunk's name is a file name: no separator, nothing to normalise
    const file = `${dir}${sep}${name}`
    const body = (Object.hasOwn(packed, name) ? packed[name] : evaluate(file, (source) => `(${chunkFunction(source)})`)) as ChunkBody | undefined
    // no such chunk: Node's loader says so in its own words
    if (!body) return outside(file)
    const module: ChunkModule = {exports: {}}
    modules.set(name, module)
    body.call(module.exports, module.exports, requireChunk, module, file, dir)
    return module.exports
  }
  process.once('exit', () => {
    if (made.length > 0) writeCaches(cacheDir, made)
  })
  return requireChunk(`./${basename(entry)}`)
}
