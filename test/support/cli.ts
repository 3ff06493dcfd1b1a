import {spawn, type SpawnOptions} from 'node:child_process'
import {chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

export const ROOT = join(import.meta.dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'run.js')
/**
 * The Node that runs loadout in tests: the test runner's own, or LOADOUT_TEST_NODE (to run the e2e
 * tests against the oldest Node the package supports, which the test runner itself may not run on).
 */
export const NODE = process.env.LOADOUT_TEST_NODE || process.execPath

export interface Sandbox {
  /** a temporary folder holding home/ and project/ */
  dir: string
  home: string
  project: string
  /** environment for the CLI: HOME and XDG folders inside the sandbox, no colour, not a TTY */
  env: NodeJS.ProcessEnv
  cleanup(): void
}

/** A temporary HOME and project (a git work tree when `git` is true); the real HOME is never touched. */
export const makeSandbox = (options: {git?: boolean} = {}): Sandbox => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-test-')))
  chmodSync(dir, 0o755)
  const home = join(dir, 'home')
  const project = join(dir, 'project')
  mkdirSync(home)
  mkdirSync(project)
  if (options.git) mkdirSync(join(project, '.git'))
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  }
  return {dir, home, project, env, cleanup: () => rmSync(dir, {recursive: true, force: true})}
}

export interface CliResult {
  status: number
  stdout: string
  stderr: string
  /** stdout parsed as JSON (for --json runs) */
  json<T = any>(): T
}

/** Runs the built `bin/run.js` as a process, as a user would. */
export const runCli = (
  args: readonly string[],
  options: {cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number; input?: string},
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const spawnOptions: SpawnOptions = {cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe']}
    if (options.uid !== undefined) spawnOptions.uid = options.uid
    if (options.gid !== undefined) spawnOptions.gid = options.gid
    const child = spawn(NODE, [BIN, ...args], spawnOptions)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.stdin!.end(options.input ?? '')
    child.on('close', (code) =>
      resolve({
        status: code ?? -1,
        stdout,
        stderr,
        json() {
          return JSON.parse(stdout)
        },
      }),
    )
  })
