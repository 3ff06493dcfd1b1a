// The benchmark scenarios. Each is a plain object:
//
//   {
//     name: 'short-id',                  // used by --only and in results/latest.json
//     description: 'what it measures',
//     setup(ctx) {},                     // optional, once, untimed: build fixtures under ctx.temp
//     beforeEach(ctx, {kind, index}) {}, // optional, untimed, before every run of either side
//                                        //   (kind: 'command' | 'baseline'), e.g. to empty a target
//     command: (ctx) => step | step[],   // the loadout side
//     baseline: (ctx) => step | step[],  // the yardstick, measured in the same run
//     baselineLabel: 'node -e 0',        // optional; otherwise derived from the step
//     check(ctx, {command, baseline}) {},// optional: sanity check of an untimed first round, given
//                                        //   {stdout, stderr, status} of each side's last step;
//                                        //   throw if wrong and the scenario fails untimed
//     teardown(ctx) {},                  // optional, once; the temp folder is removed anyway
//     runs: 10, warmup: 1,               // optional: defaults for this scenario when the command
//                                        //   line gives no --runs / --warmup (heavy scenarios)
//   }
//
// A step is {cmd, args, cwd?, env?}: one process, spawned and timed whole. A list of steps is run
// in order and timed as one sample (e.g. `git clone` then `cp -r`). Unless a step says otherwise it
// runs in ctx.temp.project with ctx.temp.env (HOME and XDG paths inside the temp folder, NO_COLOR=1).
// Use the helpers below rather than building steps by hand.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {copyTree, emptyDir, findFile, git, makeInstallFixture, makeOutdatedFixture, makeSkillsFixture, moveAside, writeCatalog} from './fixtures.js'
import {scaleScenarios} from './scale.js'
import {FLOORS, floorStep, workFloorOf} from './work-floors.js'
import {startServer} from './servers.js'

/** A process step. */
export const step = (cmd, args = [], options = {}) => ({cmd, args, ...options})

/** `loadout <args…>`, run as `node bin/run.js` from the repository under test. */
export const loadout = (ctx, ...args) => step(process.execPath, [ctx.bin, ...args])

/** `node <args…>` with the same Node binary that runs loadout. */
export const node = (ctx, ...args) => step(process.execPath, args)

/** `node -e <script> <args…>`; the script finds its arguments in process.argv.slice(1). */
export const nodeEval = (ctx, script, ...args) => step(process.execPath, ['-e', script, ...args])

// The raw I/O that validating a folder of plugins cannot avoid: read every JSON and Markdown file.
const READ_PLUGIN_FILES = `
const fs = require('node:fs'), path = require('node:path')
let n = 0
const walk = (dir) => { for (const e of fs.readdirSync(dir, {withFileTypes: true})) { const p = path.join(dir, e.name); if (e.isDirectory()) walk(p); else if (/\\.(json|md)$/.test(e.name)) { const t = fs.readFileSync(p, 'utf8'); if (e.name.endsWith('.json')) JSON.parse(t); n++ } } }
walk(process.argv[1])
console.log(JSON.stringify({files: n}))
`

// The raw I/O that `skills list` cannot avoid: list each folder, read each SKILL.md.
const WALK_AND_READ = `
const fs = require('node:fs'), path = require('node:path')
let n = 0, bytes = 0
for (const dir of process.argv.slice(1)) {
  let entries
  try { entries = fs.readdirSync(dir, {withFileTypes: true}) } catch { continue }
  for (const e of entries) {
    if (!e.isDirectory()) continue
    try { bytes += fs.readFileSync(path.join(dir, e.name, 'SKILL.md'), 'utf8').length; n++ } catch {}
  }
}
process.stdout.write(JSON.stringify({skills: n, bytes}) + '\\n')
`

const expectStatusZero = (side, out) => {
  if (out.status !== 0) throw new Error(`${side} exited ${out.status}: ${out.stderr.trim().split('\n')[0] ?? ''}`)
}

