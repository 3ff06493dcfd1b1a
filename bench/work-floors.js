// Work floors (issue 27): for a target loadout misses, is it within reach of any Node process? Each
// twin of a scenario runs, in loadout's place, a bare Node script doing only the work that command
// cannot skip (the files it must read, stat, hash and write, the output it must print), against the
// same baseline and target. A floor that misses the target itself says that no Node process doing
// that work meets it on this machine; one that meets it says how much of the gap is loadout's own.
//
// The scripts take their paths as arguments (process.argv.slice(1) under `node -e`) and each check
// holds them to the same result as loadout's (every file found in the memo, every copy's integrity
// recomputed equal), so that a floor never passes by doing less.
import {join} from 'node:path'

/** What the scripts share: reading loadout's state and its stat memo (kernel/fs/stat-memo.ts). */
const COMMON = `
const fs = require('node:fs')
const stateOf = (file) => { try { return JSON.parse(fs.readFileSync(file, 'utf8')).installs } catch { return [] } }
const memoOf = (file) => { try { const text = fs.readFileSync(file, 'utf8'); return JSON.parse(text.slice(text.indexOf('\\n') + 1)) } catch { return {} } }
const same = (entry, s) => Array.isArray(entry) && entry[0] === String(s.dev) && entry[1] === String(s.ino) && entry[2] === String(s.size) && entry[3] === String(s.mtimeNs) && entry[4] === String(s.ctimeNs)
const print = (value) => process.stdout.write(JSON.stringify(value, null, 2) + '\\n')
`

/** `list --json`: the state, one stat per recorded file against the hash memo, the rows. */
const LIST = `${COMMON}
const [stateFile, memoFile] = process.argv.slice(1)
const hashes = memoOf(memoFile)
let files = 0
let remembered = 0
const installs = stateOf(stateFile).map((r) => {
  let problems = 0
  for (const f of r.enabled ? r.files : []) {
    files++
    const s = fs.statSync(f.path, {bigint: true, throwIfNoEntry: false})
    if (s && same(hashes[f.path], s) && hashes[f.path][5] === f.sha256) remembered++
    else problems++
  }
  return {plugin: r.plugin, scope: r.scope, target: r.target, version: r.version, commit: r.commit, source: r.source, enabled: r.enabled, components: r.components, skipped: r.skipped, problems}
})
print({installs, files, remembered})
`

/** `skills list --json` of one folder: list it, one stat per SKILL.md against the summary memo, owners from the state. */
const SKILLS_LIST = `${COMMON}
const [dir, stateFile, memoFile] = process.argv.slice(1)
const summaries = memoOf(memoFile)
const owners = new Map()
for (const r of stateOf(stateFile)) for (const tree of r.trees ?? []) owners.set(tree, r.plugin)
let names = []
try { names = fs.readdirSync(dir, {withFileTypes: true}).filter((e) => e.isDirectory()).map((e) => e.name).sort() } catch {}
let remembered = 0
const skills = names.map((name) => {
  const path = dir + '/' + name
  const file = path + '/SKILL.md'
  const s = fs.statSync(file, {bigint: true, throwIfNoEntry: false})
  const known = s && summaries['spec:' + file]
  let summary
  if (known && same(known, s)) { summary = known[5]; remembered++ }
  else summary = {description: (/^description: (.*)$/m.exec(fs.readFileSync(file, 'utf8')) ?? [])[1], problems: []}
  return {agent: 'universal', name, scope: 'user', folder: dir, path, description: summary.description, status: 'active', valid: summary.problems.length === 0, problems: summary.problems, owner: owners.get(path)}
})
print({skills, remembered})
`

/** `install` of one skill into a home with a state: read and parse the state, copy and hash the file, write the state anew. */
const INSTALL_ONE = `${COMMON}
const {createHash} = require('node:crypto')
const {dirname} = require('node:path')
const [stateFile, from, to] = process.argv.slice(1)
const state = {installs: stateOf(stateFile)}
const bytes = fs.readFileSync(from)
fs.mkdirSync(dirname(to), {recursive: true})
fs.writeFileSync(to, bytes)
state.installs.push({plugin: 'extra000@extra', files: [{path: to, sha256: createHash('sha256').update(bytes).digest('hex')}]})
fs.writeFileSync(stateFile + '.tmp', JSON.stringify(state))
fs.renameSync(stateFile + '.tmp', stateFile)
print({installs: state.installs.length})
`

