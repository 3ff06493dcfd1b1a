#!/usr/bin/env node
// The build: TypeScript to dist/, JSON Schemas compiled to standalone validators (so start-up never
// compiles a schema; CommonJS, because ajv's standalone output requires its runtime), the fast path's
// bundle, then the oclif manifest. `npm run build` runs this; `npm ci` runs it via prepare.
import {execFileSync} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const run = (cmd, args) => execFileSync(cmd, args, {cwd: root, stdio: 'inherit'})
const bin = (name) => join(root, 'node_modules', '.bin', name)

run(bin('tsc'), ['-p', 'tsconfig.json'])

const {default: Ajv} = await import('ajv')
const {default: standaloneCode} = await import('ajv/dist/standalone/index.js')
const schemasDir = join(root, 'registry', 'schemas')
const outDir = join(root, 'dist', 'schemas')
mkdirSync(outDir, {recursive: true})
for (const file of readdirSync(schemasDir).filter((f) => f.endsWith('.schema.json'))) {
  const schema = JSON.parse(readFileSync(join(schemasDir, file), 'utf8'))
  const ajv = new Ajv({allErrors: true, strict: false, code: {source: true}})
  const validate = ajv.compile(schema)
  writeFileSync(join(outDir, file.replace('.schema.json', '.cjs')), standaloneCode(ajv, validate))
}

// The shipped agent registry is validated here, once: start-up skips its validation while the files
// are still the ones whose digest is recorded (src/core/kernel/targets/registry.ts).
const registry = await import(pathToFileURL(join(root, 'dist', 'core', 'kernel', 'targets', 'registry.js')).href)
rmSync(registry.REGISTRY_CHECKED, {force: true})
await registry.loadTargets()
writeFileSync(registry.REGISTRY_CHECKED, registry.registrySnapshot(registry.registryFiles(registry.AGENTS_DIR)))

// The fast path of the commands (bin/run.js, src/ui/fast) as one bundle in dist/fast/, one chunk per
// command plus shared ones, loaded by src/ui/fast/load-bundle.ts. CommonJS, because Node 20 loads it
// faster than ES modules and compiles it through V8's code cache. Packages stay outside it, required
// from node_modules; an import() of one becomes a require too (Node 20.19+ requires ES modules), since a
// script compiled from V8's cache cannot import() in Node 20.
// PACKAGE_ROOT is found by walking up, so the chunks in dist/fast/ find it as the modules in dist/core/ do.
// Comments and white space are left out and local names shortened (nothing else rewritten): each run
// reads, holds and deserializes every byte of the chunks it loads and of their code cache, and fresh
// memory is dear (install.pack 882 -> 604 -> 444 KB; a warm install ~5 ms and ~330 page faults less
// for the names). A stack trace with short names is no loss: under DEBUG a command runs through oclif,
// from dist/core and dist/ui as tsc wrote them (src/ui/fast/run.ts).
const fastDir = join(root, 'dist', 'fast')
rmSync(fastDir, {recursive: true, force: true})
const {build} = await import('rolldown')
// Packages bundled in all the same: simple-git and what it requires. Required from node_modules, the
// first git call of a run (an install that clones) spent ~25 ms resolving and compiling them; in the
// bundle they are one chunk, loaded with the first git call and compiled through the code cache.
const BUNDLED = /^(simple-git|@simple-git\/[a-z-]+|@kwsites\/[a-z-]+|debug|ms|supports-color|has-flag)(\/|$)/
/** rolldown's options for a CommonJS build of dist/ modules into `dir`, packages left to node_modules (but BUNDLED) */
const commonJs = (input, dir, output) => ({
  input,
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !BUNDLED.test(id),
  logLevel: 'warn',
  output: {dir, format: 'cjs', chunkFileNames: '[name]-[hash].cjs', dynamicImportInCjs: false, ...output},
})
// The bundle is CommonJS: its modules are given a require (src/ui/fast/load-bundle.ts), which takes the
// place of the one kernel/env/node-require.ts makes with node:module (whose loading starts Node's ES
// module loader)
const NODE_REQUIRE = join(root, 'dist', 'core', 'kernel', 'env', 'node-require.js')
const ownRequire = {name: 'own-require', load: (id) => (id === NODE_REQUIRE ? 'export const nodeRequire = require\n' : undefined)}
// Its modules' node:path is node:path with the four calls kernel/fs/path-fast.ts answers faster (the same
// answers, tested against node:path), which imports node:path itself; the bundled packages keep theirs
const PATH_FAST = join(root, 'dist', 'core', 'kernel', 'fs', 'path-fast.js')
const FAST_NODE_PATH = '\0fast-node-path'
/** the rest of node:path that the modules import (one missing fails the build) */
const NODE_PATH_NAMES = ['basename', 'delimiter', 'dirname', 'extname', 'format', 'isAbsolute', 'parse', 'posix', 'sep', 'toNamespacedPath', 'win32']
const DIST = join(root, 'dist')
const fastPathFor = (id, importer) => id === 'node:path' && importer?.startsWith(DIST) && importer !== PATH_FAST
const fastPath = {
  name: 'fast-path',
  resolveId: (id, importer) => (fastPathFor(id, importer) ? FAST_NODE_PATH : undefined),
  // named one by one, as constants: a name re-exported with `export *` is a getter at every use
  load: (id) =>
    id === FAST_NODE_PATH
      ? `import * as nodePath from 'node:path'\n${NODE_PATH_NAMES.map((name) => `export const ${name} = nodePath.${name}\n`).join('')}export {join, normalize, relative, resolve} from ${JSON.stringify(PATH_FAST)}\n`
      : undefined,
}
const {output} = await build({
  ...commonJs(join(root, 'dist', 'ui', 'fast', 'run.js'), fastDir, {
    entryFileNames: 'run.cjs',
    // the bundled packages in one chunk, named for them (the tests' module trace looks for it)
    codeSplitting: {groups: [{name: 'vendor-simple-git', test: /[\\/]node_modules[\\/]/}]},
    comments: false,
    minify: {compress: false, mangle: true, codegen: {removeWhitespace: true}},
  }),
  external: (id, importer) => !fastPathFor(id, importer) && commonJs().external(id),
  plugins: [ownRequire, fastPath],
})
const chunks = new Map(output.filter((file) => file.type === 'chunk').map((chunk) => [chunk.fileName, chunk]))