// ---------------------------------------------------------------------------------------------
// Network scenarios: a real HTTPS server (bench/servers.js) on 127.0.0.1 serving git and files.

/**
 * Starts the bench server for a scenario (stopped in teardown, and when the temp folder goes) and
 * makes every step trust it: GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS, LOADOUT_GITHUB_URL=<origin>/git.
 */
const serve = (ctx, {gitRoot, staticRoot, allowFilter} = {}) => {
  const server = startServer({dir: ctx.temp.path('server'), gitRoot, staticRoot, allowFilter})
  ctx.temp.onCleanup(() => server.stop())
  Object.assign(ctx.temp.env, server.env)
  ctx.server = server
  return server
}

const stopServer = (ctx) => ctx.server?.stop()

/** Runs loadout untimed (setup work); throws with its stderr when it fails. Returns stdout. */
const run = (ctx, ...args) => {
  const r = spawnSync(process.execPath, [ctx.bin, ...args], {cwd: ctx.temp.project, env: ctx.temp.env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024})
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || r.error?.message || '').trim().split('\n').slice(0, 4).join(' | ')
    throw new Error(`setup: loadout ${args.join(' ')} exited ${r.status}: ${why}${ctx.server ? ` (server log: ${ctx.server.log().trim().slice(-300)})` : ''}`)
  }
  return r.stdout
}

/** Every file below `dir` (relative paths), for checks. */
const filesUnder = (dir, prefix = '') => {
  if (!existsSync(dir)) return []
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  )
}

const json = (side, out) => {
  expectStatusZero(side, out)
  try {
    return JSON.parse(out.stdout)
  } catch {
    throw new Error(`${side} did not print JSON: ${out.stdout.slice(0, 200)}`)
  }
}

const INSTALL_ARGS = ['install', 'toolkit@acme', '--agent', 'claude-code', '--scope', 'user', '--yes']

/**
 * What a claude-code install of the 50-file toolkit gives Claude Code: by default its own plugin (the
 * verified copy, 5 skills of 35 files and 3 subagents, offered by a marketplace in settings.json and
 * switched on), each file written once.
 */
const checkToolkitInstalled = (ctx) => {
  const settings = JSON.parse(readFileSync(join(ctx.temp.home, '.claude', 'settings.json'), 'utf8'))
  const key = Object.keys(settings.enabledPlugins ?? {}).find((k) => k.startsWith('toolkit@'))
  const market = key && settings.extraKnownMarketplaces?.[key.slice('toolkit@'.length)]?.source?.path
  if (!market) throw new Error('install did not register toolkit as a Claude Code plugin in ~/.claude/settings.json')
  const catalog = JSON.parse(readFileSync(join(market, '.claude-plugin', 'marketplace.json'), 'utf8'))
  const copy = join(market, catalog.plugins[0].source)
  const skills = filesUnder(join(copy, 'skills'))
  const agents = filesUnder(join(copy, 'agents'))
  if (skills.length !== 35 || agents.length !== 3)
    throw new Error(`the plugin Claude Code is offered holds ${skills.length} skill files and ${agents.length} subagents, expected 35 and 3`)
}

const checkBaselineCopy = (ctx) => {
  const copied = filesUnder(ctx.baselineDest)
  if (copied.length !== 50) throw new Error(`baseline copied ${copied.length} files, expected 50`)
}

// fetch a catalog URL and parse it: the network and parsing work `marketplace add <url>` cannot avoid
const FETCH_AND_PARSE = `
fetch(process.argv[1]).then((r) => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text() })
  .then((t) => { const c = JSON.parse(t); process.stdout.write(JSON.stringify({plugins: c.plugins.length}) + '\\n') })
  .catch((e) => { console.error(e.message); process.exit(1) })
`

