#!/usr/bin/env node
// The benchmark runner: `npm run bench [-- --runs N --warmup N --only a,b --list]`.
// Times whole processes (process.hrtime.bigint around spawnSync), runs each scenario's command and
// its baseline interleaved in the same run, prints a compact table and writes every figure to
// bench/results/latest.json. Benchmarks are not tests: nothing here asserts a time.
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync} from 'node:fs'
import {arch, cpus, loadavg, constants as osConstants, platform, release, totalmem} from 'node:os'
import {basename, dirname, join, relative} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import {cleanupAll, makeTempHome} from './fixtures.js'
import {scenarios as allScenarios} from './scenarios.js'

export {makeTempHome} from './fixtures.js'

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(REPO, 'bin', 'run.js')
export const RESULTS = join(REPO, 'bench', 'results', 'latest.json')
export const DEFAULTS = {runs: 15, warmup: 2}

// ---------------------------------------------------------------------------------------------
// Statistics

/** The q-quantile (0..1) of numbers, linearly interpolated between closest ranks. */
export const quantile = (values, q) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
}

export const median = (values) => quantile(values, 0.5)
export const p90 = (values) => quantile(values, 0.9)

const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

/** {runs, samples, min, median, p90, max, mean, stdev}, all in ms, rounded to 0.01 ms. */
export const summarize = (samples) => {
  const n = samples.length
  const mean = samples.reduce((a, b) => a + b, 0) / n
  const stdev = n > 1 ? Math.sqrt(samples.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : 0
  return {
    runs: n,
    samples: samples.map((s) => round(s)),
    min: round(Math.min(...samples)),
    median: round(median(samples)),
    p90: round(p90(samples)),
    max: round(Math.max(...samples)),
    mean: round(mean),
    stdev: round(stdev),
  }
}

// ---------------------------------------------------------------------------------------------
// Timing

/** Thrown when a timed child was interrupted: the bench stops (temp folders are still removed). */
export class Interrupted extends Error {
  constructor(signal) {
    super(`interrupted (${signal})`)
    this.name = 'Interrupted'
  }
}

const asSteps = (stepOrSteps) => (Array.isArray(stepOrSteps) ? stepOrSteps : [stepOrSteps])

// Every step runs under GNU time (/usr/bin/time), which reads what the kernel charged the child:
// user + system CPU time and peak resident memory of it and everything it waited for. CPU time is what
// a machine shared with other work still measures fairly (to 10 ms); wall time, taken here around the
// whole step, is what a user waits. GNU time's line goes last on stderr and is taken off below.
const TIME = '/usr/bin/time'
const TIME_FORMAT = '@@usage %U %S %M'
const USAGE_LINE = /(?:^|\n)(?:Command exited with non-zero status \d+\n|Command terminated by signal (\d+)\n)?@@usage (\S+) (\S+) (\d+)\n$/

const signalName = (n) => Object.keys(osConstants.signals).find((name) => osConstants.signals[name] === n) ?? `signal ${n}`

/** Takes GNU time's figures off a finished step's stderr: {cpuMs, peakKiB, signal}. */
const takeUsage = (r) => {
  const match = USAGE_LINE.exec(r.stderr ?? '')
  if (!match) throw new Error(`${TIME} reported nothing (status ${r.status}): ${(r.stderr ?? '').slice(-200)}`)
  r.stderr = r.stderr.slice(0, match.index)
  return {cpuMs: (Number(match[2]) + Number(match[3])) * 1000, peakKiB: Number(match[4]), signal: match[1] && signalName(Number(match[1]))}
}

/**
 * Runs steps (one {cmd, args, cwd?, env?} or a list) in order, each as a whole process, and
 * returns {ms, cpuMs, peakKiB, outputs} (wall and CPU time summed over the steps, the largest peak). `defaults` supplies cwd and env for steps that give none. A step that
 * exits non-zero (or dies by a signal) throws unless it says `allowFailure: true`.
 */
export const timeSteps = (stepOrSteps, defaults = {}) => {
  const outputs = []
  let wall = 0
  let cpu = 0
  let peakKiB = 0
  for (const s of asSteps(stepOrSteps)) {
    const options = {
      cwd: s.cwd ?? defaults.cwd,
      env: s.env ?? defaults.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
    }
    const start = process.hrtime.bigint()
    const r = spawnSync(TIME, ['-f', TIME_FORMAT, s.cmd, ...(s.args ?? [])], options)
    wall += Number(process.hrtime.bigint() - start) / 1e6
    if (r.error) throw new Error(`${describeStep(s)}: ${r.error.message}`)
    if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') throw new Interrupted(r.signal)
    const usage = takeUsage(r)
    // a child killed by a signal: GNU time says so and exits 128 + N
    r.signal ??= usage.signal
    cpu += usage.cpuMs
    peakKiB = Math.max(peakKiB, usage.peakKiB)
    // Ctrl-C in a terminal reaches the child too; stop the whole bench rather than the scenario.
    if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') throw new Interrupted(r.signal)
    const out = {status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? ''}
    if ((r.status !== 0 || r.signal) && !s.allowFailure) {
      const why = r.signal ? `killed by ${r.signal}` : `exit ${r.status}`
      throw new Error(`${describeStep(s)} failed (${why}): ${out.stderr.trim().split('\n').slice(0, 3).join(' | ')}`)
    }
    outputs.push(out)
  }
  return {ms: wall, cpuMs: cpu, peakKiB, outputs}
}

/**
 * After the untimed reset of a run: flushes the file system, so that the files the reset deleted
 * (blocks discarded at the next journal commit on a disk mounted with `discard`, as this VM's is)
 * do not stall the file creations of the timed run that follows; each side then pays for its own work.
 */
const settleDisk = () => {
  spawnSync('sync', [], {stdio: 'ignore'})
}

/**
 * Times one side on its own: `warmup` untimed runs, then `runs` timed ones.
 * Returns {samples, first} (first: outputs of the first run, for checks).
 * `beforeEach(index)` runs untimed before every run, warm-ups included.
 */
export const timeRuns = (stepOrSteps, {runs = DEFAULTS.runs, warmup = DEFAULTS.warmup, beforeEach, defaults} = {}) => {
  const samples = []
  let first
  for (let i = 0; i < warmup + runs; i++) {
    if (beforeEach) {
      beforeEach(i)
      settleDisk()
    }
    const {ms, outputs} = timeSteps(stepOrSteps, defaults)
    first ??= outputs
    if (i >= warmup) samples.push(ms)
  }
  return {samples, first}
}

/**
 * Times two sides interleaved (A B, B A, A B, …) so that drift in machine load hits both alike.
 * Returns {command: samples, baseline: samples, cpu: {command, baseline}, peakKiB: {command, baseline},
 * first: {command, baseline}} (samples: wall ms; cpu: user + system ms; peakKiB: the largest step's peak RSS).
 */
export const timeInterleaved = (command, baseline, {runs = DEFAULTS.runs, warmup = DEFAULTS.warmup, beforeEach, defaults} = {}) => {
  const sides = {command, baseline}
  const samples = {command: [], baseline: []}
  const cpu = {command: [], baseline: []}
  const peakKiB = {command: [], baseline: []}
  const first = {}
  for (let i = 0; i < warmup + runs; i++) {
    const order = i % 2 === 0 ? ['command', 'baseline'] : ['baseline', 'command']
    for (const kind of order) {
      if (beforeEach) {
        beforeEach(kind, i)
        settleDisk()
      }
      const measured = timeSteps(sides[kind], defaults)
      first[kind] ??= measured.outputs
      if (i >= warmup) {
        samples[kind].push(measured.ms)
        cpu[kind].push(measured.cpuMs)
        peakKiB[kind].push(measured.peakKiB)
      }
    }
  }
  return {...samples, cpu, peakKiB, first}
}

const shortPath = (p) => {
  if (p === process.execPath) return 'node'
  if (p === BIN) return 'loadout'
  const rel = relative(REPO, p)
  return rel.startsWith('..') ? p : rel
}

/** A short human label of a step or list of steps ("loadout --version", "git clone … + cp -r …"). */
export const describeStep = (stepOrSteps) =>
  asSteps(stepOrSteps)
    .map((s) => {
      const isLoadout = s.cmd === process.execPath && s.args?.[0] === BIN
      const args = (isLoadout ? s.args.slice(1) : (s.args ?? [])).map((a) => (a.length > 40 || a.includes('\n') ? '…' : shortPath(a)))
      return [isLoadout ? 'loadout' : basename(shortPath(s.cmd)), ...args].join(' ')
    })
    .join(' + ')

// ---------------------------------------------------------------------------------------------
// Scenarios

/** The context a scenario's functions receive. */
export const makeContext = (scenario) => {
  const temp = makeTempHome(scenario.name)
  return {repo: REPO, bin: BIN, node: process.execPath, temp, env: temp.env, home: temp.home, project: temp.project}
}

/** Runs one scenario: setup, check of the first outputs, interleaved timing, teardown. */
export const runScenario = (scenario, {runs = DEFAULTS.runs, warmup = DEFAULTS.warmup, log = () => {}} = {}) => {
  const ctx = makeContext(scenario)
  try {
    const t0 = process.hrtime.bigint()
    scenario.setup?.(ctx)
    const setupMs = Number(process.hrtime.bigint() - t0) / 1e6
    const command = scenario.command(ctx)
    const baseline = scenario.baseline(ctx)
    const defaults = {cwd: ctx.temp.project, env: ctx.temp.env}
    // One untimed round first, checked, so a broken command fails fast instead of being timed; a
    // scenario of minutes a run says `probe: false`, and its first timed round is checked instead.
    if (scenario.probe !== false) {
      const probe = {}
      for (const kind of ['command', 'baseline']) {
        scenario.beforeEach?.(ctx, {kind, index: -1})
        probe[kind] = timeSteps(kind === 'command' ? command : baseline, defaults).outputs.at(-1)
      }
      scenario.check?.(ctx, probe)
    }
    log(`  setup ${setupMs.toFixed(0)} ms${scenario.probe === false ? '' : ', checked'}; timing ${warmup} warm-up + ${runs} runs of each side…`)
    const timed = timeInterleaved(command, baseline, {
      runs,
      warmup,
      defaults,
      beforeEach: scenario.beforeEach && ((kind, index) => scenario.beforeEach(ctx, {kind, index})),
    })
    if (scenario.probe === false) scenario.check?.(ctx, {command: timed.first.command.at(-1), baseline: timed.first.baseline.at(-1)})
    const c = summarize(timed.command)
    const b = summarize(timed.baseline)
    const cpu = {command: summarize(timed.cpu.command), baseline: summarize(timed.cpu.baseline)}
    const peakMiB = (kib) => round(median(kib) / 1024, 1)
    return {
      name: scenario.name,
      description: scenario.description ?? '',
      command: describeStep(command),
      baselineCommand: scenario.baselineLabel ?? describeStep(baseline),
      warmup,
      setupMs: round(setupMs),
      ...c,
      baseline: b,
      ratio: round(c.median / b.median, 2),
      cpu: {...cpu, ratio: round(cpu.command.median / cpu.baseline.median, 2)},
      peakMiB: {command: peakMiB(timed.peakKiB.command), baseline: peakMiB(timed.peakKiB.baseline)},
      ...(scenario.target
        ? {target: scenario.target, met: targetMet(scenario.target, {ratio: c.median / b.median, ms: c.median, peakMiB: peakMiB(timed.peakKiB.command)})}
        : {}),
      ...(scenario.notes ? {notes: scenario.notes(ctx)} : {}),
    }
  } finally {
    try {
      scenario.teardown?.(ctx)
    } finally {
      ctx.temp.cleanup()
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (n) => (Number.isFinite(n) ? n.toFixed(1) : '-')

/**
 * A scenario's target (issue 27): `{ratio}` (wall median over the floor's median), `{seconds}` (the
 * command's wall median), `{peakMiB}` (its median peak resident memory), alone or together.
 */
export const describeTarget = (target) =>
  [
    target.ratio !== undefined && `≤ ${target.ratio}x`,
    target.seconds !== undefined && `≤ ${target.seconds} s`,
    target.peakMiB !== undefined && `≤ ${target.peakMiB} MiB`,
  ]
    .filter(Boolean)
    .join(', ')

/** Whether measured figures ({ratio, ms, peakMiB}) meet a target. */
export const targetMet = (target, measured) =>
  (target.ratio === undefined || measured.ratio <= target.ratio) &&
  (target.seconds === undefined || measured.ms <= target.seconds * 1000) &&
  (target.peakMiB === undefined || measured.peakMiB <= target.peakMiB)

export const formatTable = (results) => {
  const rows = [['scenario', 'loadout', 'p90', 'floor', 'f.median', 'ratio', 'cpu ratio', 'peak MiB', 'target', 'met']]
  for (const r of results) {
    if (r.error) {
      rows.push([r.name, 'FAILED', '', r.error.slice(0, 60), '', '', '', '', '', ''])
      continue
    }
    rows.push([
      r.name,
      fmt(r.median),
      fmt(r.p90),
      r.baselineCommand,
      fmt(r.baseline.median),
      `${r.ratio.toFixed(2)}x`,
      `${r.cpu.ratio.toFixed(2)}x`,
      fmt(r.peakMiB.command),
      r.target ? describeTarget(r.target) : '',
      r.target ? (r.met ? 'yes' : 'NO') : '',
    ])
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)))
  const numeric = new Set([1, 2, 4, 5, 6, 7])
  const line = (row) => row.map((cell, i) => (numeric.has(i) ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i]))).join('  ')
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n')
}

