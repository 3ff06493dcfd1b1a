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
  /** a version or commit younger than this ("7d", "12h", "30m", "2w") is not taken by `update` or a range */
  minimumReleaseAge?: string
  /** true: the lock never moves to an older version, or to a commit that does not descend from the locked one */
  noDowngrade?: boolean
  /** plugins every project must have, at a minimum version */
  require?: RequiredPluginRule[]
}

export interface RequiredPluginRule {
  /** plugin@marketplace */
  plugin: string
  /** a semver range the installed version must satisfy (">=1.2.0"); absent: any version */
  version?: string
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
  /** the longest `minimumReleaseAge` of the chain, in milliseconds */
  minimumReleaseAge?: {text: string; ms: number; from: string}
  noDowngrade?: FlagRule
  /** every file's `require` entries: all of them hold */
  require: Array<RequiredPluginRule & {from: string}>
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
  require: [],
  warnings: [],
})

const AGE_UNITS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000}

/** "7d" as milliseconds; undefined for anything else (the schema allows only <n>m, <n>h, <n>d, <n>w). */
export const releaseAgeMs = (text: string): number | undefined => {
  const match = /^(\d{1,6})([mhdw])$/.exec(text)
  return match ? Number(match[1]) * AGE_UNITS[match[2]!]! : undefined
}

/** A duration as a person reads it: "3d 4h", "59m". */
export const describeAge = (ms: number): string => {
  const minutes = Math.max(0, Math.floor(ms / 60_000))
  const [d, h, m] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60]
  return [d ? `${d}d` : '', h ? `${h}h` : '', !d && (m || !h) ? `${m}m` : ''].filter(Boolean).join(' ')
}
