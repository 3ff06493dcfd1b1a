import {globWithin} from './glob.js'
import type {AllowList, BlockPattern, FlagRule, Policy, PolicyFile} from '../../model/policy.js'

/**
 * Adds one file to the policy so far. Allow lists chain (a later list may only narrow: each of its
 * patterns must lie within the list before), blocks add up, `false` for hooks/tools/mcp.stdio and
 * `true` for requirePinned stick. A key that would loosen is ignored with a warning.
 */
export const mergePolicy = (policy: Policy, file: PolicyFile, from: string, caselessSources = true): Policy => {
  const next: Policy = {
    ...policy,
    sources: {allow: [...policy.sources.allow], block: [...policy.sources.block]},
    marketplaces: {allow: [...policy.marketplaces.allow], block: [...policy.marketplaces.block]},
    plugins: {block: [...policy.plugins.block]},
    mcp: {...policy.mcp, allow: [...policy.mcp.allow]},
    requireSigned: {hosts: [...policy.requireSigned.hosts], marketplaces: [...policy.requireSigned.marketplaces]},
    warnings: [...policy.warnings],
  }
  const warn = (rule: string, message: string) => next.warnings.push({file: from, rule, message})
  const allow = (rule: string, chain: AllowList[], patterns: string[] | undefined, caseless: boolean) => {
    if (patterns === undefined) return
    const last = chain.at(-1)
    const wider = last ? patterns.filter((p) => !last.patterns.some((q) => globWithin(p, q, caseless))) : []
    if (last && wider.length > 0) {
      warn(rule, `ignored: ${wider.map((p) => `"${p}"`).join(', ')} would allow more than ${last.from} does`)
      return
    }
    chain.push({patterns: [...patterns], from})
  }
  const block = (list: BlockPattern[], patterns: string[] | undefined) => {
    for (const pattern of patterns ?? []) if (!list.some((b) => b.pattern === pattern)) list.push({pattern, from})
  }
  const forbid = (rule: string, value: boolean | undefined, current: FlagRule | undefined, forbidding: boolean): FlagRule | undefined => {
    if (value === undefined) return current
    if (value === forbidding) return current ?? {from}
    if (current) warn(rule, `ignored: ${current.from} sets ${rule} to ${String(forbidding)}, and a later file cannot loosen it`)
    return current
  }
  allow('sources.allow', next.sources.allow, file.sources?.allow, caselessSources)
  block(next.sources.block, file.sources?.block)
  allow('marketplaces.allow', next.marketplaces.allow, file.marketplaces?.allow, false)
  block(next.marketplaces.block, file.marketplaces?.block)
  block(next.plugins.block, file.plugins?.block)
  allow('mcp.allow', next.mcp.allow, file.mcp?.allow, false)
  const hooks = forbid('hooks', file.hooks, policy.hooks, false)
  const tools = forbid('tools', file.tools, policy.tools, false)
  const stdio = forbid('mcp.stdio', file.mcp?.stdio, policy.mcp.stdio, false)
  const pinned = forbid('requirePinned', file.requirePinned, policy.requirePinned, true)
  const provenance = forbid('requireProvenance', file.requireProvenance, policy.requireProvenance, true)
  block(next.requireSigned.hosts, file.requireSigned?.hosts)
  block(next.requireSigned.marketplaces, file.requireSigned?.marketplaces)
  if (hooks) next.hooks = hooks
  if (tools) next.tools = tools
  if (stdio) next.mcp.stdio = stdio
  if (pinned) next.requirePinned = pinned
  if (provenance) next.requireProvenance = provenance
  return next
}
