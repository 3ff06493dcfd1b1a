import {mkdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import type {Environment} from '../environment.js'
import {EXIT, LoadoutError, notFound} from '../errors.js'
import {redactUrl} from '../sources/redact.js'

/** How long git may go without printing anything before it is killed. */
export const gitTimeoutMs = (env: Environment): number => {
  const seconds = Number(env.vars.LOADOUT_GIT_TIMEOUT)
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 120_000
}

export interface GitContext {
  env: Environment
  /** an empty folder used as core.hooksPath, so no repository hook ever runs */
  emptyHooksDir: string
  /** allow file:// (local sources only) */
  allowFile?: boolean
}

export const gitContext = (env: Environment, cacheDir: string, allowFile = false): GitContext => {
  const emptyHooksDir = join(cacheDir, 'empty-hooks')
  mkdirSync(emptyHooksDir, {recursive: true})
  return {env, emptyHooksDir, allowFile}
}

const PROTOCOLS = (allowFile: boolean) => (allowFile ? ['https', 'ssh', 'file'] : ['https', 'ssh'])

/** The environment git runs with: no prompts, no foreign protocols, no LFS downloads. */
const hardenedEnv = (context: GitContext): Record<string, string> => {
  const base: Record<string, string> = {}
  for (const [key, value] of Object.entries(context.env.vars)) {
    if (value !== undefined && !key.startsWith('GIT_')) base[key] = value
  }
  // Keep the variables that point git at certificates, proxies and credentials the user set up.
  for (const key of ['GIT_SSL_CAINFO', 'GIT_SSL_CAPATH', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM']) {
    const value = context.env.vars[key]
    if (value !== undefined) base[key] = value
  }
  return {
    ...base,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GCM_INTERACTIVE: 'never',
    GIT_SSH_COMMAND: base.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    GIT_ALLOW_PROTOCOL: PROTOCOLS(Boolean(context.allowFile)).join(':'),
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    LC_ALL: 'C',
  }
}

const hardenedConfig = (context: GitContext): string[] => {
  const timeoutSeconds = Math.ceil(gitTimeoutMs(context.env) / 1000)
  return [
    `core.hooksPath=${context.emptyHooksDir}`,
    'protocol.allow=never',
    ...PROTOCOLS(Boolean(context.allowFile)).map((p) => `protocol.${p}.allow=always`),
    'submodule.recurse=false',
    'fetch.recurseSubmodules=false',
    'core.fsmonitor=false',
    'credential.interactive=false',
    'http.lowSpeedLimit=1',
    `http.lowSpeedTime=${timeoutSeconds}`,
    'advice.detachedHead=false',
    'init.defaultBranch=main',
  ]
}

/** Runs one git command with the hardened environment and config; returns stdout. */
export const runGit = async (context: GitContext, cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> => {
  const {simpleGit} = await import('simple-git')
  const env = {...hardenedEnv(context), ...extraEnv}
  const git = simpleGit({
    baseDir: cwd,
    // simple-git guards git's own variables; every one set here is set by loadout on purpose.
    allowEnvironment: Object.keys(env).filter((k) => /^(GIT_|SSH_|GCM_)/.test(k)),
    config: hardenedConfig(context),
    timeout: {block: gitTimeoutMs(context.env)},
    // loadout itself sets hooksPath and protocol.allow (to lock git down); no user input reaches them.
    unsafe: {allowUnsafeHooksPath: true, allowUnsafeProtocolOverride: true, allowUnsafeSshCommand: true, allowUnsafeAskPass: true, allowUnsafeFsMonitor: true},
  }).env(env)
  try {
    return await git.raw(args)
  } catch (error) {
    throw gitFailure(args, error)
  }
}

const gitFailure = (args: string[], error: unknown): LoadoutError => {
  const raw = error instanceof Error ? error.message : String(error)
  const text = redactUrl(raw).trim()
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean)
  const fatal = lines.find((l) => l.startsWith('fatal:')) ?? lines.at(-1) ?? 'git failed'
  const what = `git ${args[0]}`
  if (/block timeout|timed out|Operation too slow|time(d)? ?out/i.test(text)) {
    return new LoadoutError('git-timeout', EXIT.network, `${what} timed out (no progress for too long)`, {suggestions: ['check the URL and your network; LOADOUT_GIT_TIMEOUT sets the limit in seconds']})
  }
  if (/terminal prompts disabled|could not read Username|Authentication failed|could not read Password|Permission denied \(publickey/i.test(text)) {
    return new LoadoutError('git-auth', EXIT.network, `${what}: the server asks for credentials, and loadout never prompts`, {
      suggestions: ["set up git's credential helper (or an ssh key) for this host, then try again"],
    })
  }
  if (/not found|does not exist|Could not find remote branch|couldn't find remote ref|unknown revision|not our ref|invalid reference/i.test(text)) {
    return notFound('git-not-found', `${what}: ${fatal.replace(/^fatal:\s*/, '')}`)
  }
  if (/transport '.*' not allowed|protocol '.*' is not supported/i.test(text)) {
    return new LoadoutError('git-protocol-refused', EXIT.usage, `${what}: ${fatal.replace(/^fatal:\s*/, '')}`, {suggestions: ['remote sources must use https or ssh']})
  }
  return new LoadoutError('git-failed', EXIT.network, `${what} failed: ${fatal.replace(/^fatal:\s*/, '')}`)
}

/** A bare, partial (blob-less) mirror of `url` at `mirrorDir`: cloned once, then fetched. */
export const updateMirror = async (context: GitContext, url: string, mirrorDir: string): Promise<'cloned' | 'fetched'> => {
  const refspecs = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']
  try {
    await runGit(context, mirrorDir, ['rev-parse', '--git-dir'])
  } catch {
    rmSync(mirrorDir, {recursive: true, force: true})
    mkdirSync(mirrorDir, {recursive: true})
    try {
      await runGit(context, mirrorDir, ['clone', '--bare', '--filter=blob:none', '--no-tags', '--', url, '.'])
      await runGit(context, mirrorDir, ['fetch', '--no-write-fetch-head', '--prune', '--', 'origin', ...refspecs])
    } catch (error) {
      rmSync(mirrorDir, {recursive: true, force: true})
      throw error
    }
    return 'cloned'
  }
  await runGit(context, mirrorDir, ['fetch', '--prune', '--no-write-fetch-head', '--', 'origin', ...refspecs])
  return 'fetched'
}

const FULL_SHA = /^[0-9a-f]{40}$/

/** The commit a ref (branch, tag, or full sha) names in the mirror; a missing ref is "not found". */
export const resolveCommit = async (context: GitContext, mirrorDir: string, ref: string | undefined, url: string): Promise<string> => {
  const wanted = ref ?? 'HEAD'
  if (wanted.startsWith('-')) throw new LoadoutError('bad-ref', EXIT.usage, `refusing ref "${wanted}"`)
  if (FULL_SHA.test(wanted)) {
    try {
      await runGit(context, mirrorDir, ['cat-file', '-e', `${wanted}^{commit}`])
    } catch {
      try {
        await runGit(context, mirrorDir, ['fetch', '--no-write-fetch-head', '--', 'origin', wanted])
      } catch {
        throw notFound('commit-not-found', `commit ${wanted} does not exist in ${redactUrl(url)}`)
      }
    }
    return wanted
  }
  for (const candidate of [`refs/tags/${wanted}`, `refs/heads/${wanted}`, wanted]) {
    try {
      // simple-git reports a failure only when git wrote to stderr, so check the answer's shape too.
      const commit = (await runGit(context, mirrorDir, ['rev-parse', '--verify', '--end-of-options', `${candidate}^{commit}`])).trim()
      if (FULL_SHA.test(commit)) return commit
    } catch {
      // try the next form
    }
  }
  throw notFound('ref-not-found', `ref "${wanted}" does not exist in ${redactUrl(url)}`, {suggestions: ['check the branch or tag name, or leave out --ref for the default branch']})
}

/**
 * Writes the tree of `commit` into `dest` (a fresh folder), limited to `paths` when given: a
 * partial mirror fetches only the blobs those paths need.
 */
export const checkoutTree = async (context: GitContext, mirrorDir: string, commit: string, dest: string, paths?: readonly string[]): Promise<void> => {
  mkdirSync(dest, {recursive: true})
  const index = join(dest, '..', `.${commit}.index`)
  let pathspec = ['.']
  if (paths && paths.length > 0) {
    // git checkout fails on a pathspec that matches nothing, so keep only the paths that exist.
    pathspec = []
    for (const path of paths) {
      try {
        await runGit(context, mirrorDir, ['cat-file', '-e', `${commit}:${path.replace(/^\.\//, '')}`])
        pathspec.push(path)
      } catch {
        // not in this commit
      }
    }
    if (pathspec.length === 0) return
  }
  try {
    await runGit(context, dest, ['checkout', '--force', commit, '--', ...pathspec], {GIT_DIR: mirrorDir, GIT_WORK_TREE: dest, GIT_INDEX_FILE: index})
  } finally {
    rmSync(index, {force: true})
  }
}

/** The commit a remote ref points at, asked of the remote itself (one round trip, nothing cloned). */
export const lsRemote = async (context: GitContext, cwd: string, url: string, ref?: string): Promise<string | undefined> => {
  const out = await runGit(context, cwd, ['ls-remote', '--', url, ref ?? 'HEAD'])
  const lines = out.split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string])
  const exact = lines.find(([, name]) => name === ref || name === `refs/heads/${ref}` || name === `refs/tags/${ref}^{}`) ?? lines.find(([, name]) => name === `refs/tags/${ref}`) ?? lines[0]
  return exact && FULL_SHA.test(exact[0]) ? exact[0] : undefined
}
