import {refuseHiddenText} from '../plugin/scan.js'
import type {Environment} from '../env/environment.js'
import {DIRECT, type ResolvedPlugin} from '../resolve/resolve.js'
import type {McpServerConfig, PluginModel} from '../../model/plugin.js'
import {problem} from '../../model/problems.js'
import type {Source} from '../../model/source.js'
import {checkMarketplaceName, checkMcpServer, checkParts, checkPinned, checkPluginId, checkProvenance, checkSignedRequired, checkSourceHost} from './enforce.js'
import {hostOfSource, hostOfSpec, hostOfUrl, type SourceHost} from './hosts.js'
import {loadPolicy} from './load.js'

/**
 * The points where the install pipeline asks the policy, each one call: before a plugin is fetched,
 * once it is read (before anything is planned or written), and before a marketplace is fetched.
 */

/** Before fetching a plugin: its marketplace, its name, its source's host and pin. */
export const admitPluginSource = (resolved: ResolvedPlugin, env: Environment, projectRoot: string): void => {
  const policy = loadPolicy(env, projectRoot)
  const what = resolved.id || resolved.fetch.label
  if (resolved.marketplace !== DIRECT) checkMarketplaceName(policy, resolved.marketplace, `${what} (marketplace "${resolved.marketplace}")`)
  if (resolved.id) checkPluginId(policy, resolved.id)
  const host = hostOfSpec(resolved.fetch)
  checkSourceHost(policy, host, `${what} from ${host.subject}`)
  checkPinned(policy, resolved.fetch, what)
}

export interface AdmitModelOptions {
  env: Environment
  projectRoot: string
  allowHiddenText?: boolean
}

/**
 * Once read: the parts the policy forbids, and hidden text in what the agents will read. A policy
 * file's ignored attempt to loosen becomes a warning of the install.
 */
export const admitPluginModel = (model: PluginModel, id: string, options: AdmitModelOptions): void => {
  const policy = loadPolicy(options.env, options.projectRoot)
  for (const w of policy.warnings) model.problems.push(problem('warning', 'policy-loosening-ignored', `${w.rule} ${w.message}`, {file: w.file}))
  checkPluginId(policy, id)
  checkParts(policy, model, id)
  if (!options.allowHiddenText) refuseHiddenText(model, id)
}

/** Before fetching a marketplace (add or update): its host, and its name when it is known yet. */
export const admitMarketplace = (source: Source, name: string | undefined, env: Environment, projectRoot: string, label: string): void => {
  const policy = loadPolicy(env, projectRoot)
  if (name !== undefined) checkMarketplaceName(policy, name)
  const host = hostOfSource(source, env.vars)
  checkSourceHost(policy, host, `marketplace ${label} from ${host.subject}`)
}

/**
 * `requireSigned`: a marketplace source (add, update) or a plugin source (install) from a host or a
 * marketplace the policy names must come with keys to check its signature against.
 */
export const admitSigning = (
  subject: {source: Source} | {spec: ResolvedPlugin['fetch']},
  marketplace: string | undefined,
  hasKeys: boolean,
  env: Environment,
  projectRoot: string,
  what: string,
): void => {
  const host: SourceHost = 'source' in subject ? hostOfSource(subject.source, env.vars) : hostOfSpec(subject.spec)
  checkSignedRequired(loadPolicy(env, projectRoot), host, marketplace === DIRECT ? undefined : marketplace, hasKeys, what)
}

/** Once an npm package is fetched (before it is read): `requireProvenance`. */
export const admitProvenance = (provenance: {signatures: string; attestations: string}, env: Environment, projectRoot: string, what: string): void =>
  checkProvenance(loadPolicy(env, projectRoot), provenance, what)

/** Before asking a git remote anything (`outdated`'s ls-remote): its host. */
export const admitRemote = (url: string, env: Environment, projectRoot: string): void => {
  const host = hostOfUrl(url)
  checkSourceHost(loadPolicy(env, projectRoot), host, `git remote ${host.subject}`)
}

/**
 * An MCP server installed on its own (`loadout mcp ...`): `mcp.stdio`, `mcp.allow`, and the host of
 * the registry or package URL it comes from, when there is one. Call before fetching or writing.
 */
export const admitMcpServer = (name: string, config: McpServerConfig, env: Environment, projectRoot: string, fromUrl?: string): void => {
  const policy = loadPolicy(env, projectRoot)
  if (fromUrl !== undefined) {
    const host = hostOfUrl(fromUrl)
    checkSourceHost(policy, host, `MCP server "${name}" from ${host.subject}`)
  }
  checkMcpServer(policy, name, config, `MCP server "${name}"`)
}
