import type {Policy} from '../../model/policy.js'

/** A plugin policy `require` names that is not installed, or not at a version its range allows. */
export interface RequireGap {
  plugin: string
  /** the range asked for */
  version?: string
  /** the version installed, when one is */
  installed?: string
  why: 'missing' | 'too-old'
  /** the policy file the rule comes from */
  file: string
}

export const describeGap = (gap: RequireGap): string =>
  gap.why === 'missing'
    ? `${gap.plugin}${gap.version ? ` (${gap.version})` : ''} is required by policy and not installed`
    : `${gap.plugin} ${gap.installed ?? '(unversioned)'} is installed, and policy requires ${gap.version}`

/**
 * The `require` rules that what is installed does not meet. A plugin installed in either scope
 * counts; its version must satisfy every range asked for it (an unversioned install satisfies none).
 */
export const requireGaps = async (policy: Policy, installed: ReadonlyArray<{plugin: string; version?: string}>): Promise<RequireGap[]> => {
  if (policy.require.length === 0) return []
  const semver = (await import('semver')).default
  const gaps: RequireGap[] = []
  for (const rule of policy.require) {
    const found = installed.filter((i) => i.plugin === rule.plugin)
    if (found.length === 0) {
      gaps.push({plugin: rule.plugin, ...(rule.version ? {version: rule.version} : {}), why: 'missing', file: rule.from})
      continue
    }
    if (!rule.version) continue
    const fits = found.some((i) => i.version !== undefined && semver.valid(i.version) !== null && semver.satisfies(i.version, rule.version!))
    if (!fits) {
      const version = found.find((i) => i.version)?.version
      gaps.push({plugin: rule.plugin, version: rule.version, ...(version ? {installed: version} : {}), why: 'too-old', file: rule.from})
    }
  }
  return gaps
}