// read the cached catalog, parse it and filter it as search does (substring of name, description,
// category, keywords, tags, case-insensitive): the work `search` cannot avoid
const READ_PARSE_FILTER = `
const fs = require('node:fs')
const term = process.argv[2].toLowerCase()
const c = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'))
const hits = c.plugins.filter((p) => [p.name, p.description, p.category, ...(p.keywords || []), ...(p.tags || [])]
  .some((f) => typeof f === 'string' && f.toLowerCase().includes(term)))
process.stdout.write(JSON.stringify({hits: hits.length}) + '\\n')
`

const networkScenarios = [
  {
    name: 'install-cold',
    description:
      '`loadout install toolkit@acme --agent claude-code --scope user --yes` of a 50-file plugin (5 skills with ' +
      'references and scripts, 3 subagents, 3 commands, .mcp.json, hooks) listed in marketplace acme/market as ' +
      'github acme/toolkit, served over HTTPS git (partial clones allowed, as on GitHub); every run starts with the marketplace added and nothing of ' +
      'the plugin in the cache or the agent folders; against `node -e 0` + `git clone --depth 1` + `cp -r` of the plugin (the floor: starting Node, the clone, the copy)',
    runs: 5,
    warmup: 1,
    setup(ctx) {
      const fixture = makeInstallFixture(ctx.temp)
      const server = serve(ctx, {gitRoot: fixture.gitRoot})
      run(ctx, 'marketplace', 'add', fixture.market.repo, '--scope', 'user')
      // the home as it is right after `marketplace add`: restored before every run of the command
      ctx.snapshot = ctx.temp.path('snapshots', 'home-added')
      copyTree(ctx.temp.home, ctx.snapshot)
      ctx.pluginUrl = server.gitUrl(fixture.plugin.repo)
      ctx.entries = fixture.plugin.entries
      ctx.baselineClone = ctx.temp.path('baseline', 'clone')
      ctx.baselineDest = ctx.temp.path('baseline', 'dest')
    },
    beforeEach(ctx, {kind}) {
      if (kind === 'command') copyTree(ctx.snapshot, ctx.temp.home)
      else {
        moveAside(ctx.baselineClone)
        emptyDir(ctx.baselineDest)
      }
    },
    command: (ctx) => loadout(ctx, ...INSTALL_ARGS),
    baseline: (ctx) => [
      nodeEval(ctx, '0'),
      step('git', ['clone', '-q', '--depth', '1', '--', ctx.pluginUrl, ctx.baselineClone]),
      step('cp', ['-r', ...ctx.entries.map((e) => join(ctx.baselineClone, e)), `${ctx.baselineDest}/`]),
    ],
    baselineLabel: 'node -e 0 + git clone --depth 1 + cp -r',
    target: {ratio: 1.3},
    check(ctx, {command, baseline}) {
      expectStatusZero('command', command)
      expectStatusZero('baseline', baseline)
      checkToolkitInstalled(ctx)
      checkBaselineCopy(ctx)
    },
    teardown: stopServer,
  },
  {
    name: 'install-warm',
    description:
      '`loadout install toolkit@acme … --offline`: the same 50-file plugin reinstalled from the cache (the home ' +
      'as it is after install + uninstall, restored before every run) against `node -e 0` + `cp -r` of the plugin from a local clone (the floor)',
    runs: 10,
    warmup: 1,
    setup(ctx) {
      const fixture = makeInstallFixture(ctx.temp)
      // full clones: the cache is filled once, untimed, and `--offline` reads the checked-out tree
      // alone, so a partial clone's one-blob-per-round-trip checkout (see install-cold) only slows setup
      const server = serve(ctx, {gitRoot: fixture.gitRoot, allowFilter: false})
      run(ctx, 'marketplace', 'add', fixture.market.repo, '--scope', 'user')
      run(ctx, ...INSTALL_ARGS)
      run(ctx, 'uninstall', 'toolkit@acme', '--agent', 'claude-code', '--scope', 'user', '--yes')
      // the home as uninstall leaves it (plugin cached, agent folders clean), restored before every run
      ctx.snapshot = ctx.temp.path('snapshots', 'home-uninstalled')
      copyTree(ctx.temp.home, ctx.snapshot)
      ctx.entries = fixture.plugin.entries
      ctx.baselineClone = ctx.temp.path('baseline', 'clone')
      ctx.baselineDest = ctx.temp.path('baseline', 'dest')
      git(ctx.temp.root, ['clone', '-q', '--', server.gitUrl(fixture.plugin.repo), ctx.baselineClone], {GIT_SSL_CAINFO: server.caFile})
    },
    beforeEach(ctx, {kind}) {
      if (kind === 'command') copyTree(ctx.snapshot, ctx.temp.home)
      else emptyDir(ctx.baselineDest)
    },
    command: (ctx) => loadout(ctx, ...INSTALL_ARGS, '--offline'),
    baseline: (ctx) => [nodeEval(ctx, '0'), step('cp', ['-r', ...ctx.entries.map((e) => join(ctx.baselineClone, e)), `${ctx.baselineDest}/`])],
    baselineLabel: 'node -e 0 + cp -r from a local clone',
    target: {ratio: 1.5},
    check(ctx, {command, baseline}) {
      expectStatusZero('command', command)
      expectStatusZero('baseline', baseline)
      checkToolkitInstalled(ctx)
      checkBaselineCopy(ctx)
    },
    teardown: stopServer,
  },
  {
    name: 'outdated-50',
    description:
      '`loadout outdated --json` over 50 installed plugins (5 marketplaces served over HTTPS git × 10 plugins ' +
      'each, relative sources, installed once in setup with --agent universal --scope user) against 5 sequential ' +
      '`git ls-remote` (the minimum: one ask per remote)',
    runs: 10,
    warmup: 1,
    setup(ctx) {
      const fixture = makeOutdatedFixture(ctx.temp, {markets: 5, perMarket: 10})
      // full clones, not partial ones: `marketplace add` of a partial clone fetches every blob of its
      // checkout one round trip at a time (see install-cold), minutes of untimed setup here; the timed
      // `outdated` fetch finds nothing new either way
      const server = serve(ctx, {gitRoot: fixture.gitRoot, allowFilter: false})
      for (const market of fixture.markets) run(ctx, 'marketplace', 'add', market.repo, '--scope', 'user')
      for (const id of fixture.ids) run(ctx, 'install', id, '--agent', 'universal', '--scope', 'user', '--yes')
      ctx.remotes = fixture.markets.map((m) => server.gitUrl(m.repo))
      ctx.expectedRows = fixture.ids.length
    },
    command: (ctx) => loadout(ctx, 'outdated', '--json'),
    baseline: (ctx) => ctx.remotes.map((url) => step('git', ['ls-remote', '--', url])),
    baselineLabel: '5 × git ls-remote',
    check(ctx, {command, baseline}) {
      const result = json('command', command)
      expectStatusZero('baseline', baseline)
      if (result.rows?.length !== ctx.expectedRows) throw new Error(`outdated returned ${result.rows?.length ?? 'no'} rows, expected ${ctx.expectedRows}`)
      if (result.remotesAsked !== ctx.remotes.length) throw new Error(`outdated asked ${result.remotesAsked} remotes, expected ${ctx.remotes.length}`)
      const failed = result.rows.filter((r) => r.error)
      if (failed.length) throw new Error(`outdated rows with errors: ${failed.length} (${failed[0].plugin}: ${failed[0].error})`)
    },
    teardown: stopServer,
  },
  {
    name: 'catalog-10k-add',
    description:
      '`loadout marketplace add <url> --scope user --json` of a 10,000-plugin catalog JSON (~2.5 MB) served over ' +
      'HTTPS, into a fresh home every run, against `node -e` fetch of the same URL + JSON.parse',
    runs: 10,
    warmup: 1,
    setup(ctx) {
      ctx.catalog = writeCatalog(ctx.temp.path('static'), 'catalog.json', 10_000)
      const server = serve(ctx, {staticRoot: ctx.temp.path('static')})
      ctx.url = server.url('/files/catalog.json')
    },
    beforeEach(ctx, {kind}) {
      if (kind === 'command') emptyDir(ctx.temp.home)
    },
    command: (ctx) => loadout(ctx, 'marketplace', 'add', ctx.url, '--scope', 'user', '--json'),
    baseline: (ctx) => nodeEval(ctx, FETCH_AND_PARSE, ctx.url),
    baselineLabel: 'node -e fetch + JSON.parse',
    check(ctx, {command, baseline}) {
      const added = json('command', command)
      if (added.pluginCount !== ctx.catalog.count) throw new Error(`marketplace add reported ${added.pluginCount} plugins, expected ${ctx.catalog.count}`)
      if (json('baseline', baseline).plugins !== ctx.catalog.count) throw new Error('baseline parsed the wrong number of plugins')
    },
    teardown: stopServer,
  },
  {
    name: 'catalog-10k-search',
    description:
      '`loadout search kw42 --json` over the 10,000-plugin catalog (added in setup; 110 hits) against `node -e` ' +
      'reading the cached catalog file + JSON.parse + a substring filter',
    setup(ctx) {
      ctx.catalog = writeCatalog(ctx.temp.path('static'), 'catalog.json', 10_000)
      const server = serve(ctx, {staticRoot: ctx.temp.path('static')})
      run(ctx, 'marketplace', 'add', server.url('/files/catalog.json'), '--scope', 'user')
      ctx.cached = findFile(join(ctx.temp.home, '.cache', 'loadout', 'catalogs'), 'catalog.json')
      if (!ctx.cached) throw new Error('setup: no cached catalog.json under ~/.cache/loadout/catalogs')
      // search reads only the cache: no server needed while timing
      server.stop()
    },
    command: (ctx) => loadout(ctx, 'search', 'kw42', '--json'),
    baseline: (ctx) => nodeEval(ctx, READ_PARSE_FILTER, ctx.cached, 'kw42'),
    baselineLabel: 'node -e read + JSON.parse + filter',
    check(ctx, {command, baseline}) {
      const found = json('command', command)
      const expected = json('baseline', baseline).hits
      if (!Array.isArray(found.hits) || found.hits.length !== expected)
        throw new Error(`search found ${found.hits?.length ?? 'no'} hits, the baseline filter ${expected}`)
    },
    teardown: stopServer,
  },
]

