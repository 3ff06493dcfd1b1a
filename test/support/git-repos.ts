/**
 * Real git repositories built in a temporary folder, with deterministic commits, and helpers to
 * serve them as bare repositories (for git-daemon.ts and git-http.ts).
 *
 * Every git call here runs with a hermetic environment: no global or system config
 * (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1), no inherited GIT_* variables, prompts off,
 * a fixed author, committer and date.
 *
 * The helpers below that build repositories are synchronous (execFileSync). Anything that talks to
 * a server running in the test process (the HTTPS server) must be asynchronous: use `runGit`.
 */
import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {dirname, isAbsolute, join, normalize, resolve, sep} from 'node:path'

/** A file to write: text content, content with a mode (0o755 makes it executable), or a symbolic link. */
export type FileSpec = string | Buffer | {content: string | Buffer; mode?: number} | {symlink: string}
/** Paths (forward slashes, relative to the work tree) to what they hold; `null` deletes (commitFiles only). */
export type FileMap = Record<string, FileSpec | null>

export const AUTHOR_NAME = 'Loadout Test'
export const AUTHOR_EMAIL = 'test@loadout.invalid'
/** 2024-01-01T00:00:00Z; commit number n of a repository is dated BASE_DATE + n minutes */
export const BASE_DATE = 1_704_067_200

/**
 * A hermetic environment for git: PATH and LANG from this process, no GIT_* variable inherited,
 * no global or system config, no prompts, no askpass, HOME pointing nowhere useful unless given.
 */
export const gitEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: 'C',
    LC_ALL: 'C',
    HOME: '/nonexistent',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: AUTHOR_NAME,
    GIT_AUTHOR_EMAIL: AUTHOR_EMAIL,
    GIT_COMMITTER_NAME: AUTHOR_NAME,
    GIT_COMMITTER_EMAIL: AUTHOR_EMAIL,
  }
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR
  return {...env, ...extra}
}

