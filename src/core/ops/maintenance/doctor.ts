/**
 * `loadout doctor`: the whole setup checked at once. Each check says ok, warn or error, what it
 * looked at, and what to do; `fix` does what is mechanical (finishing or rolling back an
 * interrupted install the way the next install would, removing caches nothing uses) and leaves
 * the rest to the person.
 */
import {accessSync, constants, existsSync, lstatSync, readFileSync, readlinkSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {parseJsonText} from '../../kernel/agent-config/json-edit.js'
import {parseTomlText} from '../../kernel/agent-config/toml-read.js'
import {journalFile, type Environment} from '../../kernel/env/environment.js'
import {isLoadoutError} from '../../model/errors.js'
import {localGitContext, runGit} from '../../kernel/sources/git-process.js'
import {peekPending, recoverIfFree} from '../../kernel/state/transaction.js'
import {PACKAGE_ROOT} from '../../kernel/env/package-root.js'
import {SCOPES, type ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {readMarketplaces, visibleMarketplaces} from '../../kernel/state/marketplaces.js'
import {describeTargets} from '../../kernel/targets/describe.js'
import {loadTargets} from '../../kernel/targets/registry.js'
import {cleanCache, listCache} from './cache.js'

export type CheckStatus = 'ok' | 'warn' | 'error'

export interface DoctorCheck {
  /** what was checked: `node`, `git`, `agent:claude-code`, `journal`, `records`, `cache` */
  id: string
  status: CheckStatus
  message: string
  /** the file or folder concerned */
  path?: string
  /** what to do about it */
  suggestion?: string
  /** `--fix` dealt with it */
  fixed?: boolean
}

export interface DoctorReport {
  ok: boolean
  fix: boolean
  checks: DoctorCheck[]
}

/** The oldest git loadout's commands work with (sparse checkout and partial clone as it uses them). */
export const MIN_GIT = '2.25.0'

const parts = (version: string): number[] => (/(\d+)\.(\d+)(?:\.(\d+))?/.exec(version) ?? []).slice(1, 4).map((n) => Number(n ?? 0))

/** Whether `version` is at least `minimum` (both `x.y[.z]`, anything around them ignored). */
export const atLeast = (version: string, minimum: string): boolean => {
  const [a, b] = [parts(version), parts(minimum)]
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0)
  return true
}

const checkNode = (): DoctorCheck => {
  const engines = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {engines?: {node?: string}}).engines?.node ?? ''
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines.trim())?.[1]
  if (!minimum) return {id: 'node', status: 'ok', message: `Node ${process.version}`}
  return atLeast(process.version, minimum)
    ? {id: 'node', status: 'ok', message: `Node ${process.version} (loadout needs ${engines})`}
    : {id: 'node', status: 'error', message: `Node ${process.version} is older than loadout needs (${engines})`, suggestion: `install Node ${minimum} or newer`}
}

const checkGit = async (env: Environment): Promise<DoctorCheck> => {
  try {
    const version = (await runGit(localGitContext(env, 10_000), env.cwd, ['--version'])).trim()
    return atLeast(version, MIN_GIT)
      ? {id: 'git', status: 'ok', message: `${version} (loadout needs ${MIN_GIT} or newer)`}
      : {
          id: 'git',
          status: 'error',
          message: `${version} is older than ${MIN_GIT}, which loadout needs for git sources`,
          suggestion: `install git ${MIN_GIT} or newer`,
        }
  } catch {
    return {
      id: 'git',
      status: 'error',
      message: 'git was not found on PATH; git sources and marketplaces need it',
      suggestion: `install git ${MIN_GIT} or newer`,
    }
  }
}

/** The nearest folder at or above `path` that exists (what decides whether it can be created). */
const nearestExisting = (path: string): string => {
  let current = path
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current)
  return current
}

