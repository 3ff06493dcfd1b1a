import type {Environment} from '../../kernel/env/environment.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import {checkMarketplaceName, checkPluginId, type PolicyRefusal} from '../../kernel/policy/enforce.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {describeGap, requireGaps} from '../../kernel/policy/require.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {isLoadoutError} from '../../model/errors.js'

/** Something installed that the policy in force now refuses, or a plugin it requires that is missing. */
export interface PolicyBreak {
  /** the rule as its key is written: `plugins.block`, `marketplaces.allow`, `require` */
  rule: string
  /** the policy file the rule comes from */
  file: string
  /** the plugin */
  subject: string
  message: string
}

/** Whether `check` refuses, as a break. */
export const refusal = (check: () => void): PolicyBreak | undefined => {
  try {
    check()
    return undefined
  } catch (error) {
    if (!isLoadoutError(error) || error.code !== 'policy-refused') throw error
    const details = error.details as PolicyRefusal
    return {rule: details.rule, file: details.file, subject: details.subject, message: error.message}
  }
}

/**
 * What `audit` reports of the policy: installed plugins whose id or marketplace it blocks now (a
 * policy tightened after the install), and `require` rules that what is installed does not meet.
 */
export const policyBreaks = async (
  env: Environment,
  projectRoot: string,
  records: readonly InstallRecord[],
  everyRecord: readonly InstallRecord[] = records,
): Promise<PolicyBreak[]> => {
  const policy = loadPolicy(env, projectRoot)
  const breaks: PolicyBreak[] = []
  for (const plugin of [...new Set(records.map((r) => r.plugin))].sort()) {
    if (isMcpId(plugin)) continue
    const market = plugin.split('@')[1]!
    const found = refusal(() => checkPluginId(policy, plugin)) ?? (market === DIRECT ? undefined : refusal(() => checkMarketplaceName(policy, market, plugin)))
    if (found) breaks.push(found)
  }
  const installed = everyRecord.map((r) => ({plugin: r.plugin, ...(r.version ? {version: r.version} : {})}))
  for (const gap of await requireGaps(policy, installed)) breaks.push({rule: 'require', file: gap.file, subject: gap.plugin, message: describeGap(gap)})
  return breaks
}
