import type {Environment} from '../env/environment.js'
import {loadPolicy} from './load.js'
import type {Policy, PolicyFile, PolicySourceFile, PolicyWarning} from '../../model/policy.js'

export interface PolicyRuleView {
  rule: string
  value: string[] | boolean
  /** the file the rule comes from */
  file: string
  level: PolicySourceFile['level']
}

export interface PolicyShown {
  files: PolicySourceFile[]
  /** every rule in force, each with the file it comes from (an allow list narrowed later shows each file's list) */
  rules: PolicyRuleView[]
  /** the effective policy in the policy file's own shape */
  effective: PolicyFile
  warnings: PolicyWarning[]
}

/** The effective policy, and for each rule the file it came from. */
export const showPolicy = (env: Environment, projectRoot: string): PolicyShown => {
  const policy = loadPolicy(env, projectRoot)
  return {files: policy.files, rules: rulesOf(policy), effective: effectiveOf(policy), warnings: policy.warnings}
}

const rulesOf = (policy: Policy): PolicyRuleView[] => {
  const level = (file: string) => policy.files.find((f) => f.path === file)?.level ?? 'system'
  const rules: PolicyRuleView[] = []
  const lists = (rule: string, allow: Policy['sources']['allow']) =>
    allow.forEach((l) => rules.push({rule, value: l.patterns, file: l.from, level: level(l.from)}))
  const blocks = (rule: string, block: Policy['sources']['block']) => {
    for (const file of [...new Set(block.map((b) => b.from))])
      rules.push({rule, value: block.filter((b) => b.from === file).map((b) => b.pattern), file, level: level(file)})
  }
  lists('sources.allow', policy.sources.allow)
  blocks('sources.block', policy.sources.block)
  lists('marketplaces.allow', policy.marketplaces.allow)
  blocks('marketplaces.block', policy.marketplaces.block)
  blocks('plugins.block', policy.plugins.block)
  if (policy.hooks) rules.push({rule: 'hooks', value: false, file: policy.hooks.from, level: level(policy.hooks.from)})
  if (policy.mcp.stdio) rules.push({rule: 'mcp.stdio', value: false, file: policy.mcp.stdio.from, level: level(policy.mcp.stdio.from)})
  lists('mcp.allow', policy.mcp.allow)
  if (policy.tools) rules.push({rule: 'tools', value: false, file: policy.tools.from, level: level(policy.tools.from)})
  if (policy.requirePinned) rules.push({rule: 'requirePinned', value: true, file: policy.requirePinned.from, level: level(policy.requirePinned.from)})
  blocks('requireSigned.hosts', policy.requireSigned.hosts)
  blocks('requireSigned.marketplaces', policy.requireSigned.marketplaces)
  if (policy.requireProvenance)
    rules.push({rule: 'requireProvenance', value: true, file: policy.requireProvenance.from, level: level(policy.requireProvenance.from)})
  return rules
}

const effectiveOf = (policy: Policy): PolicyFile => {
  const last = (chain: Policy['sources']['allow']) => chain.at(-1)?.patterns
  const pick = <T extends object>(value: T): T | undefined =>
    Object.values(value).some((v) => v !== undefined) ? (JSON.parse(JSON.stringify(value)) as T) : undefined
  const patterns = (block: Policy['sources']['block']) => (block.length > 0 ? block.map((b) => b.pattern) : undefined)
  const sources = pick({allow: last(policy.sources.allow), block: patterns(policy.sources.block)})
  const marketplaces = pick({allow: last(policy.marketplaces.allow), block: patterns(policy.marketplaces.block)})
  const plugins = pick({block: patterns(policy.plugins.block)})
  const mcp = pick({stdio: policy.mcp.stdio ? false : undefined, allow: last(policy.mcp.allow)})
  const requireSigned = pick({hosts: patterns(policy.requireSigned.hosts), marketplaces: patterns(policy.requireSigned.marketplaces)})
  return {
    ...(sources ? {sources} : {}),
    ...(marketplaces ? {marketplaces} : {}),
    ...(plugins ? {plugins} : {}),
    ...(policy.hooks ? {hooks: false} : {}),
    ...(mcp ? {mcp} : {}),
    ...(policy.tools ? {tools: false} : {}),
    ...(policy.requirePinned ? {requirePinned: true} : {}),
    ...(requireSigned ? {requireSigned} : {}),
    ...(policy.requireProvenance ? {requireProvenance: true} : {}),
  }
}
