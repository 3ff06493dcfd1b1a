/**
 * `loadout mcp remove <name>`: takes back exactly what `mcp add` or `mcp install` wrote, through
 * the same removal as `uninstall`. A server loadout did not write is left alone, with a reason.
 */
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, notFound} from '../../model/errors.js'
import {removeInstalled, type RemovalResult} from '../install/remove.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {loadTargets} from '../../kernel/targets/registry.js'
import {listServers} from './list.js'
import {isMcpId, mcpNameOf} from '../../kernel/mcp/spec.js'
import {registryServerOf} from './install.js'

/** The id of the standalone server `name` (its local name, its id, or the registry's name given to `mcp install`) installed in the scope. */
export const installedServerId = async (name: string, env: Environment, context: ScopeContext, agents?: readonly string[]): Promise<string> => {
  const records = readInstallRecords(env, context.projectRoot).filter(
    (r) => isMcpId(r.plugin) && (r.plugin === name || mcpNameOf(r.plugin) === name || registryServerOf(r.source) === name),
  )
  const mine = records.filter((r) => r.scope === context.scope && (!agents || agents.includes(r.target)))
  const ids = [...new Set(mine.map((r) => r.plugin))]
  if (ids.length === 1) return ids[0]!
  if (ids.length > 1) throw conflict('mcp-ambiguous', `"${name}" names ${ids.join(' and ')}`, {suggestions: [`name one: loadout mcp remove ${ids[0]}`]})
  const elsewhere = records.find((r) => r.scope !== context.scope)
  if (elsewhere) {
    throw notFound('not-installed', `MCP server "${name}" is not installed in the ${context.scope} scope`, {
      suggestions: [`it is installed in the ${elsewhere.scope} scope: add --scope ${elsewhere.scope}`],
    })
  }
  // Say who does hold it, so the person knows where to go instead.
  const held = listServers(env, context, await loadTargets(), [context.scope]).servers.filter((s) => s.name === name)
  const plugin = held.find((s) => s.owner !== 'user')
  if (plugin) {
    throw conflict('mcp-owned-by-plugin', `MCP server "${name}" in ${plugin.file} belongs to the plugin ${plugin.owner}`, {
      suggestions: [`remove the plugin: loadout uninstall ${plugin.owner}`],
    })
  }
  if (held.length > 0) {
    throw notFound('mcp-not-loadouts', `MCP server "${name}" in ${held.map((s) => s.file).join(', ')} was not written by loadout, so loadout leaves it alone`, {
      suggestions: ['edit that file yourself to remove it', 'see every server and its owner: loadout mcp list'],
    })
  }
  throw notFound('not-installed', `no MCP server named "${name}" is installed in the ${context.scope} scope`, {
    suggestions: ['see every server: loadout mcp list'],
  })
}

export const removeServer = async (
  name: string,
  env: Environment,
  context: ScopeContext,
  options: {agents?: readonly string[]; force: boolean; dryRun: boolean},
): Promise<RemovalResult> => removeInstalled(await installedServerId(name, env, context, options.agents), env, context, options)