/** Runs git synchronously with the hermetic environment; returns trimmed stdout; throws with stderr. */
export const git = (cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string => {
  try {
    return execFileSync('git', args, {
      cwd,
      env: gitEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
    })
      .toString()
      .trim()
  } catch (error) {
    const e = error as {stderr?: Buffer; message: string}
    throw new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${e.stderr?.toString().trim() || e.message}`)
  }
}

export interface RunResult {
  /** exit status; null when killed (by the timeout, for example) */
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** wall time in milliseconds */
  durationMs: number
  /** true when the timeout killed it */
  timedOut: boolean
}

export interface RunOptions {
  cwd?: string
  /** the whole environment (not merged with gitEnv); default gitEnv() */
  env?: NodeJS.ProcessEnv
  /** kill after this many milliseconds; default 60 s */
  timeoutMs?: number
  input?: string
}

/**
 * Runs a command asynchronously (never blocking the event loop, so a server in this process can
 * answer it), collects its output and never throws for a non-zero exit.
 */
export const run = (command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> =>
  new Promise((resolvePromise, reject) => {
    const started = Date.now()
    const child = spawn(command, args, {cwd: options.cwd, env: options.env ?? gitEnv(), stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let timedOut = false
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeoutMs ?? 60_000)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolvePromise({status, signal, stdout, stderr, durationMs: Date.now() - started, timedOut})
    })
  })

/** `run('git', args, options)` with the hermetic environment (plus `options.env` merged in). */
export const runGit = (args: readonly string[], options: Omit<RunOptions, 'env'> & {env?: NodeJS.ProcessEnv} = {}): Promise<RunResult> =>
  run('git', args, {...options, env: gitEnv(options.env)})

const checkedPath = (root: string, path: string): string => {
  if (isAbsolute(path) || path === '' || normalize(path).split(/[\\/]/).includes('..')) {
    throw new Error(`test repo path must be relative and inside the repository: ${path}`)
  }
  const full = resolve(root, path)
  if (!full.startsWith(resolve(root) + sep)) throw new Error(`test repo path escapes the repository: ${path}`)
  return full
}

const exists = (path: string): boolean => {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** Writes (or deletes, for null) files into a work tree; returns the paths touched. */
export const writeFiles = (root: string, files: FileMap): string[] => {
  const touched: string[] = []
  for (const [path, spec] of Object.entries(files)) {
    const full = checkedPath(root, path)
    touched.push(path)
    if (exists(full)) rmSync(full, {recursive: true, force: true})
    if (spec === null) continue
    mkdirSync(dirname(full), {recursive: true})
    if (typeof spec === 'string' || Buffer.isBuffer(spec)) {
      writeFileSync(full, spec)
      chmodSync(full, 0o644)
    } else if ('symlink' in spec) {
      symlinkSync(spec.symlink, full)
    } else {
      writeFileSync(full, spec.content)
      chmodSync(full, spec.mode ?? 0o644)
    }
  }
  return touched
}

const commitCount = (repo: string): number => {
  try {
    return Number(git(repo, ['rev-list', '--count', 'HEAD']))
  } catch {
    return 0
  }
}

/** Environment fixing the author and committer date of the next commit in `repo`. */
const dateEnv = (repo: string): NodeJS.ProcessEnv => {
  const date = `${BASE_DATE + commitCount(repo) * 60} +0000`
  return {GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date}
}

/**
 * Writes `files` into `repo`, stages them (deletions too) and commits with a deterministic author,
 * committer and date. Returns the new commit's sha.
 */
export const commitFiles = (repo: string, files: FileMap, message = 'update'): string => {
  writeFiles(repo, files)
  git(repo, ['add', '--all', '--', '.'])
  git(repo, ['commit', '-q', '--allow-empty', '--no-verify', '--no-gpg-sign', '-m', message], dateEnv(repo))
  return headSha(repo)
}

/**
 * Creates a repository at `dir` (made if missing) with one commit holding `files` on `branch`
 * (default main). The same files always give the same commit sha. Returns `dir`.
 */
export const makeRepo = (dir: string, files: FileMap, options: {branch?: string; message?: string} = {}): string => {
  mkdirSync(dir, {recursive: true})
  const branch = options.branch ?? 'main'
  git(dir, ['-c', 'init.defaultBranch=main', 'init', '-q', `--initial-branch=${branch}`])
  // repository-local settings so later commands in this repo do not depend on anyone's config
  git(dir, ['config', 'core.autocrlf', 'false'])
  git(dir, ['config', 'core.symlinks', 'true'])
  git(dir, ['config', 'core.fileMode', 'true'])
  git(dir, ['config', 'commit.gpgSign', 'false'])
  git(dir, ['config', 'tag.gpgSign', 'false'])
  commitFiles(dir, files, options.message ?? 'initial')
  return dir
}

/**
 * Tags a commit (default HEAD): lightweight by default, annotated when `message` is given (dated
 * deterministically like commits).
 */
export const tag = (repo: string, name: string, options: {ref?: string; message?: string} = {}): void => {
  const ref = options.ref ?? 'HEAD'
  if (options.message === undefined) git(repo, ['tag', name, ref])
  else git(repo, ['tag', '-a', '--no-sign', '-m', options.message, name, ref], dateEnv(repo))
}

/** Creates (or moves) a branch at a commit (default HEAD) without switching to it. */
export const branch = (repo: string, name: string, ref = 'HEAD'): void => {
  git(repo, ['branch', '-f', name, ref])
}

/** Switches the work tree to a branch, creating it when `create` is true. */
export const checkout = (repo: string, name: string, create = false): void => {
  git(repo, create ? ['checkout', '-q', '-b', name] : ['checkout', '-q', name])
}

/** The full sha of HEAD (or of `ref`). */
export const headSha = (repo: string, ref = 'HEAD'): string => git(repo, ['rev-parse', '--verify', `${ref}^{commit}`])

/** Settings written into every served bare repository. */
export const SERVED_CONFIG: Record<string, string> = {
  // never accept pushes over http-backend
  'http.receivepack': 'false',
  'daemon.receivepack': 'false',
  // partial clones (--filter=blob:none) and sparse checkouts
  'uploadpack.allowFilter': 'true',
  // fetching a pinned commit by sha, as GitHub allows
  'uploadpack.allowReachableSHA1InWant': 'true',
  'uploadpack.allowTipSHA1InWant': 'true',
}

/**
 * Makes `repo` servable: `git clone --bare` into `<root>/<name>` (name gets ".git" when it has
 * none; it may contain "/" as in "owner/repo"), with SERVED_CONFIG applied and
 * `git update-server-info` run (for dumb HTTP). Replaces an earlier copy. Returns the bare path.
 */
export const serveRepo = (repo: string, root: string, name: string): string => {
  const relative = name.endsWith('.git') ? name : `${name}.git`
  const bare = checkedPath(root, relative)
  rmSync(bare, {recursive: true, force: true})
  mkdirSync(dirname(bare), {recursive: true})
  git(dirname(bare), ['clone', '-q', '--bare', '--no-local', '--', resolve(repo), bare])
  for (const [key, value] of Object.entries(SERVED_CONFIG)) git(bare, ['config', key, value])
  // remember where it came from, so syncServedRepo can fetch every ref again
  git(bare, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/heads/*'])
  git(bare, ['config', '--add', 'remote.origin.fetch', '+refs/tags/*:refs/tags/*'])
  git(bare, ['update-server-info'])
  return bare
}

/**
 * Brings a served bare repository up to date with the repository it was cloned from (new commits,
 * moved or deleted branches and tags; HEAD follows the source's current branch).
 */
export const syncServedRepo = (bare: string): void => {
  git(bare, ['fetch', '-q', '--prune', '--force', 'origin'])
  const source = git(bare, ['config', 'remote.origin.url'])
  const head = git(source, ['symbolic-ref', '-q', 'HEAD'])
  git(bare, ['symbolic-ref', 'HEAD', head])
  git(bare, ['update-server-info'])
}

/** makeRepo + serveRepo in one step: the work tree goes to `<workDir>/<name>`, the bare copy to `<root>/<name>.git`. */
export const makeServedRepo = (
  workDir: string,
  root: string,
  name: string,
  files: FileMap,
  options: {branch?: string; message?: string} = {},
): {repo: string; bare: string; sha: string} => {
  const plain = name.replace(/\.git$/, '')
  const repo = makeRepo(checkedPath(workDir, plain), files, options)
  const bare = serveRepo(repo, root, plain)
  return {repo, bare, sha: headSha(repo)}
}

/** True when `dir` looks like a git repository (bare or not). */
export const isRepo = (dir: string): boolean => existsSync(join(dir, 'HEAD')) || existsSync(join(dir, '.git'))
