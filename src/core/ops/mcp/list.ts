/**
 * Every MCP server each agent would start: read from the agent's own config files, whoever wrote
 * them, each with its owner (the loadout install that wrote it, or the user). Values of environment
 * variables and headers are never shown, only their names.
 */
import {existsSync, readFileSync} from 'node:fs'
import {parseJsonText} from '../../kernel/agent-config/json-edit.js'
import {parseTomlText} from '../../kernel/agent-config/toml-read.js'
import type {Environment} from '../../kernel/env/environment.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget} from '../../kernel/targets/types.js'

export interface ListedServer {
  agent: string
  scope: Scope
  file: string
  name: string
  transport: 'stdio' | 'http' | 'sse' | 'unknown'
  /** the command and arguments, or the URL */
  runs: string
  envNames: string[]
  headerNames: string[]
  /** the plugin id of the loadout install that wrote it, or "user" */
  owner: string
}

export interface McpListing {
  servers: ListedServer[]
  /** config files that could not be read, and why */
  unreadable: Array<{file: string; message: string}>
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)
const names = (value: unknown): string[] => (isObject(value) ? Object.keys(value).sort() : [])
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []

/** The transport and what runs, from whichever shape the entry is in. */
const describeEntry = (entry: Record<string, unknown>): Pick<ListedServer, 'transport' | 'runs' | 'envNames' | 'headerNames'> => {
  const url = [entry.url, entry.httpUrl, entry.serverUrl].find((u): u is string => typeof u === 'string')
  const envNames = [...new Set([...names(entry.env), ...names(entry.environment), ...strings(entry.env_vars)])].sort()
  const headerNames = [
    ...new Set([
      ...names(entry.headers),
      ...names(entry.http_headers),
      ...names(entry.env_http_headers),
      ...(entry.bearer_token_env_var ? ['Authorization'] : []),
    ]),
  ].sort()
  if (url !== undefined) {
    const sse = entry.type === 'sse' || entry.transport === 'sse'
    return {transport: sse ? 'sse' : 'http', runs: url, envNames, headerNames}
  }
  const command = strings(entry.command)
  if (command.length > 0) return {transport: 'stdio', runs: [...command, ...strings(entry.args)].join(' '), envNames, headerNames}
  return {transport: 'unknown', runs: '', envNames, headerNames}
}

const ownerOf = (records: readonly InstallRecord[], file: string, path: readonly string[], key: string): string => {
  const record = records.find((r) => r.config.some((c) => c.file === file && c.key === key && c.path.join('\0') === path.join('\0') && !c.addedHooks))
  return record?.plugin ?? 'user'
}

const readServers = (
  target: AgentTarget,
  file: string,
  key: string,
  records: readonly InstallRecord[],
): Array<Omit<ListedServer, 'agent' | 'scope' | 'file'>> => {
  const text = readFileSync(file, 'utf8')
  if (text.trim() === '') return []
  if (target.mcp!.format === 'codex-toml') {
    const tables = parseTomlText(text, file)[key]
    return Object.entries(isObject(tables) ? tables : {})
      .filter(([, entry]) => isObject(entry))
      .map(([name, entry]) => ({name, ...describeEntry(entry as Record<string, unknown>), owner: ownerOf(records, file, [key, name], '')}))
  }
  const data = parseJsonText(text, file)
  const servers = isObject(data) ? data[key] : undefined
  return Object.entries(isObject(servers) ? servers : {})
    .filter(([, entry]) => isObject(entry))
    .map(([name, entry]) => ({name, ...describeEntry(entry as Record<string, unknown>), owner: ownerOf(records, file, [key], name)}))
}

/** The servers of the given agents in the given scopes, in each agent's load order. */
export const listServers = (env: Environment, context: ScopeContext, targets: readonly AgentTarget[], scopes: readonly Scope[]): McpListing => {
  const records = readInstallRecords(env, context.projectRoot)
  const listing: McpListing = {servers: [], unreadable: []}
  for (const target of targets) {
    if (!target.mcp) continue
    for (const location of sectionLocations(target, 'mcp', env, context, scopes)) {
      if (!existsSync(location.absolute)) continue
      try {
        for (const server of readServers(target, location.absolute, location.key ?? target.mcp.key, records)) {
          listing.servers.push({agent: target.id, scope: location.scope, file: location.absolute, ...server})
        }
      } catch (error) {
        listing.unreadable.push({file: location.absolute, message: (error as Error).message})
      }
    }
  }
  return listing
}
