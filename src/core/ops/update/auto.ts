import type {Environment} from '../../kernel/env/environment.js'
import {findGitRoot, type Scope} from '../../kernel/env/scope.js'
import type {AutoUpdate} from '../../model/marketplace.js'
import {readMarketplaces, visibleMarketplaces} from '../../kernel/state/marketplaces.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {autoUpdateIntervalMs, isDue} from '../marketplace/due.js'
import {usageError} from '../../model/errors.js'
import {updateMarketplaces, type MarketplaceUpdate} from '../marketplace/update.js'
import {updatePlugins, type PluginUpdate} from './update.js'

export interface AutoUpdateReport {
  /** the marketplaces with auto-update on whose last refresh is over a day old (or never was) */
  due: Array<{name: string; scope: Scope; autoUpdate: AutoUpdate}>
  refreshed: MarketplaceUpdate[]
  /** `notify`: the plugins an update would change, not updated */
  available: Array<{plugin: string; scope: string; from: PluginUpdate['from']; to?: PluginUpdate['to']}>
  /** `apply`: what was updated (and what was current) */
  updates: PluginUpdate[]
  /** `apply`: updates that need consent (a new hook, a changed MCP command), left for `loadout update` on a terminal */
  waiting: Array<{plugin: string; scope: string; message: string}>
  /** other failures, reported; the run still ends with status 0 */
  failed: Array<{plugin: string; scope: string; code?: string; message: string}>
}

/** The interval, or a usage error (status 2) naming the variable. */
const requireAutoUpdateInterval = (vars: Readonly<Record<string, string | undefined>>): number => {
  const ms = autoUpdateIntervalMs(vars)
  if (ms === undefined) {
    throw usageError('auto-update-interval-invalid', `LOADOUT_AUTO_UPDATE_INTERVAL=${JSON.stringify(vars.LOADOUT_AUTO_UPDATE_INTERVAL)} is not a duration`, {
      suggestions: ['give it as <n>m, <n>h, <n>d or <n>w (for example 6h), or unset it for a day'],
    })
  }
  return ms
}

/**
 * `loadout update --auto`, for a scheduler or an agent's SessionStart hook: refreshes the marketplaces
 * that are due (auto-update `notify` or `apply`, last refreshed a day ago, or `LOADOUT_AUTO_UPDATE_INTERVAL` ago), then for `apply`
 * updates the plugins installed from them, and for `notify` reports what an update would change. It
 * never asks: an update that needs consent waits, and is reported. Nothing due: no request is made.
 */
export const autoUpdate = async (env: Environment, options: {now?: () => Date; allowHiddenText?: boolean} = {}): Promise<AutoUpdateReport> => {
  const now = (options.now ?? (() => new Date()))()
  const gitRoot = findGitRoot(env.cwd)
  const projectRoot = gitRoot ?? env.cwd
  const interval = requireAutoUpdateInterval(env.vars)
  const due = visibleMarketplaces(readMarketplaces(env), projectRoot).filter((r) => isDue(r, now.getTime(), interval))
  const report: AutoUpdateReport = {
    due: due.map((r) => ({name: r.name, scope: r.scope, autoUpdate: r.autoUpdate!})),
    refreshed: [],
    available: [],
    updates: [],
    waiting: [],
    failed: [],
  }
  if (due.length === 0) return report
  const context = {scope: gitRoot ? ('project' as const) : ('user' as const), projectRoot}
  report.refreshed = (await updateMarketplaces([...new Set(due.map((r) => r.name))], env, context, {offline: false, now: () => now})).results
  const refreshedOk = new Set(report.refreshed.filter((r) => r.status !== 'failed').map((r) => r.name))
  const modeOf = new Map(due.filter((r) => refreshedOk.has(r.name)).map((r) => [r.name, r.autoUpdate!]))
  const records = readInstallRecords(env, projectRoot).filter((r) => r.enabled)
  const scopes: Scope[] = gitRoot ? ['user', 'project'] : ['user']
  for (const scope of scopes) {
    for (const mode of ['notify', 'apply'] as const) {
      const ids = [...new Set(records.filter((r) => r.scope === scope && modeOf.get(r.plugin.split('@')[1]!) === mode).map((r) => r.plugin))]
      // none: updatePlugins with no ids would take every plugin of the scope
      if (ids.length === 0) continue
      const {updates} = await updatePlugins(ids, {
        env,
        context: {scope, projectRoot},
        dryRun: mode === 'notify',
        prefix: true,
        offline: false,
        yes: false,
        refresh: false,
        ...(options.allowHiddenText ? {allowHiddenText: true} : {}),
      })
      for (const u of updates) {
        if (mode === 'notify') {
          if (u.status === 'updated') report.available.push({plugin: u.plugin, scope: u.scope, from: u.from, ...(u.to ? {to: u.to} : {})})
          else if (u.status === 'failed') report.failed.push({plugin: u.plugin, scope: u.scope, ...(u.code ? {code: u.code} : {}), message: u.message ?? ''})
        } else if (u.status === 'failed' && u.code === 'consent-needed') report.waiting.push({plugin: u.plugin, scope: u.scope, message: u.message ?? ''})
        else if (u.status === 'failed') report.failed.push({plugin: u.plugin, scope: u.scope, ...(u.code ? {code: u.code} : {}), message: u.message ?? ''})
        else report.updates.push(u)
      }
    }
  }
  return report
}
