import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {isFileUrl} from './git-url.js'
import type {SimpleGitOptions} from 'simple-git'
import {loadoutPaths, type Environment} from '../env/environment.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {redactUrl} from './redact.js'

/**
 * Every git process loadout starts goes through `runGit`, on simple-git (loaded on the first
 * call, so no command that runs no git loads it). simple-git refuses options and variables that
 * make git run another program (`--upload-pack`, `-c core.sshCommand=…`, `GIT_EDITOR`, …); those
 * guards stay on, except the few settings below that loadout makes itself to lock git down, each
 * allowed only when this run carries it.
 */

// simple-git and what it loads (debug, @kwsites/*) are CommonJS, imported on the first git call.
// The fast path's bundle holds them (bin/build.mjs): required from node_modules they cost the first
// git call ~25 ms of module resolution and compiling, which the bundle's code cache spares.
let simpleGitModule: Promise<typeof import('simple-git')> | undefined

/** How long git may go without printing anything before it is stopped. */
export const gitTimeoutMs = (env: Environment): number => {
  const seconds = Number(env.vars.LOADOUT_GIT_TIMEOUT)
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 120_000
}

export interface GitContext {
  env: Environment
  /** an empty folder used as core.hooksPath, so no hook ever runs */
  emptyHooksDir: string
  /** allow file:// (local sources only) */
  allowFile?: boolean
  /**
   * The repository the commands may fetch from, when known; undefined for a context that reaches no
   * remote at all (`local`) or may reach any. Only an ssh remote (or an unknown one) gets ssh settings.
   */
  remote?: string
  /** git in the user's own folder (config, init, rev-parse, status, tag): it asks no server anything */
  local?: boolean
  /** overrides gitTimeoutMs */
  timeoutMs?: number
  /**
   * Checking signatures: git runs loadout's choice of programs (gpg, ssh-keygen), trusting only the
   * SSH keys of this allowed-signers file and the OpenPGP keys of this private keyring.
   */
  signatures?: {allowedSignersFile: string; gnupgHome: string}
}

/**
 * A context for the cache: mirrors and trees of `remote` (a git URL, when known). A `file://` remote
 * (a repository on this machine, only ever made by loadout from a path) may use the file transport.
 */
export const gitContext = (env: Environment, cacheDir: string, allowFile = false, remote?: string): GitContext => {
  const emptyHooksDir = join(cacheDir, 'empty-hooks')
  mkdirSync(emptyHooksDir, {recursive: true})
  return {env, emptyHooksDir, allowFile: allowFile || (remote !== undefined && isFileUrl(remote)), ...(remote === undefined ? {} : {remote})}
}

/**
 * A context for git in the user's own folders. Its hooks folder is not made: a core.hooksPath that
 * does not exist runs no hook either, and `doctor` must not write into the cache.
 */
export const localGitContext = (env: Environment, timeoutMs?: number): GitContext => ({
  env,
  emptyHooksDir: join(loadoutPaths(env).cache, 'empty-hooks'),
  local: true,
  ...(timeoutMs === undefined ? {} : {timeoutMs}),
})

const PROTOCOLS = (allowFile: boolean) => (allowFile ? ['https', 'ssh', 'file'] : ['https', 'ssh'])

/**
 * What git may see of the environment: an allowlist. Editors, pagers, askpass programs and any other
 * GIT_* variable stay out (none belongs in a fetch, and simple-git would refuse several);
 * certificates, proxies, ssh agents and the user's own git config stay in.
 */
const PASSED_TO_GIT = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'LANG',
  'SystemRoot',
  'APPDATA',
  'USERPROFILE',
  'XDG_CONFIG_HOME',
  'SSH_AUTH_SOCK',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'ALL_PROXY',
  'all_proxy',
  'NO_PROXY',
  'no_proxy',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_NOSYSTEM',
])

/** The user's ssh programs, passed to git only for an ssh remote. */
const SSH_PROGRAMS = ['GIT_SSH', 'GIT_SSH_COMMAND']