// The licences of the packages the bundle holds (MIT all: their notices go with every copy)
const bundledPackages = new Set(
  [...chunks.values()].flatMap((chunk) => chunk.moduleIds.map((id) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1]).filter(Boolean)),
)
const notices = [...bundledPackages].sort().map((name) => {
  const dir = join(root, 'node_modules', name)
  const licence = readdirSync(dir).find((file) => /^licen[cs]e(\.md|\.txt)?$/i.test(file))
  if (!licence) throw new Error(`bin/build.mjs: ${name} is bundled but has no licence file`)
  return `${name}\n\n${readFileSync(join(dir, licence), 'utf8').trim()}\n`
})
writeFileSync(join(fastDir, 'THIRD-PARTY-NOTICES.txt'), `Packages bundled into this folder's code, with their licences.\n\n${notices.join('\n---\n\n')}`)

// Every chunk ASCII, the rest escaped (\uXXXX means the same in a string, a template or a regular
// expression): the loader reads it as Latin-1, a one-byte string.
const asciiOnly = (name, text) =>
  text.replace(/\\?[^\x00-\x7f]/g, (match) => {
    if (match.length > 1) throw new Error(`bin/build.mjs: ${name} has a non-ASCII character after a backslash; escape it in the source`)
    return `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
// A chunk's exports are getters (live bindings: `Object.defineProperty(exports, "a", {get: () => x})`), one
// closure each and a call at every use from another chunk: ~500 in the install pack (a warm install ~4 ms
// and ~150 page faults more). Where the binding can never change, a plain property does the same: all are
// set at the chunk's end (checked), after its top level ran, and a binding is fixed unless it is a `let` or
// `var` of the chunk's top level (what a lazily initialised module's bindings are); those, and the
// packages' chunks, keep their getters.
const {parseAst} = await import('rolldown/parseAst')
const EXPORT_GETTER = /Object\.defineProperty\(exports,"([A-Za-z_$][\w$]*)",\{enumerable:true,get:function\(\)\{return ([A-Za-z_$][\w$]*)\}\}\)/g
/** The names a chunk's top level declares with `let` or `var` (a `var` in a top-level block or loop included). */
const changeableNames = (code) => {
  const names = new Set()
  const addPattern = (node) => {
    if (!node) return
    if (node.type === 'Identifier') names.add(node.name)
    else if (node.type === 'ObjectPattern') for (const p of node.properties) addPattern(p.type === 'RestElement' ? p.argument : p.value)
    else if (node.type === 'ArrayPattern') for (const e of node.elements) addPattern(e?.type === 'RestElement' ? e.argument : e)
    else if (node.type === 'AssignmentPattern') addPattern(node.left)
  }
  const visit = (node, top) => {
    if (!node || typeof node.type !== 'string') return
    if (/Function|Class/.test(node.type)) return
    if (node.type === 'VariableDeclaration' && (node.kind === 'var' || (node.kind === 'let' && top))) for (const d of node.declarations) addPattern(d.id)
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const child of value) visit(child, false)
      else if (value && typeof value === 'object') visit(value, false)
    }
  }
  for (const statement of parseAst(code).body) visit(statement, true)
  return names
}
const plainExports = (name, code) => {
  if (chunks.get(name).moduleIds.some((id) => id.includes('/node_modules/') || id.startsWith('\0rolldown'))) return code
  const first = code.search(EXPORT_GETTER)
  if (first < 0) return code
  if (!/^[\s;]*$/.test(code.slice(first).replace(EXPORT_GETTER, '')))
    throw new Error(`bin/build.mjs: ${name} sets its exports before its end; its getters cannot become plain properties`)
  const changeable = changeableNames(code)
  return code.replace(EXPORT_GETTER, (getter, exported, local) => (changeable.has(local) ? getter : `exports.${exported}=${local}`))
}
const ascii = new Map([...chunks.keys()].map((name) => [name, plainExports(name, asciiOnly(name, readFileSync(join(fastDir, name), 'utf8')))]))
for (const [name, text] of ascii) writeFileSync(join(fastDir, name), text)

// A pack per hot command: every chunk it loads before it runs (the entry's and the command's static
// imports, transitively), as one script of functions by chunk name: one read and one compile instead of
// one per chunk. Commands not here load chunk by chunk; a pack repeats what it shares with others, so
// only the commands whose start-up is the point have one.
const PACKED = ['list', 'verify', 'search', 'targets', 'skills list', 'agents list', 'marketplace list', 'mcp list', 'install', 'uninstall']
mkdirSync(join(fastDir, 'packs'))
const {chunkFunction} = await import(pathToFileURL(join(root, 'dist', 'ui', 'fast', 'load-bundle.js')).href)
/** The chunk that holds the module dist/<path> */
const chunkHolding = (path) => {
  const chunk = [...chunks.values()].find((c) => c.moduleIds.some((id) => id.endsWith(`/dist/${path}`)))
  if (!chunk) throw new Error(`bin/build.mjs: no chunk holds dist/${path}`)
  return chunk.fileName
}
// Modules a packed command imports lazily on every run of its hot case, whose chunks (and their static
// imports) go into its pack too: an install of a plugin always loads the install tree, the request
// policy and, once something is written, the budget check (~45 chunks read, each with its cache, and
// compiled one by one otherwise).
const PACK_LATER = {install: ['core/ops/install/tree.js', 'core/kernel/policy/requests.js', 'core/ops/budget/budget.js', 'ui/render/budget.js']}
for (const words of PACKED) {
  const name = words.replace(' ', '-')
  const names = new Set()
  const add = (name) => {
    if (names.has(name) || !chunks.has(name)) return
    names.add(name)
    for (const imported of chunks.get(name).imports) add(imported)
  }
  add('run.cjs')
  add(chunkHolding(`ui/shared-commands/${name}.js`))
  for (const later of PACK_LATER[words] ?? []) add(chunkHolding(later))
  const bodies = [...names].map((chunk) => `${JSON.stringify(chunk)}: ${chunkFunction(ascii.get(chunk))}`)
  writeFileSync(join(fastDir, 'packs', `${name}.pack`), `({\n${bodies.join(',\n')}\n})\n`)
}

// What bin/run.js (CommonJS) requires before a command's code: the bundle's loader, the stored help and
// the idle `update --auto`, as CommonJS in dist/start/ (an ES module would start Node's ES module
// loader, ~10 ms of every run).
const startDir = join(root, 'dist', 'start')
rmSync(startDir, {recursive: true, force: true})
const startModules = ['load-bundle', 'help-cache', 'auto-idle']
await build(
  commonJs(Object.fromEntries(startModules.map((name) => [name, join(root, 'dist', 'ui', 'fast', `${name}.js`)])), startDir, {entryFileNames: '[name].cjs'}),
)

run(bin('oclif'), ['manifest'])

// oclif lists commands in the order the file system returns them: sort them, so the manifest is the
// same on every machine and diffs show only real changes.
const manifestFile = join(root, 'oclif.manifest.json')
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'))
manifest.commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)

// Every help text, rendered once by oclif's own Help class, for bin/run.js to print without loading
// oclif (src/ui/fast/help-cache.ts says when the stored text is what oclif would print).
const {renderHelpTable} = await import(pathToFileURL(join(root, 'dist', 'ui', 'fast', 'help-cache.js')).href)
writeFileSync(join(root, 'dist', 'help.json'), `${JSON.stringify(await renderHelpTable(root))}\n`)
