// Scenarios of scale and of peers (issue 13): what an install costs beside Claude Code's own CLI,
// read-only commands over many installs, one command installing many plugins, cost that must not
// grow with the state's size, and the peak memory of an install.
//
// The marketplaces here are local git folders (what `marketplace add ./dir` takes), so these
// scenarios need no server; Claude Code's CLI comes from the npm registry into the vendor-CLI cache (see
// bench/tools.js) and its scenario is skipped with a note when it cannot be had.
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {copyTree, emptyDir, git, makeTempHome, skillBody, writeTree} from './fixtures.js'
import {claudeCli} from './tools.js'
import {FLOORS, floorStep, homePaths, workFloorOf} from './work-floors.js'

const step = (cmd, args = [], options = {}) => ({cmd, args, ...options})
const loadout = (ctx, ...args) => step(process.execPath, [ctx.bin, ...args])

const runLoadout = (ctx, args, env = ctx.temp.env) => {
  const r = spawnSync(process.execPath, [ctx.bin, ...args], {cwd: ctx.temp.project, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024})
  if (r.status !== 0)
    throw new Error(`setup: loadout ${args.slice(0, 4).join(' ')}… exited ${r.status}: ${(r.stderr || r.stdout).trim().split('\n').slice(0, 3).join(' | ')}`)
  return r.stdout
}

const para = (seed, bytes) => {
  let text = ''
  for (let i = 0; text.length < bytes; i++) text += `${seed} line ${i}: the quick brown fox jumps over the lazy dog.\n`
  return text.slice(0, bytes)
}

/** A git repository at `dir` holding `files` (path → text), committed. */
const commitTree = (dir, files) => {
  writeTree(dir, files)
  git(dir, ['init', '-q', '-b', 'main'])
  git(dir, ['add', '-A'])
  git(dir, ['commit', '-q', '-m', 'initial'])
}

/**
 * A marketplace folder (a git repository) named `name` with `count` plugins under plugins/<p>,
 * each made of `skills` skills of `filesPerSkill` files of about `bytes` bytes.
 */
const makeLocalMarket = (dir, name, {count, skills = 1, filesPerSkill = 1, bytes = 1024, prefix = 'p'}) => {
  const files = {}
  const plugins = []
  for (let i = 0; i < count; i++) {
    const plugin = `${prefix}${String(i).padStart(3, '0')}`
    files[`plugins/${plugin}/.claude-plugin/plugin.json`] = `${JSON.stringify({name: plugin, version: '1.0.0', description: `Bench plugin ${plugin}`})}\n`
    for (let s = 0; s < skills; s++) {
      const skill = `${plugin}-s${s}`
      files[`plugins/${plugin}/skills/${skill}/SKILL.md`] =
        `---\nname: ${skill}\ndescription: Use when a task mentions ${skill}.\n---\n\n${skillBody(skill, bytes)}`
      for (let f = 1; f < filesPerSkill; f++) files[`plugins/${plugin}/skills/${skill}/references/ref-${f}.md`] = para(`${skill} ${f}`, bytes)
    }
    plugins.push({name: plugin, source: `./plugins/${plugin}`, version: '1.0.0', description: `Bench plugin ${plugin}`})
  }
  files['.claude-plugin/marketplace.json'] = `${JSON.stringify({name, owner: {name: 'Bench'}, plugins}, null, 2)}\n`
  commitTree(dir, files)
  return plugins.map((p) => `${p.name}@${name}`)
}

/**
 * Installs `ids` in setup: in one command when loadout takes several plugins, else one by one
 * (slow, untimed).
 */
