import {toExitStatus, type ExitStatus} from '../../model/errors.js'
import {updateMarketplaces} from '../marketplace/update.js'
import {prepareServerUpdate} from '../mcp/from-registry.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {loadTargets, pickTargets} from '../../kernel/targets/registry.js'
import {installPrepared, preparePlugin, type InstallOptions, type InstallResult} from '../install/install.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'

export interface PluginUpdate {
  plugin: string
  scope: string
  status: 'updated' | 'current' | 'failed'
  from: {version?: string; commit?: string; integrity: string}
  to?: {version?: string; commit?: string; integrity: string}
  /** the catalog renamed the plugin: it was updated under this id */
  renamedTo?: string
  /** the executable parts changed, so consent was asked again */
  consentChanged?: boolean
  result?: InstallResult
  message?: string
  /** failed only: the error's code and documented exit status */
  code?: string
  exitStatus?: ExitStatus
  suggestions?: string[]
  details?: unknown
}

export interface PluginsUpdated {
  updates: PluginUpdate[]
}

/**
 * Refreshes the marketplaces the installed plugins come from, then reinstalls each plugin whose
 * content changed (by version, commit or integrity: an unchanged version string with new content is
 * still an update). Changed hooks, MCP commands or tools need consent again.
 */
export const updatePlugins = async (
  ids: readonly string[],
  options: Omit<InstallOptions, 'targets' | 'force'> & {
    /** false: the marketplaces were refreshed already (`update --auto`) */
    refresh?: boolean
  },
): Promise<PluginsUpdated> => {
  const {env, context} = options
  const records = readInstallRecords(env, context.projectRoot).filter(
    (r) => r.scope === context.scope && r.enabled && (ids.length === 0 || ids.includes(r.plugin) || ids.includes(r.plugin.split('@')[0]!)),
  )
  const markets = [
    ...new Set(
      records
        .filter((r) => !isMcpId(r.plugin))
        .map((r) => r.plugin.split('@')[1]!)
        .filter((m) => m !== DIRECT),
    ),
  ]
  if (markets.length > 0 && !options.offline && !options.dryRun && options.refresh !== false) await updateMarketplaces(markets, env, context, {offline: false})
  const byPlugin = new Map<string, InstallRecord[]>()
  for (const r of records) byPlugin.set(r.plugin, [...(byPlugin.get(r.plugin) ?? []), r])
  const all = await loadTargets()
  const updates: PluginUpdate[] = []
  for (const [plugin, group] of [...byPlugin].sort(([a], [b]) => a.localeCompare(b))) {
    const first = group[0]!
    const from = {...(first.version ? {version: first.version} : {}), ...(first.commit ? {commit: first.commit} : {}), integrity: first.integrity}
    try {
      // a plugin installed for a range (asked for, or its dependents') is updated within it
      const spec = plugin.endsWith(`@${DIRECT}`) ? first.source : first.range ? `${plugin}@${first.range}` : plugin
      const prepared = isMcpId(plugin) ? await prepareServerUpdate(first, env, context.projectRoot) : await preparePlugin(spec, options)
      const to = {
        ...((prepared.model.version ?? prepared.resolved.version) ? {version: prepared.resolved.version ?? prepared.model.version} : {}),
        ...(prepared.fetched.commit ? {commit: prepared.fetched.commit} : {}),
        integrity: prepared.fetched.integrity,
      }
      const renamedFrom = prepared.id !== plugin && !plugin.endsWith(`@${DIRECT}`) ? plugin : undefined
      if (to.integrity === from.integrity && !renamedFrom) {
        updates.push({plugin, scope: first.scope, status: 'current', from})
        continue
      }
      const targets = pickTargets(
        group.map((r) => r.target),
        all,
      )
      const result = await installPrepared(prepared, {...options, targets, force: true, ...(renamedFrom ? {renamedFrom} : {})})
      updates.push({
        plugin,
        scope: first.scope,
        status: 'updated',
        from,
        to,
        ...(renamedFrom ? {renamedTo: prepared.id} : {}),
        consentChanged: Boolean(first.consent && first.consent !== result.consent.fingerprint),
        result,
      })
    } catch (error) {
      // one plugin failing leaves the others to be updated; the command's status reports it
      updates.push({plugin, scope: first.scope, status: 'failed', from, message: (error as Error).message, ...toExitStatus(error)})
    }
  }
  return {updates}
}