const writable = (path: string): boolean => {
  try {
    accessSync(nearestExisting(path), constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** One path of a detected agent: a link where loadout expects a file or folder, not writable, or a config file that does not parse. */
const checkPath = (id: string, path: string, format: string): DoctorCheck | undefined => {
  let stat
  try {
    stat = lstatSync(path)
  } catch {
    return writable(path)
      ? undefined
      : {
          id,
          status: 'error',
          message: `${path} does not exist and cannot be created here`,
          path,
          suggestion: `check the permissions of ${nearestExisting(path)}`,
        }
  }
  if (stat.isSymbolicLink()) {
    return {
      id,
      status: 'warn',
      message: `${path} is a link to ${readlinkSync(path)}; loadout refuses to write through links`,
      path,
      suggestion: 'replace the link by the file or folder itself if loadout should write there',
    }
  }
  try {
    accessSync(path, constants.W_OK)
  } catch {
    return {id, status: 'error', message: `${path} is not writable`, path, suggestion: `check its permissions and owner`}
  }
  if (!stat.isFile() || (format !== 'json-key' && format !== 'codex-toml')) return undefined
  try {
    const text = readFileSync(path, 'utf8')
    if (format === 'codex-toml') parseTomlText(text, path)
    else if (text.trim() !== '') parseJsonText(text, path)
  } catch (error) {
    if (!isLoadoutError(error)) throw error
    return {id, status: 'error', message: error.message, path, suggestion: `fix ${path} by hand: loadout will not edit a file it cannot read`}
  }
  return undefined
}

const checkAgents = async (env: Environment, context: ScopeContext): Promise<DoctorCheck[]> => {
  const described = describeTargets(await loadTargets(), env, context, SCOPES).filter((t) => t.detected)
  if (described.length === 0) return [{id: 'agents', status: 'warn', message: 'no agent was detected on this machine', suggestion: 'see: loadout targets'}]
  return described
    .map((target) => {
      const id = `agent:${target.id}`
      const seen = new Set<string>()
      const found: DoctorCheck[] = []
      for (const p of target.paths) {
        if (seen.has(p.path)) continue
        seen.add(p.path)
        const problem = checkPath(id, p.path, p.format)
        if (problem) found.push(problem)
      }
      return found.length > 0 ? found : [{id, status: 'ok' as const, message: `${target.name}: ${seen.size} folders and config files look right`}]
    })
    .flat()
}

const checkJournal = async (env: Environment, fix: boolean): Promise<DoctorCheck> => {
  const pending = peekPending(env)
  if (!pending) return {id: 'journal', status: 'ok', message: 'no interrupted run is pending'}
  const path = journalFile(env)
  if (pending.running) {
    return {id: 'journal', status: 'ok', message: `${pending.label} is running now (pid ${pending.pid ?? '?'}); its journal is left alone`, path}
  }
  const check: DoctorCheck = {
    id: 'journal',
    status: 'warn',
    message: `${pending.label} was interrupted; its journal is pending`,
    path,
    suggestion: 'run loadout doctor --fix (or any command that changes something) to finish or roll it back',
  }
  if (!fix) return check
  // Without waiting for the lock: a live holder may be writing this very journal.
  const {recovered} = await recoverIfFree(env)
  if (!recovered) return {...check, message: `${check.message}; another loadout process holds the lock, so it was left alone`}
  return {
    ...check,
    status: 'ok',
    fixed: true,
    message: `${recovered.label}, interrupted, was ${recovered.action === 'completed' ? 'completed' : 'rolled back'} (${recovered.steps} steps)`,
  }
}

const checkRecords = (env: Environment, context: ScopeContext): DoctorCheck[] => {
  const checks: DoctorCheck[] = []
  for (const record of readInstallRecords(env, context.projectRoot)) {
    const gone = record.files.filter((f) => !existsSync(f.path)).map((f) => f.path)
    const rootGone = record.pluginRoot !== undefined && !existsSync(record.pluginRoot)
    if (gone.length === 0 && !rootGone) continue
    const what = [
      gone.length > 0 ? `${gone.length} of its ${record.files.length} files are gone (${gone.slice(0, 3).join(', ')}${gone.length > 3 ? ', ...' : ''})` : '',
      rootGone ? `its plugin copy ${record.pluginRoot} is gone` : '',
    ]
      .filter(Boolean)
      .join('; ')
    checks.push({
      id: 'records',
      status: 'error',
      message: `${record.plugin} (${record.scope}, ${record.target}): ${what}`,
      suggestion: `reinstall with: loadout install ${record.plugin} --force --scope ${record.scope} --agent ${record.target}, or remove it with: loadout uninstall ${record.plugin}`,
    })
  }
  return checks.length > 0 ? checks : [{id: 'records', status: 'ok', message: 'every recorded file is in place'}]
}

const mb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MB`

const checkCache = async (env: Environment, context: ScopeContext, fix: boolean): Promise<DoctorCheck> => {
  const listing = listCache(env, context)
  const unused = listing.entries.filter((e) => e.usedBy === undefined)
  if (unused.length === 0) return {id: 'cache', status: 'ok', message: `nothing unused in the cache (${mb(listing.totalBytes)} in use)`}
  const check: DoctorCheck = {
    id: 'cache',
    status: 'warn',
    message: `${unused.length} cache entries and plugin copies nothing uses (${mb(listing.unusedBytes)})`,
    path: listing.cacheDir,
    suggestion: 'see them with: loadout cache list; remove them with: loadout cache clean (or doctor --fix)',
  }
  if (!fix) return check
  try {
    const cleaned = await cleanCache(env, context, {dryRun: false})
    return {
      ...check,
      status: 'ok',
      fixed: true,
      message: `removed ${cleaned.removed.length} unused cache entries and plugin copies (${mb(cleaned.freedBytes)})`,
    }
  } catch (error) {
    if (isLoadoutError(error) && error.code === 'locked')
      return {...check, message: `${check.message}; another loadout process holds the lock, so they were left alone`}
    throw error
  }
}

/** A marketplace not refreshed for this long is reported: its catalog may list versions long gone or miss fixes. */
export const STALE_MARKETPLACE_DAYS = 30

const checkMarketplacesFresh = (env: Environment, context: ScopeContext, now: number): DoctorCheck[] => {
  const stale = visibleMarketplaces(readMarketplaces(env), context.projectRoot).flatMap((r) => {
    const last = Date.parse(String(r.updatedAt))
    const days = Number.isNaN(last) ? Number.POSITIVE_INFINITY : Math.floor((now - last) / 86_400_000)
    return days > STALE_MARKETPLACE_DAYS ? [{name: r.name, scope: r.scope, days}] : []
  })
  if (stale.length === 0) return [{id: 'marketplaces', status: 'ok', message: `every marketplace was refreshed in the last ${STALE_MARKETPLACE_DAYS} days`}]
  return stale.map((m) => ({
    id: `marketplace:${m.name}`,
    status: 'warn' as const,
    message: `marketplace ${m.name} (${m.scope}) was last refreshed ${Number.isFinite(m.days) ? `${m.days} days ago` : 'at an unknown time'}`,
    suggestion: `refresh it: loadout marketplace update ${m.name}; or keep it fresh: loadout marketplace update ${m.name} --auto-update notify, and run loadout update --auto from a scheduler`,
  }))
}

/** Runs every check; with `fix`, the journal is recovered and unused caches removed. */
export const runDoctor = async (env: Environment, context: ScopeContext, options: {fix: boolean}): Promise<DoctorReport> => {
  const checks: DoctorCheck[] = [checkNode(), await checkGit(env), ...(await checkAgents(env, context))]
  checks.push(await checkJournal(env, options.fix))
  checks.push(...checkRecords(env, context))
  checks.push(await checkCache(env, context, options.fix))
  checks.push(...checkMarketplacesFresh(env, context, Date.now()))
  return {ok: checks.every((c) => c.status !== 'error'), fix: options.fix, checks}
}
