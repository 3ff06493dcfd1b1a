/**
 * A client for an MCP Registry speaking the frozen v0.1 API: `GET /v0.1/servers?search=&cursor=`
 * (pages of `{servers: [{server, _meta}], metadata: {nextCursor, count}}`) and
 * `GET /v0.1/servers/{name}/versions/{version|latest}`. Everything it answers is untrusted: each
 * entry is checked before use, and no token is ever sent to it.
 */
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import {httpGet} from '../sources/http.js'
import {redactUrl} from '../sources/redact.js'
import {checkServerUrl} from './spec.js'

export const DEFAULT_MCP_REGISTRY = 'https://registry.modelcontextprotocol.io'
const MAX_PAGE_BYTES = 4 * 1024 * 1024
const MAX_PAGES = 20

/** The parts of a registry `server.json` loadout reads; everything else is kept but not interpreted. */
export interface RegistryServer {
  name: string
  version: string
  description?: string
  title?: string
  packages?: unknown[]
  remotes?: unknown[]
  [field: string]: unknown
}

export interface RegistryEntry {
  server: RegistryServer
  /** the registry's `_meta` for this entry (status, isLatest, publishedAt) */
  meta: Record<string, unknown>
}

export const registryBase = (env: Environment): string => {
  const base = (env.vars.LOADOUT_MCP_REGISTRY || DEFAULT_MCP_REGISTRY).replace(/\/+$/, '')
  try {
    checkServerUrl(base)
  } catch (error) {
    throw new LoadoutError('bad-registry-url', EXIT.usage, `LOADOUT_MCP_REGISTRY: ${(error as Error).message}`)
  }
  return base
}

const badAnswer = (url: string, why: string) => new LoadoutError('registry-bad-answer', EXIT.network, `the MCP Registry answered ${redactUrl(url)} with ${why}`)

const getJson = async (url: string, env: Environment): Promise<unknown> => {
  const result = await httpGet(url, {env, maxBytes: MAX_PAGE_BYTES, accept: 'application/json', anonymous: true})
  if (result.status !== 'ok') throw badAnswer(url, 'no body')
  try {
    return JSON.parse(result.body.toString('utf8')) as unknown
  } catch {
    throw badAnswer(url, 'something that is not JSON')
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** One `{server, _meta}` item, or undefined when it is not a usable server. */
const readEntry = (item: unknown): RegistryEntry | undefined => {
  if (!isObject(item) || !isObject(item.server)) return undefined
  const server = item.server
  if (typeof server.name !== 'string' || server.name === '' || typeof server.version !== 'string' || server.version === '') return undefined
  if (server.description !== undefined && typeof server.description !== 'string') return undefined
  return {server: server as RegistryServer, meta: isObject(item._meta) ? item._meta : {}}
}

export interface RegistrySearch {
  registry: string
  query: string
  servers: RegistryEntry[]
  pages: number
  /** entries the registry answered that were not usable servers */
  skipped: number
}

const matches = (entry: RegistryEntry, words: readonly string[]): boolean => {
  const haystack = [entry.server.name, entry.server.title ?? '', entry.server.description ?? ''].join(' ').toLowerCase()
  return words.every((w) => haystack.includes(w))
}

/**
 * Asks the registry for `query`, page after page (up to 20), and keeps the latest version of each
 * server whose name, title or description holds every word of the query.
 */
export const searchRegistry = async (query: string, env: Environment, limit = 50): Promise<RegistrySearch> => {
  const base = registryBase(env)
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  const found = new Map<string, RegistryEntry>()
  let cursor: string | undefined
  const seen = new Set<string>()
  let pages = 0
  let skipped = 0
  do {
    const params = new URLSearchParams({search: query, version: 'latest', limit: '100'})
    if (cursor) params.set('cursor', cursor)
    const url = `${base}/v0.1/servers?${params}`
    const page = await getJson(url, env)
    pages++
    if (!isObject(page) || !Array.isArray(page.servers)) throw badAnswer(url, 'no "servers" list')
    for (const item of page.servers) {
      const entry = readEntry(item)
      if (!entry) skipped++
      else if (matches(entry, words) && !found.has(entry.server.name)) found.set(entry.server.name, entry)
    }
    const next = isObject(page.metadata) ? page.metadata.nextCursor : undefined
    // a registry that hands back a cursor it gave before would page forever
    cursor = typeof next === 'string' && next !== '' && !seen.has(next) ? next : undefined
    if (cursor) seen.add(cursor)
  } while (cursor && pages < MAX_PAGES && found.size < limit)
  return {registry: base, query, servers: [...found.values()].slice(0, limit), pages, skipped}
}

/** One version (or the latest) of one server. */
export const getRegistryServer = async (name: string, version: string | undefined, env: Environment): Promise<RegistryEntry & {registry: string}> => {
  const base = registryBase(env)
  const url = `${base}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version ?? 'latest')}`
  let body: unknown
  try {
    body = await getJson(url, env)
  } catch (error) {
    if (error instanceof LoadoutError && error.code === 'url-not-found') {
      throw notFound('mcp-server-not-found', `the MCP Registry at ${base} has no server "${name}"${version ? ` at version ${version}` : ''}`, {
        suggestions: [`search for it: loadout mcp search ${name.split('/').pop()}`],
      })
    }
    throw error
  }
  const entry = readEntry(body)
  if (!entry) throw badAnswer(url, 'no usable server')
  if (entry.server.name !== name) throw badAnswer(url, `another server ("${entry.server.name}")`)
  if (version !== undefined && entry.server.version !== version) throw badAnswer(url, `version ${entry.server.version}, not ${version}`)
  return {...entry, registry: base}
}