const machine = () => {
  const list = cpus()
  let commit
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], {cwd: REPO, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8'}).trim()
  } catch {}
  const {version} = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'))
  return {
    node: process.version,
    platform: platform(),
    arch: arch(),
    osRelease: release(),
    cpus: list.length,
    cpuModel: list[0]?.model ?? 'unknown',
    memoryGB: round(totalmem() / 1024 ** 3, 1),
    loadAverageAtStart: loadavg().map((l) => round(l)),
    loadoutVersion: version,
    commit,
  }
}

// ---------------------------------------------------------------------------------------------
// Command line

const USAGE = `usage: npm run bench -- [--runs N] [--warmup N] [--only name[,name]] [--list] [--out file]

  --runs N        timed runs of each side per scenario (default ${DEFAULTS.runs}, or the scenario's own \`runs\`)
  --warmup N      untimed warm-up runs of each side first (default ${DEFAULTS.warmup}, or the scenario's own \`warmup\`)
  --only a,b      run only these scenarios
  --list          list the scenarios and exit
  --out file      where to write the JSON (default bench/results/latest.json)`

const ensureBuilt = () => {
  if (existsSync(join(REPO, 'dist', 'commands')) && existsSync(join(REPO, 'oclif.manifest.json'))) return
  process.stderr.write('dist/ missing: building with `node bin/build.mjs`…\n')
  execFileSync(process.execPath, [join(REPO, 'bin', 'build.mjs')], {cwd: REPO, stdio: 'inherit'})
}