const reachesSsh = (context: GitContext): boolean => !context.local && (context.remote === undefined || !/^(https|file):\/\//i.test(context.remote))

/**
 * The environment git runs with: the allowlist, prompts off, the protocol allowlist (GIT_ALLOW_PROTOCOL
 * is protocol.allow=never plus protocol.<each>.allow=always, over any configuration), no LFS downloads;
 * askpass off and ssh in batch mode wherever a server may be asked.
 */
const hardenedEnv = (context: GitContext): Record<string, string> => {
  const vars = context.env.vars
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(vars)) {
    if (value !== undefined && PASSED_TO_GIT.has(key)) env[key] = value
  }
  Object.assign(env, {
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    GIT_ALLOW_PROTOCOL: PROTOCOLS(Boolean(context.allowFile)).join(':'),
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    LC_ALL: 'C',
  })
  if (!context.local) Object.assign(env, {GIT_ASKPASS: '', SSH_ASKPASS: ''})
  if (context.signatures) env.GNUPGHOME = context.signatures.gnupgHome
  if (reachesSsh(context)) {
    for (const key of SSH_PROGRAMS) if (vars[key] !== undefined) env[key] = vars[key]
    env.GIT_SSH_COMMAND ??= 'ssh -o BatchMode=yes'
  }
  return env
}

const hardenedConfig = (context: GitContext): string[] => {
  const timeoutSeconds = Math.ceil((context.timeoutMs ?? gitTimeoutMs(context.env)) / 1000)
  return [
    `core.hooksPath=${context.emptyHooksDir}`,
    'submodule.recurse=false',
    'fetch.recurseSubmodules=false',
    'core.fsmonitor=false',
    'credential.interactive=false',
    // a redirect would take the fetch to a host the policy never judged: git follows none
    'http.followRedirects=false',
    'http.lowSpeedLimit=1',
    `http.lowSpeedTime=${timeoutSeconds}`,
    'advice.detachedHead=false',
    // the programs that check a signature are loadout's, whatever the user's config names
    ...(context.signatures ? ['gpg.program=gpg', 'gpg.ssh.program=ssh-keygen', `gpg.ssh.allowedSignersFile=${context.signatures.allowedSignersFile}`] : []),
  ]
}

/**
 * The simple-git guards loadout's own settings trip, each allowed only when the setting is there.
 * Every value is loadout's (or the user's own variable, passed through) and turns something off;
 * no text from a source, a catalog or a manifest reaches any of them.
 */
const ownSettings = (env: Record<string, string>, context: GitContext): NonNullable<SimpleGitOptions['unsafe']> => ({
  // core.hooksPath is loadout's empty folder: no hook of a template or of the user's config runs
  allowUnsafeHooksPath: true,
  // core.fsmonitor=false: no monitor program runs for a checkout
  allowUnsafeFsMonitor: true,
  // GIT_ASKPASS and SSH_ASKPASS are empty: no askpass program runs, whatever core.askPass says
  ...(env.GIT_ASKPASS === undefined ? {} : {allowUnsafeAskPass: true}),
  // an ssh remote: `ssh -o BatchMode=yes` (never prompts), or the user's own GIT_SSH_COMMAND / GIT_SSH
  ...(env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined ? {} : {allowUnsafeSshCommand: true}),
  // the user's own GIT_CONFIG_GLOBAL, read as ~/.gitconfig would be
  ...(env.GIT_CONFIG_GLOBAL === undefined ? {} : {allowUnsafeConfigPaths: true}),
  // checking signatures: gpg.program=gpg and gpg.ssh.program=ssh-keygen, the system's own programs
  ...(context.signatures ? {allowUnsafeGpgProgram: true} : {}),
})

interface GitOutcome {
  exitCode: number
  stdErr: Buffer[]
}

/** A failure for every non-zero exit (simple-git's own check wants stderr too), with git's stderr alone. */
const exitFailure = (error: Buffer | Error | undefined, outcome: GitOutcome): Buffer | Error | undefined => {
  // a plugin's own rejection (the timeout) stands: its message says what happened
  if (error instanceof Error && pluginOf(error)) return error
  if (!outcome.exitCode && !error) return undefined
  const text = Buffer.concat(outcome.stdErr).toString('utf8')
  // git missing from PATH: simple-git puts the spawn error's stack where stderr goes
  const spawnFailed = /^Error: (spawn \S+ E[A-Z]+)/.exec(text)
  // a Buffer, which simple-git makes its own GitError of (an Error of ours it would wrap again)
  return Buffer.from(spawnFailed ? `git could not run: ${spawnFailed[1]}` : text.trim() || `git exited with status ${outcome.exitCode}`)
}

