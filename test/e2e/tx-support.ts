/** Shared by the transaction tests: a small plugin, a lived-in HOME, and a way to kill a real run. */
import {spawn} from 'node:child_process'
import {createHash, randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'vitest'
import {BIN, NODE, type Sandbox} from '../support/cli.js'
import {loadout} from './helpers.js'

export const AGENTS3 = 'claude-code,codex,deepagents'

/**
 * Where the three agents' user-scope skills are written (from TARGETS.md): Deep Agents Code reads
 * Codex's `~/.agents/skills` too, so that one copy serves both (a second would load twice).
 */
export const SKILL_DIRS = ['.claude/skills', '.agents/skills']

export const skillText = (name: string, version: string) =>
  `---\nname: ${name}\ndescription: Use when testing transactions (${version}).\n---\n\nBody ${version}.\n`

/** A plugin with two skills, an MCP server and a hook: every kind of write loadout makes. */
export const writeKit = (dir: string, name = 'kit', version = 'v1'): string => {
  const root = join(dir, name)
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0', description: 'Transaction test plugin'}))
  for (const skill of ['alpha', 'beta']) {
    mkdirSync(join(root, 'skills', `${name}-${skill}`, 'references'), {recursive: true})
    writeFileSync(join(root, 'skills', `${name}-${skill}`, 'SKILL.md'), skillText(`${name}-${skill}`, version))
    writeFileSync(join(root, 'skills', `${name}-${skill}`, 'references', 'NOTES.md'), `# notes ${version}\n`)
  }
  writeFileSync(join(root, '.mcp.json'), JSON.stringify({mcpServers: {srv: {command: 'echo', args: [name]}}}))
  mkdirSync(join(root, 'hooks'), {recursive: true})
  writeFileSync(join(root, 'hooks', 'hooks.json'), JSON.stringify({hooks: {SessionStart: [{hooks: [{type: 'command', command: `echo ${name}`}]}]}}))
  return root
}

const bigClaudeJson = (): string => {
  const projects: Record<string, unknown> = {}
  for (let i = 0; i < 6000; i++) projects[`/home/user/project-${i}`] = {allowedTools: [], history: [`entry ${i} ${'x'.repeat(300)}`], lastCost: i / 7}
  return JSON.stringify({numStartups: 42, theme: 'dark', projects, mcpServers: {mine: {command: 'my-server'}}}, null, 2)
}

export const CODEX_TOML = `# my codex settings
model = "o4-mini" # the model I like

[mcp_servers.mine]
# my own server, keep this comment
command = "my-server"
args = ["--verbose"]

# trailing comment
`

/** The user's own config files, as a careful user's HOME has them. */
export const USER_CONFIGS = ['.claude.json', '.claude/settings.json', '.codex/config.toml']

export const prepareHome = (sb: Sandbox, options: {big?: boolean} = {}): void => {
  const h = sb.home
  mkdirSync(join(h, '.claude'), {recursive: true})
  writeFileSync(join(h, '.claude.json'), options.big === false ? '{"theme": "dark", "mcpServers": {"mine": {"command": "my-server"}}}\n' : bigClaudeJson())
  writeFileSync(
    join(h, '.claude', 'settings.json'),
    `${JSON.stringify({theme: 'dark', hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: 'echo mine'}]}]}}, null, 2)}\n`,
  )
  mkdirSync(join(h, '.codex'))
  writeFileSync(join(h, '.codex', 'config.toml'), CODEX_TOML)
}

export const sha = (file: string): string => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : 'absent')

/** Every file under a folder with its sha256, relative to it (nothing when the folder is absent). */
export const hashed = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  if (!existsSync(root)) return out
  for (const entry of readdirSync(root, {withFileTypes: true, recursive: true}))
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(root.length + 1)] = sha(join(entry.parentPath, entry.name))
  return out
}

/** Every file, folder and link under HOME except loadout's own state, cache and data: what the agents were given. */
export const agentSnapshot = (home: string): Map<string, string> => {
  const skip = new Set(['.config/loadout', '.cache/loadout', '.local/share/loadout'])
  // loadout's own folders may create these parents; they are not agent folders
  const parents = new Set(['.config', '.cache', '.local', '.local/share'])
  const out = new Map<string, string>()
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (skip.has(r)) continue
      const full = join(dir, entry.name)
      if (entry.isSymbolicLink()) out.set(r, `link ${full}`)
      else if (entry.isDirectory()) {
        if (!parents.has(r)) out.set(r, 'dir')
        walk(full, r)
      } else out.set(r, sha(full))
    }
  }
  walk(home, '')
  return out
}

export const configHashes = (home: string): Record<string, string> => Object.fromEntries(USER_CONFIGS.map((f) => [f, sha(join(home, f))]))

const TEMP = /\.loadout-(tmp|stage|old|del)-/