/** install-cold's work floor: the clone, then the plugin's files copied from it, each hashed once, and the record of the tree written. */
const installColdFloor = workFloorOf(
  networkScenarios.find((s) => s.name === 'install-cold'),
  FLOORS.copyHashed,
  {
    step: (ctx) => [
      step('git', ['clone', '-q', '--depth', '1', '--', ctx.pluginUrl, ctx.temp.path('floor', 'clone')]),
      floorStep(FLOORS.copyHashed, [ctx.temp.path('floor', 'clone'), ctx.temp.path('floor', 'dest'), ctx.temp.path('floor', 'record.json')]),
    ],
    reset: (ctx) => {
      moveAside(ctx.temp.path('floor', 'clone'))
      emptyDir(ctx.temp.path('floor', 'dest'))
    },
    does: `git clone --depth 1, then ${FLOORS.copyHashed.does}`,
  },
)

/** install-warm's work floor: the plugin's files copied from the clone, each hashed once, and the record of the tree written. */
const installWarmFloor = workFloorOf(
  networkScenarios.find((s) => s.name === 'install-warm'),
  FLOORS.copyHashed,
  {
    step: (ctx) => floorStep(FLOORS.copyHashed, [ctx.baselineClone, ctx.temp.path('floor', 'dest'), ctx.temp.path('floor', 'record.json')]),
    reset: (ctx) => emptyDir(ctx.temp.path('floor', 'dest')),
  },
)

