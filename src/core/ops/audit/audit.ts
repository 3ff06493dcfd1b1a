import type {Environment} from '../../kernel/env/environment.js'
import {verifyInstalled, type VerifyResult} from '../install/verify.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords} from '../../kernel/state/records.js'
import {loadTargets} from '../../kernel/targets/registry.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import {filesBelow, hiddenInNames, scanFile, type HiddenTextFinding} from '../../kernel/plugin/scan.js'
import {policyBreaks, type PolicyBreak} from './policy-breaks.js'
import {unsignedSources, type UnsignedSource} from './unsigned.js'

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
  /** installed plugins and marketplaces that their marketplace's keys or policy requireSigned want signed, with no signer recorded */
  unsigned: UnsignedSource[]
}

/**
 * The hidden-text check over everything installed (every file loadout recorded, and every file of
 * each installed plugin copy: scripts, hook commands, files without an extension) and over every file
 * in every agent's skill and subagent folders, hand-made ones included; then `verify`. Every text
 * file is read whole, whatever its name; a binary file (a NUL in its first bytes) is skipped. A plugin
 * installed with `--allow-hidden-text` is reported like any other.
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
  const files = new Set<string>(records.flatMap((r) => r.files.map((f) => f.path)))
  const copies = [...new Set(records.flatMap((r) => (r.pluginRoot ? [r.pluginRoot] : [])))]
  for (const folder of [...folders, ...copies]) for (const file of filesBelow(folder)) files.add(file)
  const sorted = [...files].sort()
  const findings = [...hiddenInNames(sorted, '/'), ...sorted.flatMap((file) => scanFile(file, true))]
  const verify = await verifyInstalled(env, context.projectRoot, scope ? {scope} : {})
  // `require` is judged on every install, whichever scope is audited: a user-scope install serves the project too
  const policy = await policyBreaks(env, context.projectRoot, records, scope ? readInstallRecords(env, context.projectRoot) : records)
  const unsigned = unsignedSources(env, context.projectRoot, records)
  return {
    ok: findings.length === 0 && verify.ok && policy.length === 0 && unsigned.length === 0,
    scanned: sorted.length,
    folders,
    findings,
    verify,
    policy,
    unsigned,
  }
}