export const main = (argv = process.argv.slice(2), scenarioList = allScenarios) => {
  const {values} = parseArgs({
    args: argv,
    options: {
      runs: {type: 'string'},
      warmup: {type: 'string'},
      only: {type: 'string'},
      list: {type: 'boolean'},
      out: {type: 'string'},
      help: {type: 'boolean', short: 'h'},
    },
  })
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  if (values.list) {
    for (const s of scenarioList) console.log(`${s.name.padEnd(20)} ${s.description ?? ''}`)
    return 0
  }
  const count = (v, name, def, min) => {
    if (v === undefined) return def
    const n = Number(v)
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}, got ${v}`)
    return n
  }
  const runs = count(values.runs, 'runs', DEFAULTS.runs, 1)
  const warmup = count(values.warmup, 'warmup', DEFAULTS.warmup, 0)
  let selected = scenarioList
  if (values.only) {
    const wanted = values.only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const unknown = wanted.filter((w) => !scenarioList.some((s) => s.name === w))
    if (unknown.length) throw new Error(`unknown scenario: ${unknown.join(', ')} (known: ${scenarioList.map((s) => s.name).join(', ')})`)
    selected = scenarioList.filter((s) => wanted.includes(s.name))
  }

  ensureBuilt()
  const info = machine()
  console.log(`loadout ${info.loadoutVersion} bench — node ${info.node}, ${info.cpus} × ${info.cpuModel}, ${warmup} warm-up + ${runs} runs, times in ms`)
  if (info.loadAverageAtStart[0] > info.cpus / 2) {
    console.log(`  note: load average ${info.loadAverageAtStart[0]} on ${info.cpus} CPUs; absolute times will be inflated, trust the ratios more`)
  }
  const results = []
  for (const scenario of selected) {
    console.log(`• ${scenario.name}`)
    try {
      // a scenario's own runs / warmup are defaults: --runs / --warmup on the command line win
      results.push(
        runScenario(scenario, {
          runs: values.runs === undefined ? (scenario.runs ?? runs) : runs,
          warmup: values.warmup === undefined ? (scenario.warmup ?? warmup) : warmup,
          log: (m) => console.log(m),
        }),
      )
    } catch (error) {
      if (error instanceof Interrupted) throw error
      console.log(`  FAILED: ${error.message}`)
      results.push({name: scenario.name, description: scenario.description ?? '', error: error.message})
    }
  }
  const out = values.out ?? RESULTS
  mkdirSync(dirname(out), {recursive: true})
  const report = {date: new Date().toISOString(), ...info, loadAverageAtEnd: loadavg().map((l) => round(l)), runs, warmup, scenarios: results}
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
  const notes = results
    .filter((r) => r.notes)
    .map(
      (r) =>
        `  ${r.name}: ${Object.entries(r.notes)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
    )
  console.log(
    `\n${formatTable(results)}${notes.length ? `\n\nnotes:\n${notes.join('\n')}` : ''}\n\nratio = median / baseline median; figures written to ${relative(process.cwd(), out).startsWith('..') ? out : relative(process.cwd(), out)}`,
  )
  return results.some((r) => r.error) ? 1 : 0
}

const invokedDirectly = () => {
  try {
    return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
  } catch {
    return false
  }
}

if (invokedDirectly()) {
  process.on('exit', cleanupAll)
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      cleanupAll()
      process.exit(130)
    })
  }
  try {
    process.exitCode = main()
  } catch (error) {
    console.error(`bench: ${error.message}`)
    process.exitCode = error instanceof Interrupted ? 130 : 2
  }
}
