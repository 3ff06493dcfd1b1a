import {EXIT, LoadoutError} from '../../model/errors.js'
import type {PluginFetchSpec} from '../../model/source.js'
import {fetchSpecKinds} from '../sources/kinds/index.js'
import type {McpServerConfig, PluginModel} from '../../model/plugin.js'
import {globMatches} from './glob.js'
import {hostMatches, type SourceHost} from './hosts.js'
import type {AllowList, BlockPattern, Policy} from '../../model/policy.js'

export interface PolicyRefusal {
  /** the rule, as its key is written in the file: `sources.allow`, `hooks`, ... */
  rule: string
  /** the policy file the rule comes from */
  file: string
  /** what was refused: a host, a name, a command */
  subject: string
}

export const policyRefused = (what: string, refusal: PolicyRefusal, why: string) =>
  new LoadoutError('policy-refused', EXIT.policy, `refused by policy: ${what}: ${why} (rule ${refusal.rule} in ${refusal.file})`, {
    suggestions: [
      'see the effective policy and where each rule comes from: loadout policy show',
      'a later policy file cannot loosen an earlier one: ask whoever manages that file',
    ],
    details: refusal,
  })

/** The first rule of a chain of allow lists and blocks that refuses `subject`, if any. */
const refusalBy = (
  allow: readonly AllowList[],
  block: readonly BlockPattern[],
  rule: string,
  subject: string,
  matches: (pattern: string) => boolean,
): {refusal: PolicyRefusal; why: string} | undefined => {
  const blocked = block.find((b) => matches(b.pattern))
  if (blocked) return {refusal: {rule: `${rule}.block`, file: blocked.from, subject}, why: `"${subject}" matches the blocked "${blocked.pattern}"`}
  const unlisted = allow.find((list) => !list.patterns.some(matches))
  if (unlisted)
    return {
      refusal: {rule: `${rule}.allow`, file: unlisted.from, subject},
      why: `"${subject}" is not in the allowed ${unlisted.patterns.map((p) => `"${p}"`).join(', ') || '(nothing)'}`,
    }
  return undefined
}

export const checkSourceHost = (policy: Policy, host: SourceHost, what: string): void => {
  const found = refusalBy(policy.sources.allow, policy.sources.block, 'sources', host.subject, (p) => hostMatches(p, host))
  if (found) throw policyRefused(what, found.refusal, found.why)
}

export const checkMarketplaceName = (policy: Policy, name: string, what = `marketplace "${name}"`): void => {
  const found = refusalBy(policy.marketplaces.allow, policy.marketplaces.block, 'marketplaces', name, (p) => globMatches(p, name))
  if (found) throw policyRefused(what, found.refusal, found.why)
}

export const checkPluginId = (policy: Policy, id: string): void => {
  const found = refusalBy([], policy.plugins.block, 'plugins', id, (p) => globMatches(p, id))
  if (found) throw policyRefused(id, found.refusal, found.why)
}

/** A commit or a digest named by the source itself (a folder of a git marketplace: its recorded commit). */
export const isPinned = (spec: PluginFetchSpec): boolean => fetchSpecKinds[spec.kind].pinned(spec as never)

export const checkPinned = (policy: Policy, spec: PluginFetchSpec, what: string): void => {
  if (!policy.requirePinned || isPinned(spec)) return
  throw policyRefused(what, {rule: 'requirePinned', file: policy.requirePinned.from, subject: spec.label}, `its source ${spec.label} names no commit or sha256`)
}

/**
 * `requireSigned`: a source from a listed host, or of a listed marketplace, must have keys to be
 * checked against. With keys, the check itself (exit 7) happens wherever the commit is read.
 */
export const checkSignedRequired = (policy: Policy, host: SourceHost, marketplace: string | undefined, hasKeys: boolean, what: string): void => {
  if (hasKeys) return
  const byHost = policy.requireSigned.hosts.find((p) => hostMatches(p.pattern, host))
  const byMarket = marketplace === undefined ? undefined : policy.requireSigned.marketplaces.find((p) => globMatches(p.pattern, marketplace))
  const rule = byHost
    ? {rule: 'requireSigned.hosts', found: byHost, subject: host.subject}
    : byMarket
      ? {rule: 'requireSigned.marketplaces', found: byMarket, subject: marketplace!}
      : undefined
  if (!rule) return
  throw policyRefused(
    what,
    {rule: rule.rule, file: rule.found.from, subject: rule.subject},
    `"${rule.subject}" matches "${rule.found.pattern}", which must be signed, and no key is declared to check it (marketplace add --signed-by)`,
  )
}

/** `requireProvenance`: an npm package must carry registry signatures and an attestation that checked. */
export const checkProvenance = (policy: Policy, provenance: {signatures: string; attestations: string}, what: string): void => {
  if (!policy.requireProvenance) return
  const missing = [provenance.signatures === 'verified' ? '' : 'registry signatures', provenance.attestations === 'verified' ? '' : 'a provenance attestation']
    .filter(Boolean)
    .join(' and ')
  if (!missing) return
  throw policyRefused(
    what,
    {rule: 'requireProvenance', file: policy.requireProvenance.from, subject: what},
    `it has no ${missing} that checked against the registry's keys`,
  )
}

const isStdio = (config: McpServerConfig): boolean => config.type === 'stdio' || (config.type === undefined && config.command !== undefined)

/** What an `mcp.allow` glob is matched against: the URL, or the command alone and with its arguments. */
const mcpSubjects = (config: McpServerConfig): string[] =>
  config.url !== undefined ? [config.url] : config.command !== undefined ? [config.command, [config.command, ...(config.args ?? [])].join(' ')] : []

/** The parts a policy forbids (hooks, exec tools, local MCP servers, MCP servers not allowed). */
export const checkParts = (policy: Policy, model: PluginModel, id: string): void => {
  if (policy.hooks && model.hooks.length > 0) {
    const events = [...new Set(model.hooks.flatMap((h) => Object.keys(h.events)))]
    throw policyRefused(
      id,
      {rule: 'hooks', file: policy.hooks.from, subject: id},
      `it has hooks (${events.join(', ') || model.hooks.map((h) => h.name).join(', ')}) and hooks are not allowed`,
    )
  }
  if (policy.tools && model.tools.length > 0) {
    throw policyRefused(
      id,
      {rule: 'tools', file: policy.tools.from, subject: id},
      `it has exec tools (${model.tools.map((t) => t.name).join(', ')}) and tools are not allowed`,
    )
  }
  for (const server of model.mcpServers) checkMcpServer(policy, server.name, server.config, id)
}

/** One MCP server against `mcp.stdio` and `mcp.allow` (a plugin's, or one installed on its own). */
export const checkMcpServer = (policy: Policy, name: string, config: McpServerConfig, id: string): void => {
  if (policy.mcp.stdio && isStdio(config)) {
    throw policyRefused(
      id,
      {rule: 'mcp.stdio', file: policy.mcp.stdio.from, subject: name},
      `MCP server "${name}" runs a local command (${config.command ?? ''}) and local MCP servers are not allowed`,
    )
  }
  const subjects = mcpSubjects(config)
  const unlisted = policy.mcp.allow.find((list) => !list.patterns.some((p) => subjects.some((s) => globMatches(p, s))))
  if (unlisted) {
    throw policyRefused(
      id,
      {rule: 'mcp.allow', file: unlisted.from, subject: subjects.at(-1) ?? name},
      `MCP server "${name}" (${subjects.at(-1) ?? 'no command or URL'}) is not in the allowed ${unlisted.patterns.map((p) => `"${p}"`).join(', ')}`,
    )
  }
}
