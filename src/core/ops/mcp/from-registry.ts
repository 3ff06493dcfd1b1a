/**
 * Servers from an MCP Registry: installed pinned to the version the registry names, checked for a
 * newer version by `outdated`, moved to it by `update`, and installed again from a project's lock.
 */
import {environmentWith, type Environment} from '../../kernel/env/environment.js'
import {usageError} from '../../model/errors.js'
import type {InstallOptions, Prepared} from '../install/install.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {installServer, prepareServer, REMOTE_MARK, type McpInstallResult} from './install.js'
import {readServerSpec} from '../../kernel/mcp/model.js'
import {admitRemote} from '../../kernel/policy/gate.js'
import {getRegistryServer, registryBase} from '../../kernel/mcp/registry.js'
import {specFromServerJson, type FromServerJson} from '../../kernel/mcp/server-json.js'
import {declaredLocalSpec, mcpNameOf} from '../../kernel/mcp/spec.js'

/** `io.github.acme/weather` or `io.github.acme/weather@1.4.2`. */
export const parseServerRef = (input: string): {name: string; version?: string} => {
  const at = input.lastIndexOf('@')
  const name = at > 0 ? input.slice(0, at) : input
  const version = at > 0 ? input.slice(at + 1) : undefined
  if (!/^[A-Za-z0-9.-]+\/[A-Za-z0-9._-]+$/.test(name) || version === '') {
    throw usageError('bad-server-ref', `"${input}" is not a registry server name such as io.github.owner/server[@version]`, {
      suggestions: ['find one: loadout mcp search <words>'],
    })
  }
  return {name, ...(version ? {version} : {})}
}

export const installFromRegistry = async (input: string, options: InstallOptions & FromServerJson): Promise<McpInstallResult> => {
  const ref = parseServerRef(input)
  // the policy's source hosts, before the registry is asked anything
  admitRemote(registryBase(options.env), options.env, options.context.projectRoot)
  options.onProgress?.(`asking the MCP Registry for ${ref.name}`)
  const entry = await getRegistryServer(ref.name, ref.version, options.env)
  const spec = specFromServerJson(entry.server, entry.registry, {...(options.name ? {name: options.name} : {}), ...(options.remote ? {remote: true} : {})})
  return installServer(spec, options)
}

/** The parts of an `outdated` row this fills in (kept structural: outdated.ts imports this module). */
interface OutdatedFields {
  wanted: {version?: string}
  latest: {version?: string}
  outdated: boolean
  reason?: string
  error?: string
}

/** Where a recorded registry server came from: the folder it was installed from says. */
const recordedSpec = (record: InstallRecord) => (record.pluginRoot ? readServerSpec(record.pluginRoot) : undefined)

/** Whether the spec was made from a server's remote rather than its package. */
const wasRemote = (config: {url?: string}): boolean => config.url !== undefined

/** `outdated` for a standalone server: a registry one is compared with the registry's latest version. */
export const checkServerOutdated = async (row: OutdatedFields, record: InstallRecord, env: Environment): Promise<void> => {
  try {
    const spec = recordedSpec(record)
    if (!spec || spec.origin.kind !== 'registry') return
    const latest = await getRegistryServer(
      spec.origin.server,
      undefined,
      environmentWith(env, {vars: {...env.vars, LOADOUT_MCP_REGISTRY: spec.origin.registry}}),
    )
    row.latest = {version: latest.server.version}
    row.wanted = row.latest
    if (latest.server.version !== spec.origin.version) {
      row.outdated = true
      row.reason = 'new version'
    }
  } catch (error) {
    row.error = (error as Error).message
  }
}

/** `update` for a standalone server: the registry's latest version, or the same server again. */
export const prepareServerUpdate = async (record: InstallRecord, env: Environment, projectRoot: string): Promise<Prepared> => {
  const spec = recordedSpec(record)
  if (!spec) throw usageError('mcp-record-incomplete', `${record.plugin} has no installed copy to update from; install it again`)
  if (spec.origin.kind !== 'registry') return prepareServer(env, spec, projectRoot)
  const latest = await getRegistryServer(spec.origin.server, undefined, environmentWith(env, {vars: {...env.vars, LOADOUT_MCP_REGISTRY: spec.origin.registry}}))
  const next = specFromServerJson(latest.server, spec.origin.registry, {name: spec.name, ...(wasRemote(spec.config) ? {remote: true} : {})})
  return prepareServer(env, next, projectRoot)
}

/**
 * A server declared in loadout.json: a registry one at the version loadout.lock records (its source
 * URL names registry, server and version), a command-line one from the entry declared with it.
 */
export const prepareDeclaredServer = async (
  id: string,
  declared: {source?: string; server?: unknown},
  env: Environment,
  projectRoot: string,
): Promise<Prepared> => {
  const local = mcpNameOf(id)
  if (declared.source === 'local') return prepareServer(env, declaredLocalSpec(local, declared.server), projectRoot)
  const remote = declared.source?.endsWith(REMOTE_MARK) ?? false
  const source = remote ? declared.source!.slice(0, -REMOTE_MARK.length) : declared.source
  const match = source ? /^(https:\/\/.+)\/v0\.1\/servers\/([^/#]+)\/versions\/([^/#]+)$/.exec(source) : null
  if (!match) {
    throw usageError('mcp-not-reproducible', `${id} is declared in loadout.json without a registry source or a server entry, so it cannot be installed here`, {
      suggestions: ['install it again with loadout mcp install or loadout mcp add in the project scope'],
    })
  }
  const [, registry, name, version] = match
  const entry = await getRegistryServer(
    decodeURIComponent(name!),
    decodeURIComponent(version!),
    environmentWith(env, {vars: {...env.vars, LOADOUT_MCP_REGISTRY: registry}}),
  )
  return prepareServer(env, specFromServerJson(entry.server, registry!, {name: local, ...(remote ? {remote: true} : {})}), projectRoot)
}