/**
 * install-warm's program: loadout loads the install command (the pack of its code, with V8's code cache),
 * parses its arguments, reads the agents' registry and the marketplace's catalog, and stops there, the
 * plugin asked for being in no catalog. Not a target: it splits install-warm's figure into what loading
 * loadout costs and what the install's own work (fetch from the cache, checks, consent, plan, journal,
 * writes) adds, each against the same floor in the same run.
 */
const installWarmProgram = (() => {
  const warm = networkScenarios.find((s) => s.name === 'install-warm')
  return {
    ...warm,
    name: 'install-warm-program',
    description:
      "what loading loadout costs in `install-warm`: `loadout install nosuch@acme … --offline` loads the install command's code, " +
      'reads its arguments, the agents and the catalog, and stops (no such plugin); against the same floor',
    target: undefined,
    // it fails by design (no such plugin): its check asks for that failure
    command: (ctx) => ({...loadout(ctx, 'install', 'nosuch@acme', '--agent', 'claude-code', '--scope', 'user', '--yes', '--offline'), allowFailure: true}),
    check(ctx, {command, baseline}) {
      if (command.status !== 3 || !/not in marketplace/.test(command.stderr)) {
        throw new Error(`install nosuch@acme exited ${command.status}: ${command.stderr.trim().split('\n')[0] ?? ''}`)
      }
      expectStatusZero('baseline', baseline)
    },
  }
})()

