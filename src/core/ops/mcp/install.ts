/**
 * Installs a standalone MCP server through the plugin install pipeline: the server becomes a
 * one-server plugin (a folder in the cache holding its `.mcp.json` and what it was made from; never
 * the registry's server.json, whose defaults for secrets are not to be kept) with the id `mcp:<name>@local|registry`, and `installPrepared` plans, consents,
 * applies and records it like any plugin's server, under the server's own name.
 */
import {createHash} from '../../kernel/crypto/node-crypto.js'
import {existsSync, mkdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {failpoint} from '../../kernel/env/failpoint.js'
import {conflict, LoadoutError, needsConsent} from '../../model/errors.js'
import {redactUrl} from '../../kernel/sources/redact.js'
import {stableStringify} from '../../kernel/fs/json.js'
import {installPrepared, type InstallOptions, type InstallResult, type Prepared} from '../install/install.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'
import {pluginFiles} from '../install/plugin-copy.js'
import {readProjectManifest, writeProjectManifest} from '../../kernel/state/marketplaces.js'
import {admitMcpServer} from '../../kernel/policy/gate.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {serverModel, SPEC_FILE} from '../../kernel/mcp/model.js'
import {isMcpId, mcpId, mcpNameOf, type McpServerSpec} from '../../kernel/mcp/spec.js'

export interface McpInstallResult extends InstallResult {
  server: string
  /** variables the user must set in each agent's environment before the server can start */
  requiredEnv: string[]
  notes: string[]
}

/** Where a server came from, as recorded (`source`) and declared in loadout.json. */
export const sourceLabel = (spec: McpServerSpec): string =>
  spec.origin.kind === 'local'
    ? 'local'
    : `${spec.origin.registry}/v0.1/servers/${encodeURIComponent(spec.origin.server)}/versions/${encodeURIComponent(spec.origin.version)}${spec.config.url === undefined ? '' : REMOTE_MARK}`

/** The registry's name of the server a record's `source` says it was installed from (`io.github.acme/weather`), if any. */
export const registryServerOf = (source: string): string | undefined => {
  const match = /\/v0\.1\/servers\/([^/]+)\/versions\//.exec(source)
  if (!match) return undefined
  try {
    return decodeURIComponent(match[1]!)
  } catch {
    return undefined
  }
}

/** Ends the source of a registry server installed from its remote rather than its package. */
export const REMOTE_MARK = '#remote'

/** Writes the server's folder once per content (named by its hash) and returns it. */
const serverFolder = (env: Environment, spec: McpServerSpec): string => {
  const content = {name: spec.name, config: spec.config, origin: spec.origin, requiredEnv: spec.requiredEnv, notes: spec.notes}
  const digest = createHash('sha256').update(stableStringify(content)).digest('hex').slice(0, 32)
  const dir = join(loadoutPaths(env).cache, 'mcp', digest)
  if (existsSync(join(dir, SPEC_FILE))) return dir
  const staging = `${dir}.stage-${process.pid}`
  rmSync(staging, {recursive: true, force: true})
  mkdirSync(staging, {recursive: true})
  writeFileSync(join(staging, SPEC_FILE), stableStringify(content))
  writeFileSync(join(staging, '.mcp.json'), stableStringify({mcpServers: {[spec.name]: spec.config}}))
  failpoint('mcp.folder-staged')
  rmSync(dir, {recursive: true, force: true})
  renameSync(staging, dir)
  return dir
}

/** A server spec as a prepared one-server plugin. */
export const prepareServer = async (env: Environment, spec: McpServerSpec, projectRoot: string): Promise<Prepared> => {
  // the policy's mcp.stdio, mcp.allow and source hosts, before anything is written
  admitMcpServer(spec.name, spec.config, env, projectRoot, spec.origin.kind === 'registry' ? spec.origin.registry : undefined)
  const root = serverFolder(env, spec)
  const id = mcpId(spec.name, spec.origin)
  const version = spec.origin.kind === 'registry' ? spec.origin.version : undefined
  const model = serverModel(spec, root)
  const label = sourceLabel(spec)
  const files = await pluginFiles(root)
  return {
    // DIRECT: a project declares the server with its source, which says where to get it again
    resolved: {id, name: spec.name, marketplace: DIRECT, ...(version ? {version} : {}), fetch: {kind: 'folder', path: root, label}},
    fetched: {root, integrity: files.integrity, files},
    model,
    id,
    files,
  }
}

/** A command-line server has no source to fetch again: the project declares its entry with it. */
const declareLocalServer = (projectRoot: string, id: string, spec: McpServerSpec): void => {
  const manifest = readProjectManifest(projectRoot)
  const plugins = {...((manifest.plugins as Record<string, Record<string, unknown>> | undefined) ?? {})}
  plugins[id] = {...plugins[id], source: 'local', server: spec.config}
  manifest.plugins = plugins
  writeProjectManifest(projectRoot, manifest)
}

/** Another standalone server of the same name (added where one was installed, or the other way round) is a conflict. */
const checkNameFree = (id: string, spec: McpServerSpec, options: InstallOptions): void => {
  const other = readInstallRecords(options.env, options.context.projectRoot).find(
    (r) =>
      isMcpId(r.plugin) &&
      r.plugin !== id &&
      mcpNameOf(r.plugin) === spec.name &&
      r.scope === options.context.scope &&
      options.targets.some((t) => t.id === r.target),
  )
  if (other) {
    throw conflict('mcp-name-taken', `MCP server "${spec.name}" is already installed as ${other.plugin} for ${other.target} (${other.scope} scope)`, {
      suggestions: [`remove it first: loadout mcp remove ${spec.name}`, 'or give this one another name'],
    })
  }
}

export const installServer = async (spec: McpServerSpec, options: InstallOptions): Promise<McpInstallResult> => {
  const prepared = await prepareServer(options.env, spec, options.context.projectRoot)
  checkNameFree(prepared.id, spec, options)
  try {
    const result = await installPrepared(prepared, options)
    if (result.status === 'installed' && options.context.scope === 'project' && spec.origin.kind === 'local')
      declareLocalServer(options.context.projectRoot, prepared.id, spec)
    return {...result, server: spec.name, requiredEnv: spec.requiredEnv, notes: spec.notes}
  } catch (error) {
    if (error instanceof LoadoutError && error.code === 'mcp-key-taken') {
      throw conflict('mcp-key-taken', error.message, {
        suggestions: [`install it under another name: --name ${spec.name}-2`, 'or remove the other entry first (loadout mcp list shows whose it is)'],
      })
    }
    if (error instanceof LoadoutError && error.code === 'consent-needed') {
      throw needsConsent(
        'consent-needed',
        `MCP server "${spec.name}" ${spec.config.url ? `connects to ${redactUrl(spec.config.url)}` : 'runs a command on this machine'} and needs your approval`,
        {
          suggestions: ['run it on a terminal to review and approve, or pass --yes to approve', 'see what it runs: add --dry-run'],
          details: error.details,
        },
      )
    }
    throw error
  }
}