/** A folder's integrity as kernel/fs/integrity.ts computes it, and the sha256 of a file. */
const TREE = `
const {createHash} = require('node:crypto')
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex')
const field = (text) => Buffer.byteLength(text) + ':' + text
const treeEntries = (root) => {
  const entries = []
  const walk = (rel) => {
    for (const e of fs.readdirSync(rel ? root + '/' + rel : root, {withFileTypes: true})) {
      if (e.name === '.git') continue
      const path = rel ? rel + '/' + e.name : e.name
      const full = root + '/' + path
      if (e.isDirectory()) walk(path)
      else if (e.isSymbolicLink()) entries.push({path, full, mode: '120000', hash: sha256(fs.readlinkSync(full, {encoding: 'buffer'}))})
      else { const bytes = fs.readFileSync(full); entries.push({path, full, bytes, mode: fs.statSync(full).mode & 0o100 ? '100755' : '100644', hash: sha256(bytes)}) }
    }
  }
  walk('')
  return entries.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
}
const integrityOf = (entries) => { const hash = createHash('sha256'); for (const e of entries) hash.update(field(e.path) + field(e.mode) + field(e.hash)); return 'sha256-' + hash.digest('hex') }
`

/** `verify --json`: every recorded file read and hashed, each folder walked for added files, each plugin copy hashed whole. */
const VERIFY = `${COMMON}${TREE}
const copies = new Map()
const records = stateOf(process.argv[1]).filter((r) => r.enabled).map((r) => {
  const missing = [], changed = [], added = []
  for (const f of r.files) { let bytes; try { bytes = fs.readFileSync(f.path) } catch { missing.push(f.path); continue } if (sha256(bytes) !== f.sha256) changed.push(f.path) }
  const recorded = new Set(r.files.map((f) => f.path))
  for (const tree of r.trees ?? []) for (const e of fs.readdirSync(tree, {withFileTypes: true, recursive: true})) { const full = (e.parentPath ?? e.path) + '/' + e.name; if (!e.isDirectory() && !recorded.has(full)) added.push(full) }
  if (r.pluginRoot) { if (!copies.has(r.pluginRoot)) copies.set(r.pluginRoot, integrityOf(treeEntries(r.pluginRoot))); if (copies.get(r.pluginRoot) !== r.pluginRootIntegrity) changed.push(r.pluginRoot) }
  return {plugin: r.plugin, target: r.target, scope: r.scope, enabled: r.enabled, missing, changed, added, ok: missing.length + changed.length + added.length === 0}
})
print({ok: records.every((r) => r.ok), checked: records.length, records})
`

/** `search <query> --json`: every catalog added (and the built-in one) read, parsed and filtered. */
const SEARCH = `${COMMON}
const [marketplacesFile, query, builtin] = process.argv.slice(1)
const catalogs = [builtin, ...JSON.parse(fs.readFileSync(marketplacesFile, 'utf8')).marketplaces.map((m) => m.catalogFile)]
const hits = []
for (const file of catalogs) {
  const catalog = JSON.parse(fs.readFileSync(file, 'utf8'))
  for (const p of catalog.plugins ?? []) if ((p.name + ' ' + (p.description ?? '')).toLowerCase().includes(query)) hits.push({name: p.name, id: p.name + '@' + catalog.name, description: p.description, version: p.version, source: p.source, marketplace: catalog.name})
}
print({query, searched: catalogs.length, hits})
`

/** A plugin's files copied from a clone with each file hashed once, the tree's integrity, and a record of them written. */
const COPY_HASHED = `${COMMON}${TREE}
const {dirname} = require('node:path')
const [from, to, recordFile] = process.argv.slice(1)
const entries = treeEntries(from)
for (const e of entries) { fs.mkdirSync(dirname(to + '/' + e.path), {recursive: true}); if (e.bytes) fs.writeFileSync(to + '/' + e.path, e.bytes, {mode: e.mode === '100755' ? 0o755 : 0o644}) }
fs.writeFileSync(recordFile, JSON.stringify({integrity: integrityOf(entries), files: entries.map((e) => ({path: e.path, mode: e.mode, sha256: e.hash}))}))
print({files: entries.length})
`