/** Every loadout temporary or staging name under `root` (loadout's own cache and data copies aside). */
export const tempNames = (root: string): string[] => {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const full = join(dir, entry.name)
      if (full.endsWith('.cache/loadout') || full.endsWith('.local/share/loadout')) continue
      if (TEMP.test(entry.name)) found.push(full)
      if (entry.isDirectory()) walk(full)
    }
  }
  walk(root)
  return found
}

/** Runs `loadout <args>` to the end (it must succeed) and says how long it took: the span a kill test spreads its kills over. */
export const timedRun = async (sb: Sandbox, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> => {
  const start = Date.now()
  const result = await loadout(sb, args, {env})
  if (result.status !== 0) throw new Error(`loadout ${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return Date.now() - start
}

/** Runs `loadout <args>` and sends `signal` after `delayMs` (if it is still running). */
export const runAndSignal = (
  sb: Sandbox,
  args: readonly string[],
  delayMs: number,
  signal: NodeJS.Signals = 'SIGKILL',
  env: NodeJS.ProcessEnv = {},
): Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}> =>
  new Promise((resolve, reject) => {
    const child = spawn(NODE, [BIN, ...args], {cwd: sb.project, env: {...sb.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill(signal), delayMs)
    child.on('error', reject)
    child.on('close', (code, sig) => {
      clearTimeout(timer)
      resolve({code, signal: sig, stdout, stderr})
    })
  })

/** What one traced run of a command passed: each failpoint as `<point>#<n>` (its n-th pass), in order, and how long the run took. */
export interface Traced {
  points: string[]
  ms: number
}

/** Runs `loadout <args>` to the end (it must succeed) with LOADOUT_FAILPOINT_TRACE: the failpoints it passes (src/core/kernel/env/failpoint.ts). */
export const tracePoints = async (sb: Sandbox, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Traced> => {
  const file = join(sb.dir, `failpoints-${randomBytes(4).toString('hex')}`)
  const ms = await timedRun(sb, args, {...env, LOADOUT_FAILPOINT_TRACE: file})
  const names = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
  rmSync(file, {force: true})
  const passes = new Map<string, number>()
  return {
    ms,
    points: names.map((name) => {
      const n = (passes.get(name) ?? 0) + 1
      passes.set(name, n)
      return `${name}#${n}`
    }),
  }
}

/** Runs each command through the CLI in turn (each must succeed), checking after each that `check` finds it at `after`. */
export const unkilledRound = async <T>(
  sb: Sandbox,
  steps: ReadonlyArray<readonly [readonly string[], T]>,
  check: (label: string) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
): Promise<void> => {
  for (const [args, after] of steps) {
    const result = await loadout(sb, args, {env})
    expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0)
    expect(await check(`after an unkilled ${args.join(' ')}`)).toBe(after)
  }
}

/** One kill of a run: at a named failpoint (exactly there), or after a delay (wherever the run is then). */
export type Kill = {point: string} | {delayMs: number}

/** Every traced point once, then `soak` kills at random moments spread over a run as long as the traced one (and a little past it). */
export const killPlan = (traced: Traced, soak: number): Kill[] => [
  ...traced.points.map((point) => ({point})),
  ...Array.from({length: soak}, (_, i) => ({delayMs: Math.floor(((i + Math.random()) / soak) * traced.ms * 1.1)})),
]

export const killLabel = (command: string, kill: Kill): string =>
  'point' in kill ? `${command} killed at ${kill.point}` : `${command} killed after ${kill.delayMs} ms`

/**
 * Runs `loadout <args>` and kills it with SIGKILL as `kill` says. A failpoint kill must land (the run
 * dies there, by its own SIGKILL), or the command no longer passes the point it was traced passing.
 * Says whether the kill left a journal for the next command to recover.
 */
export const killRun = async (sb: Sandbox, args: readonly string[], kill: Kill, env: NodeJS.ProcessEnv = {}): Promise<{midway: boolean}> => {
  const killed =
    'point' in kill
      ? await runAndSignal(sb, args, 120_000, 'SIGKILL', {...env, LOADOUT_FAILPOINT: kill.point})
      : await runAndSignal(sb, args, kill.delayMs, 'SIGKILL', env)
  if ('point' in kill && killed.signal !== 'SIGKILL')
    throw new Error(`loadout ${args.join(' ')} did not die at ${kill.point} (exit ${killed.code}): ${killed.stderr}`)
  return {midway: killed.signal === 'SIGKILL' && journalPending(sb.home)}
}

/** The user-scope install records in the state file (read as data, not through loadout). */
export const recordedTargets = (home: string, plugin: string): string[] => {
  const file = join(home, '.config', 'loadout', 'state.json')
  if (!existsSync(file)) return []
  const state = JSON.parse(readFileSync(file, 'utf8')) as {installs: Array<{plugin: string; target: string}>}
  return state.installs
    .filter((r) => r.plugin === plugin)
    .map((r) => r.target)
    .sort()
}

export const journalPending = (home: string): boolean => existsSync(join(home, '.config', 'loadout', 'journal.jsonl'))
