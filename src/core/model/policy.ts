/** A policy file as written (checked against registry/schemas/policy.schema.json). */
export interface PolicyFile {
  sources?: {allow?: string[]; block?: string[]}
  marketplaces?: {allow?: string[]; block?: string[]}
  plugins?: {block?: string[]}
  hooks?: boolean
  mcp?: {stdio?: boolean; allow?: string[]}
  tools?: boolean
  requirePinned?: boolean
  /** sources that must be signed by a declared key: globs over host[:port] and over marketplace names */
  requireSigned?: {hosts?: string[]; marketplaces?: string[]}
  /** true: every npm package carries registry signatures and a provenance attestation that check */
  requireProvenance?: boolean
}

export type PolicyLevel = 'system' | 'user' | 'project'

export interface PolicySourceFile {
  level: PolicyLevel
  path: string
  present: boolean
}

/** One allow list of the chain: a subject must match a pattern of every list. */
export interface AllowList {
  patterns: string[]
  from: string
}

export interface BlockPattern {
  pattern: string
  from: string
}

/** A rule that forbids (hooks, tools, mcp.stdio false) or demands (requirePinned true), and its file. */
export interface FlagRule {
  from: string
}

/** The effective policy: the files in order, merged so that each only tightens. */
export interface Policy {
  files: PolicySourceFile[]
  sources: {allow: AllowList[]; block: BlockPattern[]}
  marketplaces: {allow: AllowList[]; block: BlockPattern[]}
  plugins: {block: BlockPattern[]}
  /** present when hooks are forbidden */
  hooks?: FlagRule
  mcp: {stdio?: FlagRule; allow: AllowList[]}
  tools?: FlagRule
  requirePinned?: FlagRule
  /** hosts and marketplaces whose sources must be signed (patterns add up, file by file) */
  requireSigned: {hosts: BlockPattern[]; marketplaces: BlockPattern[]}
  requireProvenance?: FlagRule
  /** keys a later file tried to loosen, ignored */
  warnings: PolicyWarning[]
}

export interface PolicyWarning {
  file: string
  rule: string
  message: string
}

export const emptyPolicy = (files: PolicySourceFile[] = []): Policy => ({
  files,
  sources: {allow: [], block: []},
  marketplaces: {allow: [], block: []},
  plugins: {block: []},
  mcp: {allow: []},
  requireSigned: {hosts: [], marketplaces: []},
  warnings: [],
})