/** The simple-git plugin that rejected a run (its GitPluginError names it), if one did. */
const pluginOf = (error: unknown): string | undefined => {
  const plugin = (error as {plugin?: unknown} | undefined)?.plugin
  return typeof plugin === 'string' ? plugin : undefined
}

/** simple-git's refusals of an option or a variable: loadout asked for something unsafe, which is a bug. */
const REFUSING_PLUGINS = new Set(['unsafe', 'allowEnvironment', 'binary'])

/**
 * Runs one git command in `cwd` with the hardened environment and config (each `-c` before the
 * command); returns stdout. Every argument is loadout's, URLs after `--`. Stopped when it prints
 * nothing for the timeout; fails on a non-zero exit, with git's stderr.
 *
 * simple-git waits 50 ms more after a process that printed nothing at all, so the commands an
 * install runs ask git to say what it did (`cat-file -t`, `fetch --verbose`, `read-tree -v`).
 */
export const runGit = async (context: GitContext, cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
  const {simpleGit} = await (simpleGitModule ??= import('simple-git'))
  const hardened = hardenedEnv(context)
  // the caller's variables (GIT_DIR and the like) neither override the hardened ones nor unlock a guard
  const env = {...extraEnv, ...hardened}
  try {
    const git = simpleGit({
      baseDir: cwd,
      config: hardenedConfig(context),
      timeout: {block: context.timeoutMs ?? gitTimeoutMs(context.env)},
      // every variable is one loadout chose (the allowlist above, GIT_DIR and the like)
      allowEnvironment: Object.keys(env),
      unsafe: ownSettings(hardened, context),
      errors: exitFailure,
    }).env(env)
    return await git.raw(args)
  } catch (error) {
    const plugin = pluginOf(error)
    if (plugin && REFUSING_PLUGINS.has(plugin)) {
      throw new LoadoutError('git-refused', EXIT.unexpected, `git ${args[0]} was refused: ${redactUrl((error as Error).message)}`, {
        suggestions: ['this is a bug in loadout: please report it with the command you ran'],
      })
    }
    throw gitFailure(args, error)
  }
}

/** What to try after a clone or fetch that failed for a reason git does not name more precisely. */
const GIT_FAILED_NEXT = [
  'check the URL and the ref the source names, and that the host is reachable from this machine (network, proxy, VPN)',
  'for a slow server, LOADOUT_GIT_TIMEOUT sets how long loadout waits without progress, in seconds',
  "for a private repository, set up git's credential helper (or an ssh key) for this host; loadout never prompts",
]

const gitFailure = (args: string[], error: unknown): LoadoutError => {
  const raw = error instanceof Error ? error.message : String(error)
  const text = redactUrl(raw).trim()
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  const fatal = lines.find((l) => l.startsWith('fatal:')) ?? lines.at(-1) ?? 'git failed'
  const what = `git ${args[0]}`
  if (/block timeout|timed out|Operation too slow|time(d)? ?out/i.test(text)) {
    return new LoadoutError('git-timeout', EXIT.network, `${what} timed out (no progress for too long)`, {
      suggestions: ['check the URL and your network; LOADOUT_GIT_TIMEOUT sets the limit in seconds'],
    })
  }
  if (/terminal prompts disabled|could not read Username|Authentication failed|could not read Password|Permission denied \(publickey/i.test(text)) {
    return new LoadoutError('git-auth', EXIT.network, `${what}: the server asks for credentials, and loadout never prompts`, {
      suggestions: ["set up git's credential helper (or an ssh key) for this host, then try again"],
    })
  }
  if (/not found|does not exist|Could not find remote branch|couldn't find remote ref|unknown revision|not our ref|invalid reference/i.test(text)) {
    return notFound('git-not-found', `${what}: ${fatal.replace(/^fatal:\s*/, '')}`, {
      suggestions: [
        'check the repository URL and the ref (branch, tag or commit) the source names',
        'a private repository can answer "not found" to a request without credentials: set up git\'s credential helper (or an ssh key) for this host',
      ],
    })
  }
  if (/transport '.*' not allowed|protocol '.*' is not supported/i.test(text)) {
    return new LoadoutError('git-protocol-refused', EXIT.usage, `${what}: ${fatal.replace(/^fatal:\s*/, '')}`, {
      suggestions: ['remote sources must use https or ssh'],
    })
  }
  return new LoadoutError('git-failed', EXIT.network, `${what} failed: ${fatal.replace(/^fatal:\s*/, '')}`, {suggestions: GIT_FAILED_NEXT})
}