const parsed = (out) => JSON.parse(out.stdout)

const requireZero = (out) => {
  if (out.status !== 0) throw new Error(`the work floor exited ${out.status}: ${(out.stderr || '').trim().split('\n')[0] ?? ''}`)
}

/** The paths of loadout's state and stat memos in a home's environment (kernel/env/environment.ts). */
export const homePaths = (env) => ({
  state: join(env.LOADOUT_HOME, 'state.json'),
  hashMemo: join(env.XDG_CACHE_HOME, 'loadout', 'stat-memo', 'file-sha256'),
  skillMemo: join(env.XDG_CACHE_HOME, 'loadout', 'stat-memo', 'skill-md'),
  marketplaces: join(env.LOADOUT_HOME, 'marketplaces.json'),
})

/**
 * The floors by the command they stand for: `script`, what it does (`does`), and `check`, which
 * throws unless the floor did the whole of that work.
 */
export const FLOORS = {
  list: {
    script: LIST,
    does: 'read the state, stat each recorded file against the hash memo, print the rows',
    check: (out) => {
      const {files, remembered} = parsed(out)
      if (files === 0 || remembered < files) throw new Error(`the list floor found ${remembered} of ${files} files in the memo`)
    },
  },
  skillsList: {
    script: SKILLS_LIST,
    does: 'list the skills folder, stat each SKILL.md against the summary memo, owners from the state, print the rows',
    check: (out) => {
      const {skills, remembered} = parsed(out)
      if (skills.length === 0 || remembered < skills.length || skills.some((s) => !s.owner))
        throw new Error(`the skills list floor remembered ${remembered} of ${skills.length} skills`)
    },
  },
  installOne: {
    script: INSTALL_ONE,
    does: 'read and parse the state, copy and hash the skill, write the state anew',
    check: (out) => {
      if (!(parsed(out).installs > 0)) throw new Error('the install floor recorded nothing')
    },
  },
  verify: {
    script: VERIFY,
    does: 'read and hash every recorded file, walk each folder for added files, hash each plugin copy whole',
    check: (out) => {
      const {ok, checked} = parsed(out)
      if (!ok || checked === 0) throw new Error(`the verify floor found problems loadout does not (checked ${checked})`)
    },
  },
  search: {
    script: SEARCH,
    does: 'read and parse every catalog added and the built-in one, filter, print the hits',
    check: (out) => {
      if (parsed(out).hits.length === 0) throw new Error('the search floor found nothing')
    },
  },
  copyHashed: {
    script: COPY_HASHED,
    does: "read each of the plugin's files, hash it, write it, write the record of the tree",
    check: (out) => {
      if (!(parsed(out).files > 0)) throw new Error('the copy floor copied nothing')
    },
  },
}

/**
 * The twin of `scenario` with `floor` in loadout's place: `step(ctx)` gives the floor's process (the
 * script's arguments, and the environment and folder it runs in); `prepare(ctx)` (optional, once,
 * after the scenario's setup) makes what loadout's own first run would have left, such as its stat
 * memos; `reset(ctx)` (optional) undoes what the floor wrote, before each of its runs; `does` says
 * what it does, when that is more than the floor's script.
 */
export const workFloorOf = (scenario, floor, {step, prepare, reset, does = floor.does}) => ({
  ...scenario,
  name: `${scenario.name}-work-floor`,
  description: `the work \`${scenario.name}\` cannot skip, by a bare Node script in loadout's place (${does}); against the same baseline and target`,
  setup(ctx) {
    scenario.setup?.(ctx)
    prepare?.(ctx)
  },
  beforeEach(ctx, info) {
    scenario.beforeEach?.(ctx, info)
    if (info.kind === 'command') reset?.(ctx)
  },
  command: step,
  check(ctx, {command}) {
    requireZero(command)
    floor.check(command)
  },
  notes: undefined,
})

/** The floor's process: `node -e <script> <args…>` with the options given (env, cwd). */
export const floorStep = (floor, args, options = {}) => ({cmd: process.execPath, args: ['-e', floor.script, ...args], ...options})