export const scenarios = [
  {
    name: 'version',
    description: 'start-up: `loadout --version` against `node -e 0` (the cost of starting Node at all)',
    command: (ctx) => loadout(ctx, '--version'),
    baseline: (ctx) => nodeEval(ctx, '0'),
    baselineLabel: 'node -e 0',
    check(ctx, {command}) {
      expectStatusZero('command', command)
      const {version} = JSON.parse(readFileSync(join(ctx.repo, 'package.json'), 'utf8'))
      if (!command.stdout.includes(version)) throw new Error(`--version printed ${JSON.stringify(command.stdout.trim())}`)
    },
  },
  {
    name: 'update-auto-idle',
    description:
      '`loadout update --auto` with nothing due (what a SessionStart hook runs at every session: two marketplaces with ' +
      'auto-update on, refreshed a minute ago) against `loadout --version`; issue 28 asks for under 1.2x',
    setup(ctx) {
      const updatedAt = new Date(Date.now() - 60_000).toISOString()
      const record = (name, autoUpdate) => ({
        name,
        scope: 'user',
        input: `acme/${name}`,
        source: {kind: 'github', owner: 'acme', repo: name},
        addedAt: updatedAt,
        updatedAt,
        catalogFile: '/nowhere',
        pluginCount: 0,
        warningCount: 0,
        autoUpdate,
      })
      mkdirSync(ctx.temp.env.LOADOUT_HOME, {recursive: true})
      writeFileSync(
        join(ctx.temp.env.LOADOUT_HOME, 'marketplaces.json'),
        JSON.stringify({version: 1, marketplaces: [record('one', 'apply'), record('two', 'notify')]}),
      )
    },
    command: (ctx) => loadout(ctx, 'update', '--auto'),
    baseline: (ctx) => loadout(ctx, '--version'),
    baselineLabel: 'loadout --version',
    target: {ratio: 1.2},
    check(ctx, {command}) {
      expectStatusZero('command', command)
      if (!/no marketplace is due/.test(command.stdout)) throw new Error(`update --auto printed ${JSON.stringify(command.stdout.trim())}`)
    },
  },
  {
    name: 'help',
    description: 'start-up: `loadout --help` (reads the manifest, renders every topic) against `node -e 0`',
    command: (ctx) => loadout(ctx, '--help'),
    baseline: (ctx) => nodeEval(ctx, '0'),
    baselineLabel: 'node -e 0',
    target: {ratio: 1.5},
    check(ctx, {command}) {
      expectStatusZero('command', command)
      if (!/skills/.test(command.stdout)) throw new Error('--help does not mention the skills topic')
    },
  },
  {
    name: 'command-help',
    description: "start-up: `loadout install --help` (one command's help) against `node -e 0`",
    command: (ctx) => loadout(ctx, 'install', '--help'),
    baseline: (ctx) => nodeEval(ctx, '0'),
    baselineLabel: 'node -e 0',
    target: {ratio: 1.5},
    check(ctx, {command}) {
      expectStatusZero('command', command)
      if (!/--agent/.test(command.stdout)) throw new Error('install --help does not show the --agent flag')
    },
  },
  {
    name: 'skills-list-500',
    description:
      '`loadout skills list --agent claude-code,codex --json` over 500 skills in 3 folders (200 project ' +
      '.claude/skills, 150 project .agents/skills, 150 ~/.claude/skills; ~2 KB each) against a Node ' +
      'script that only lists the same folders and reads every SKILL.md',
    setup(ctx) {
      ctx.fixture = makeSkillsFixture(ctx.temp)
    },
    command: (ctx) => loadout(ctx, 'skills', 'list', '--agent', 'claude-code,codex', '--json'),
    baseline: (ctx) => nodeEval(ctx, WALK_AND_READ, ...ctx.fixture.folders),
    baselineLabel: 'node -e <readdir + read every SKILL.md>',
    check(ctx, {command, baseline}) {
      expectStatusZero('command', command)
      expectStatusZero('baseline', baseline)
      const listed = JSON.parse(command.stdout)
      const skills = listed.skills ?? listed.result?.skills
      if (!Array.isArray(skills) || skills.length !== ctx.fixture.total) {
        throw new Error(`skills list returned ${Array.isArray(skills) ? skills.length : 'no'} skills, expected ${ctx.fixture.total}`)
      }
      const read = JSON.parse(baseline.stdout)
      if (read.skills !== ctx.fixture.total) throw new Error(`baseline read ${read.skills} SKILL.md files, expected ${ctx.fixture.total}`)
    },
  },
  {
    name: 'plugin-validate-200',
    description:
      '`loadout plugin validate <folder> --json` over a folder of 200 plugins (each made by `plugin create ' +
      '--with skills,agents,hooks,mcp`) against a Node script that only reads every JSON and Markdown file of them',
    runs: 7,
    setup(ctx) {
      const folder = join(ctx.temp.project, 'plugins')
      const first = join(folder, 'plugin-0')
      const made = spawnSync(process.execPath, [ctx.bin, 'plugin', 'create', 'plugin-0', '--with', 'skills,agents,hooks,mcp', '--no-git', '--dir', first], {
        cwd: ctx.temp.project,
        env: ctx.temp.env,
        encoding: 'utf8',
      })
      if (made.status !== 0) throw new Error(`plugin create failed: ${made.stderr}`)
      for (let i = 1; i < 200; i++) {
        const dir = join(folder, `plugin-${i}`)
        copyTree(first, dir)
        for (const manifest of [join(dir, '.claude-plugin', 'plugin.json')]) {
          const text = readFileSync(manifest, 'utf8').replaceAll('plugin-0', `plugin-${i}`)
          writeFileSync(manifest, text)
        }
      }
      ctx.folder = folder
    },
    command: (ctx) => loadout(ctx, 'plugin', 'validate', ctx.folder, '--json'),
    baseline: (ctx) => nodeEval(ctx, READ_PLUGIN_FILES, ctx.folder),
    baselineLabel: 'node -e <read every .json and .md of the 200 plugins>',
    check(ctx, {command, baseline}) {
      expectStatusZero('command', command)
      expectStatusZero('baseline', baseline)
      const result = JSON.parse(command.stdout)
      if (!Array.isArray(result.plugins) || result.plugins.length !== 200) throw new Error(`validated ${result.plugins?.length ?? 'no'} plugins, expected 200`)
    },
  },
  ...networkScenarios,
  installColdFloor,
  installWarmFloor,
  installWarmProgram,
  ...scaleScenarios,
]
