import {Flags} from '@oclif/core'
import {auditInstalled, type AuditResult} from '../core/ops/audit/audit.js'
import {EXIT, LoadoutError} from '../core/model/errors.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {renderAudit} from '../ui/render/audit.js'
import {writeStderr} from '../ui/safe-text.js'

export default class Audit extends LoadoutCommand {
  static override summary =
    'Look for hidden characters (Unicode tags, bidi controls, zero-width) in every installed file and every skill and subagent in the agent folders, then verify'
  static override examples = ['<%= config.bin %> audit', '<%= config.bin %> audit --scope user --json']
  static override flags = {scope: Flags.string({char: 's', description: 'only this scope (default: both)', options: ['user', 'project']})}

  async run(): Promise<AuditResult> {
    const {flags} = await this.parse(Audit)
    const env = this.environment()
    const result = await auditInstalled(env, resolveScope(flags.scope, env), flags.scope as 'user' | 'project' | undefined)
    if (!result.ok) {
      if (!this.jsonEnabled()) writeStderr(renderAudit(result))
      if (result.findings.length > 0) {
        throw new LoadoutError(
          'hidden-text-found',
          EXIT.validation,
          `${result.findings.length} hidden character(s) in ${new Set(result.findings.map((f) => f.file)).size} file(s) agents read`,
          {
            details: result,
            suggestions: ['remove them (cat -A shows where), or uninstall the plugin that wrote the file'],
          },
        )
      }
      throw new LoadoutError('verify-failed', EXIT.integrity, 'some installed files or config entries are missing, changed or added', {
        details: result,
        suggestions: ['reinstall with: loadout install <plugin> --force'],
      })
    }
    this.log(renderAudit(result))
    return result
  }
}