const installAll = (ctx, ids, agents) => {
  const flags = ['--agent', agents, '--scope', 'user', '--yes']
  const batch = spawnSync(process.execPath, [ctx.bin, 'install', ...ids, ...flags], {
    cwd: ctx.temp.project,
    env: ctx.temp.env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
  if (batch.status === 0) return
  for (const id of ids) runLoadout(ctx, ['install', id, ...flags])
}

const expectZero = (side, out) => {
  if (out.status !== 0) throw new Error(`${side} exited ${out.status}: ${(out.stderr || '').trim().split('\n')[0] ?? ''}`)
}

const FOUR_AGENTS = 'claude-code,codex,deepagents,cst-agent'

// The environment Claude Code's CLI runs in: the bench's temp HOME, and no traffic beyond what the work needs.
const claudeEnv = (ctx) => ({
  ...ctx.temp.env,
  DISABLE_TELEMETRY: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
})

/** Copies the home as setup left it, so every run starts from the same state. */
const snapshotHome = (ctx, name) => {
  const snapshot = ctx.temp.path('snapshots', name)
  copyTree(ctx.temp.home, snapshot)
  return snapshot
}

const restore = (ctx, snapshot) => copyTree(snapshot, ctx.temp.home)

const peerScenarios = [
  {
    name: 'add-install-500-vs-claude',
    description:
      '`loadout marketplace add <local git folder>` + `install big@bench --agent claude-code --scope user --yes` of a ' +
      "500-file, ~5 MB plugin against Claude Code's CLI doing the same (`claude plugin marketplace add` + `claude plugin install`); " +
      'every run starts from an empty home',
    runs: 7,
    warmup: 1,
    setup(ctx) {
      ctx.claude = claudeCli()
      if (!ctx.claude.path) throw new Error(`skipped: Claude Code's CLI is not available (${ctx.claude.why})`)
      ctx.market = ctx.temp.path('markets', 'bench')
      makeLocalMarket(ctx.market, 'bench', {count: 1, skills: 50, filesPerSkill: 10, bytes: 10_000, prefix: 'big'})
    },
    beforeEach(ctx) {
      emptyDir(ctx.temp.home)
    },
    command: (ctx) => [
      loadout(ctx, 'marketplace', 'add', ctx.market, '--scope', 'user'),
      loadout(ctx, 'install', 'big000@bench', '--agent', 'claude-code', '--scope', 'user', '--yes'),
    ],
    baseline: (ctx) => [
      step(ctx.claude.path, ['plugin', 'marketplace', 'add', ctx.market], {env: claudeEnv(ctx)}),
      step(ctx.claude.path, ['plugin', 'install', 'big000@bench'], {env: claudeEnv(ctx)}),
    ],
    baselineLabel: 'claude plugin marketplace add + install',
    target: {ratio: 0.6},
    check(ctx, {command, baseline}) {
      expectZero('command', command)
      expectZero('baseline', baseline)
    },
    notes: (ctx) => ({claudeCode: ctx.claude.version}),
  },
]

// `search` looks through the catalogs of the marketplaces added: the fifty plugins' names hold "p01"
const READ_ONLY_ARGS = {list: ['list', '--json'], verify: ['verify', '--json'], search: ['search', 'p01', '--json']}

const readOnlyScenarios = Object.entries(READ_ONLY_ARGS).map(([cmd, args]) => ({
  name: `${cmd}-50`,
  description: `\`loadout ${args.join(' ')}\` over 50 installs (50 one-skill plugins of a local marketplace, --agent universal) against \`loadout --version\``,
  runs: 10,
  target: {ratio: 1.2},
  setup(ctx) {
    const market = ctx.temp.path('markets', 'fifty')
    const ids = makeLocalMarket(market, 'fifty', {count: 50})
    runLoadout(ctx, ['marketplace', 'add', market, '--scope', 'user'])
    installAll(ctx, ids, 'universal')
    // as old as a real home's files: loadout remembers a file's hash only once it has been unchanged
    // for 3 s (kernel/fs/stat-memo.ts), as the state-1000 scenarios below wait too
    spawnSync('sync')
    spawnSync('sleep', ['3.5'])
  },
  command: (ctx) => loadout(ctx, ...args),
  baseline: (ctx) => loadout(ctx, '--version'),
  baselineLabel: 'loadout --version',
  check(ctx, {command}) {
    expectZero('command', command)
  },
}))

/** The package's own catalog, which `search` reads beside those added. */
const builtinCatalog = (ctx) => join(dirname(dirname(ctx.bin)), 'registry', 'marketplace', '.claude-plugin', 'marketplace.json')

const readOnlyScenario = (name) => readOnlyScenarios.find((s) => s.name === name)

const readOnlyFloors = [
  workFloorOf(readOnlyScenario('list-50'), FLOORS.list, {
    step: (ctx) => floorStep(FLOORS.list, [homePaths(ctx.temp.env).state, homePaths(ctx.temp.env).hashMemo]),
    // the hash memo a first `list` leaves (files settled by the scenario's setup)
    prepare: (ctx) => runLoadout(ctx, READ_ONLY_ARGS.list),
  }),
  workFloorOf(readOnlyScenario('verify-50'), FLOORS.verify, {step: (ctx) => floorStep(FLOORS.verify, [homePaths(ctx.temp.env).state])}),
  workFloorOf(readOnlyScenario('search-50'), FLOORS.search, {
    step: (ctx) => floorStep(FLOORS.search, [homePaths(ctx.temp.env).marketplaces, 'p01', builtinCatalog(ctx)]),
  }),
]

const batchScenario = {
  name: 'install-50x4-one-command',
  description:
    '`loadout install <50 plugins> --agent claude-code,codex,deepagents,cst-agent --scope user --yes` in one command ' +
    '(a local marketplace of 50 plugins with 2 skills of 3 files each), from the home as `marketplace add` left it; against `cp -r` of the same plugins into 4 folders',
  runs: 3,
  warmup: 0,
  setup(ctx) {
    ctx.market = ctx.temp.path('markets', 'batch')
    ctx.ids = makeLocalMarket(ctx.market, 'batch', {count: 50, skills: 2, filesPerSkill: 3})
    runLoadout(ctx, ['marketplace', 'add', ctx.market, '--scope', 'user'])
    ctx.snapshot = snapshotHome(ctx, 'added')
    ctx.dest = ctx.temp.path('baseline')
  },
  beforeEach(ctx, {kind}) {
    if (kind === 'command') restore(ctx, ctx.snapshot)
    else emptyDir(ctx.dest)
  },
  command: (ctx) => loadout(ctx, 'install', ...ctx.ids, '--agent', FOUR_AGENTS, '--scope', 'user', '--yes'),
  baseline: (ctx) => ['a', 'b', 'c', 'd'].map((d) => step('cp', ['-r', join(ctx.market, 'plugins'), join(ctx.dest, d)])),
  baselineLabel: '4 × cp -r of the plugins',
  target: {seconds: 10},
  check(ctx, {command}) {
    expectZero('command', command)
  },
}

/**
 * With 1,000 plugins installed, each command costs what it costs with nothing installed: the command
 * side runs on the home with 1,000 installs, the baseline the same command on a home with none.
 */
const STATE_COMMANDS = {
  install: () => ['install', 'extra000@extra', '--agent', 'universal', '--scope', 'user', '--yes'],
  uninstall: () => ['uninstall', 'extra000@extra', '--agent', 'universal', '--scope', 'user', '--yes'],
  list: () => ['list', '--json'],
  'skills-list': () => ['skills', 'list', '--agent', 'universal', '--json'],
}

const STATE_PLUGINS = 1000

let shared

/**
 * The homes the state-1000 scenarios share (built once per bench run, untimed): `full` with the 1,000
 * plugins installed, `empty` with none; both have the `extra` marketplace added. Each has its own
 * HOME, so the records' absolute paths stay true; a snapshot of each restores it between runs.
 */
const stateHomes = (ctx) => {
  if (shared) return shared
  const make = (label) => {
    const temp = makeTempHome(label)
    return {temp, env: temp.env, home: temp.home, project: temp.project}
  }
  const full = make('state-1000-full')
  const empty = make('state-1000-empty')
  const markets = full.temp.path('markets')
  const ids = makeLocalMarket(join(markets, 'many'), 'many', {count: STATE_PLUGINS})
  makeLocalMarket(join(markets, 'extra'), 'extra', {count: 1, prefix: 'extra'})
  for (const side of [full, empty]) runLoadout({...ctx, temp: side.temp}, ['marketplace', 'add', join(markets, 'extra'), '--scope', 'user'])
  runLoadout({...ctx, temp: full.temp}, ['marketplace', 'add', join(markets, 'many'), '--scope', 'user'])
  installAll({...ctx, temp: full.temp}, ids, 'universal')
  for (const side of [full, empty]) side.snapshot = snapshotHome({temp: side.temp}, 'state')
  shared = {full, empty, markets}
  return shared
}

const stateScenarios = Object.entries(STATE_COMMANDS).map(([name, args]) => ({
  name: `state-1000-${name}`,
  description: `\`loadout ${args({}).join(' ')}\` with 1,000 plugins installed against the same command with none installed (cost independent of the state's size)`,
  runs: 7,
  warmup: 1,
  setup(ctx) {
    ctx.homes = stateHomes(ctx)
    if (name === 'install' || name === 'uninstall') return
    // The read-only commands run on the homes as setup made them, whatever scenario ran before (an
    // install's last run leaves a plugin more), and on files as old as a real home's: a restore
    // copies every file anew, and loadout remembers what a file held only once it has been unchanged
    // for 3 s (kernel/fs/stat-memo.ts), so the copies are left to settle first.
    for (const side of [ctx.homes.full, ctx.homes.empty]) restore({temp: side.temp}, side.snapshot)
    spawnSync('sync')
    spawnSync('sleep', ['3.5'])
  },
  beforeEach(ctx, {kind}) {
    const side = kind === 'command' ? ctx.homes.full : ctx.homes.empty
    if (name !== 'install' && name !== 'uninstall') return
    restore({temp: side.temp}, side.snapshot)
    // uninstall needs the extra plugin in: installed untimed into the home being measured
    if (name === 'uninstall') runLoadout({...ctx, temp: side.temp}, STATE_COMMANDS.install(ctx))
  },
  command: (ctx) => ({...loadout(ctx, ...args(ctx)), env: ctx.homes.full.env, cwd: ctx.homes.full.project}),
  baseline: (ctx) => ({...loadout(ctx, ...args(ctx)), env: ctx.homes.empty.env, cwd: ctx.homes.empty.project}),
  baselineLabel: 'the same, nothing installed',
  target: {ratio: 1.3},
  check(ctx, {command, baseline}) {
    expectZero('command', command)
    expectZero('baseline', baseline)
  },
}))

/** The floor's process in the home with 1,000 installs; `args` given that home's paths and the shared homes. */
const inFullHome = (floor, args) => (ctx) => {
  const full = ctx.homes.full
  return floorStep(floor, args(homePaths(full.env), ctx.homes), {env: full.env, cwd: full.project})
}

/** A first run of `command` in the home with 1,000 installs: the stat memos it leaves (its files settled by the setup). */
const rememberedBy = (command) => (ctx) => runLoadout({...ctx, temp: ctx.homes.full.temp}, STATE_COMMANDS[command](ctx))

const stateScenario = (name) => stateScenarios.find((s) => s.name === `state-1000-${name}`)

const stateFloors = [
  workFloorOf(stateScenario('install'), FLOORS.installOne, {
    step: inFullHome(FLOORS.installOne, (paths, homes) => [
      paths.state,
      join(homes.markets, 'extra', 'plugins', 'extra000', 'skills', 'extra000-s0', 'SKILL.md'),
      join(homes.full.home, '.agents', 'skills', 'extra000-s0', 'SKILL.md'),
    ]),
  }),
  workFloorOf(stateScenario('list'), FLOORS.list, {
    step: inFullHome(FLOORS.list, (paths) => [paths.state, paths.hashMemo]),
    prepare: rememberedBy('list'),
  }),
  workFloorOf(stateScenario('skills-list'), FLOORS.skillsList, {
    step: inFullHome(FLOORS.skillsList, (paths, homes) => [join(homes.full.home, '.agents', 'skills'), paths.state, paths.skillMemo]),
    prepare: rememberedBy('skills-list'),
  }),
]

/**
 * A whole marketplace at once (issue 27): 300 plugins of 2 skills of 3 files each, installed into
 * four agents by one `install`, then uninstalled one plugin per command. Each run is minutes on a
 * busy 2-core machine, so one run, no warm-up, and the check reads the timed run's outputs.
 */
const MARKET_PLUGINS = 300

const addWholeMarket = (ctx) => {
  ctx.market = ctx.temp.path('markets', 'whole')
  ctx.ids = makeLocalMarket(ctx.market, 'whole', {count: MARKET_PLUGINS, skills: 2, filesPerSkill: 3})
  runLoadout(ctx, ['marketplace', 'add', ctx.market, '--scope', 'user'])
}

const wholeMarketScenarios = [
  {
    name: 'install-300x4-one-command',
    description:
      `\`loadout install <all ${MARKET_PLUGINS} plugins of a marketplace> --agent ${FOUR_AGENTS} --scope user --yes\` in one command ` +
      '(2 skills of 3 files each), from the home as `marketplace add` left it; against `node -e 0` + 4 × `cp -r` of the plugins',
    runs: 1,
    warmup: 0,
    probe: false,
    target: {seconds: 60, peakMiB: 150},
    setup(ctx) {
      addWholeMarket(ctx)
      ctx.snapshot = snapshotHome(ctx, 'added')
      ctx.dest = ctx.temp.path('baseline')
    },
    beforeEach(ctx, {kind}) {
      if (kind === 'command') restore(ctx, ctx.snapshot)
      else emptyDir(ctx.dest)
    },
    command: (ctx) => loadout(ctx, 'install', ...ctx.ids, '--agent', FOUR_AGENTS, '--scope', 'user', '--yes'),
    baseline: (ctx) => [
      step(process.execPath, ['-e', '0']),
      ...['a', 'b', 'c', 'd'].map((d) => step('cp', ['-r', join(ctx.market, 'plugins'), join(ctx.dest, d)])),
    ],
    baselineLabel: 'node -e 0 + 4 × cp -r of the plugins',
    check(ctx, {command}) {
      expectZero('command', command)
    },
  },
  {
    name: 'uninstall-300-one-by-one',
    description:
      `\`loadout uninstall <plugin> --agent ${FOUR_AGENTS} --scope user --yes\` of each of the ${MARKET_PLUGINS} plugins ` +
      'installed by install-300x4-one-command, one command after the other (timed together); against as many `node -e 0`',
    runs: 1,
    warmup: 0,
    probe: false,
    target: {seconds: 90},
    setup(ctx) {
      addWholeMarket(ctx)
      installAll(ctx, ctx.ids, FOUR_AGENTS)
      ctx.snapshot = snapshotHome(ctx, 'installed')
    },
    beforeEach(ctx, {kind}) {
      if (kind === 'command') restore(ctx, ctx.snapshot)
    },
    command: (ctx) => ctx.ids.map((id) => loadout(ctx, 'uninstall', id, '--agent', FOUR_AGENTS, '--scope', 'user', '--yes')),
    baseline: (ctx) => ctx.ids.map(() => step(process.execPath, ['-e', '0'])),
    baselineLabel: `${MARKET_PLUGINS} × node -e 0`,
    check(ctx, {command}) {
      expectZero('command', command)
      const left = JSON.parse(runLoadout(ctx, ['list', '--json']))
      const rows = left.installs ?? left.rows ?? left.plugins ?? left
      if (Array.isArray(rows) && rows.length !== 0) throw new Error(`${rows.length} installs left after uninstalling every plugin`)
    },
  },
]

// Runs a command and appends the peak resident memory of it (and its children), in KiB, to a file.
const MAXRSS =
  'import resource,subprocess,sys\nr=subprocess.run(sys.argv[2:]).returncode\nopen(sys.argv[1],"a").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)+"\\n")\nsys.exit(r)'

const medianOf = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? NaN : sorted[Math.floor((sorted.length - 1) / 2)]
}

const memoryScenario = {
  name: 'install-peak-memory',
  description:
    'peak resident memory (ru_maxrss of the process tree) of installing the 500-file plugin into claude-code, ' +
    'beside `loadout --version`; times as usual, memory in the notes below the table',
  runs: 5,
  warmup: 0,
  setup(ctx) {
    ctx.market = ctx.temp.path('markets', 'mem')
    makeLocalMarket(ctx.market, 'mem', {count: 1, skills: 50, filesPerSkill: 10, bytes: 10_000, prefix: 'big'})
    runLoadout(ctx, ['marketplace', 'add', ctx.market, '--scope', 'user'])
    ctx.snapshot = snapshotHome(ctx, 'added')
    ctx.rss = {command: ctx.temp.path('rss-command.txt'), baseline: ctx.temp.path('rss-baseline.txt')}
  },
  beforeEach(ctx, {kind}) {
    if (kind === 'command') restore(ctx, ctx.snapshot)
  },
  command: (ctx) =>
    step('python3', ['-c', MAXRSS, ctx.rss.command, process.execPath, ctx.bin, 'install', 'big000@mem', '--agent', 'claude-code', '--scope', 'user', '--yes']),
  baseline: (ctx) => step('python3', ['-c', MAXRSS, ctx.rss.baseline, process.execPath, ctx.bin, '--version']),
  baselineLabel: 'loadout --version',
  check(ctx, {command}) {
    expectZero('command', command)
  },
  notes(ctx) {
    const read = (file) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map(Number).filter(Number.isFinite) : [])
    const mib = (kib) => Math.round((kib / 1024) * 10) / 10
    return {peakMiB: mib(medianOf(read(ctx.rss.command))), versionPeakMiB: mib(medianOf(read(ctx.rss.baseline)))}
  },
}

export const scaleScenarios = [
  ...peerScenarios,
  ...readOnlyScenarios,
  ...readOnlyFloors,
  batchScenario,
  ...stateScenarios,
  ...stateFloors,
  ...wholeMarketScenarios,
  memoryScenario,
]
