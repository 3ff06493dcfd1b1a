import {auditInstalled, type AuditResult} from '../../core/ops/audit/audit.js'
import {auditToSarif} from '../../core/ops/audit/sarif.js'
import {packageVersion} from '../../core/kernel/env/package-root.js'
import {EXIT, LoadoutError, usageError} from '../../core/model/errors.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {ONE_SCOPE_FLAG} from '../command-spec.js'
import {renderAudit} from '../render/audit.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    scope: ONE_SCOPE_FLAG,
    format: {
      type: 'string',
      char: 'f',
      description: 'sarif: print a SARIF 2.1.0 log on stdout (for code scanning in CI) instead of the report; the exit status is the same',
      options: ['text', 'sarif'],
      default: 'text',
    },
  },
} as const

/** The failure an audit that found something ends with: hidden text first, then verify, then unsigned sources and policy. */
const auditFailure = (result: AuditResult): LoadoutError => {
  if (result.findings.length > 0)
    return new LoadoutError(
      'hidden-text-found',
      EXIT.validation,
      `${result.findings.length} hidden character(s) in ${new Set(result.findings.map((f) => f.file)).size} file(s) agents read`,
      {details: result, suggestions: ['remove them (cat -A shows where), or uninstall the plugin that wrote the file']},
    )
  if (!result.verify.ok)
    return new LoadoutError('verify-failed', EXIT.integrity, 'some installed files or config entries are missing, changed or added', {
      details: result,
      suggestions: ['reinstall with: loadout install <plugin> --force'],
    })
  // keys a marketplace declares are the integrity check install makes (exit 7); requireSigned alone is policy (exit 11)
  if (result.unsigned.some((u) => u.rule === 'signedBy'))
    return new LoadoutError('unsigned-source', EXIT.integrity, result.unsigned.map((u) => u.message).join('; '), {
      details: result,
      suggestions: ['reinstall it so its signature is checked: loadout install <plugin> --force', 'or remove it: loadout uninstall <plugin>'],
    })
  if (result.policy.length === 0)
    return new LoadoutError('unsigned-source', EXIT.policy, `the policy in force is not met: ${result.unsigned.map((u) => u.message).join('; ')}`, {
      details: result,
      suggestions: [
        'add the keys that sign it: loadout marketplace add <source> --signed-by <key file>, then reinstall',
        'see the effective policy: loadout policy show',
      ],
    })
  return new LoadoutError(
    'policy-broken',
    EXIT.policy,
    `the policy in force is not met: ${[...result.policy, ...result.unsigned].map((b) => b.message).join('; ')}`,
    {
      details: result,
      suggestions: ['install what policy requires: loadout install (in the project)', 'see the effective policy: loadout policy show'],
    },
  )
}

export const audit = sharedCommand(
  spec,
  async ({flags}, io): Promise<AuditResult> => {
    if (flags.format === 'sarif' && io.json)
      throw usageError('format-and-json', '--format sarif and --json both print JSON on stdout: choose one', {
        suggestions: ['loadout audit --format sarif', 'loadout audit --json'],
      })
    const {env} = io
    const context = resolveScope(flags.scope, env)
    const result = await auditInstalled(env, context, flags.scope as 'user' | 'project' | undefined)
    if (flags.format === 'sarif') io.log(JSON.stringify(auditToSarif(result, context.projectRoot, packageVersion()), null, 2))
    if (!result.ok) {
      if (!io.json && flags.format !== 'sarif') writeStderr(renderAudit(result))
      throw auditFailure(result)
    }
    if (flags.format !== 'sarif') io.log(renderAudit(result))
    return result
  },
  // what it reads reaches the fetchers' code: any request stays judged by policy, as on oclif's path
  {requests: true},
)
