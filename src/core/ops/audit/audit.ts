import type {Environment} from '../../kernel/env/environment.js'
import {verifyInstalled, type VerifyResult} from '../install/verify.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {loadTargets} from '../../kernel/targets/registry.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import {filesBelow, scanFile, type HiddenTextFinding} from '../../kernel/plugin/scan.js'
import {policyBreaks, type PolicyBreak} from './policy-breaks.js'

export interface AuditResult {
  ok: boolean
  /** every text file read */
  scanned: number
  /** the agent folders walked (skills and subagents of every known agent, in the scopes asked for) */
  folders: string[]
  findings: HiddenTextFinding[]
  verify: VerifyResult
  /** what the policy in force refuses among what is installed, and the plugins it requires that are missing or too old */
  policy: PolicyBreak[]
}

/** Files agents read as text: instructions, manifests, subagent definitions. */
const isAgentText = (name: string): boolean => /\.(?:md|mdc|markdown|txt|json|jsonc|toml|ya?ml)$/i.test(name)

/**
 * The hidden-text check over everything installed (every file loadout recorded) and over every
 * skill and subagent file in every agent's folders, hand-made ones included; then `verify`.
 */
export const auditInstalled = async (env: Environment, context: ScopeContext, scope?: Scope): Promise<AuditResult> => {
  const scopes: Scope[] = scope ? [scope] : ['user', 'project']
  const records = readInstallRecords(env, context.projectRoot).filter((r) => scopes.includes(r.scope))
  const targets = await loadTargets()
  const folders = [
    ...new Set(
      targets.flatMap((t) =>
        (['skills', 'subagents'] as const).flatMap((section) => sectionLocations(t, section, env, context, scopes).map((l) => l.absolute)),
      ),
    ),
  ].sort()
  const files = new Set<string>(records.flatMap((r) => r.files.map((f) => f.path)).filter((p) => isAgentText(p)))
  for (const folder of folders) for (const file of filesBelow(folder, isAgentText)) files.add(file)
  const sorted = [...files].sort()
  const findings = sorted.flatMap(scanFile)
  const verify = await verifyInstalled(env, context.projectRoot, scope ? {scope} : {})
  // `require` is judged on every install, whichever scope is audited: a user-scope install serves the project too
  const policy = await policyBreaks(env, context.projectRoot, records, scope ? readInstallRecords(env, context.projectRoot) : records)
  return {ok: findings.length === 0 && verify.ok && policy.length === 0, scanned: sorted.length, folders, findings, verify, policy}
}
