import {Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../core/model/errors.js'
import {runDoctor, type DoctorReport} from '../core/ops/maintenance/doctor.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {renderDoctor} from '../ui/render/maintenance.js'
import {writeStderr} from '../ui/safe-text.js'

export default class Doctor extends LoadoutCommand {
  static override summary = 'Check the setup: git and Node, each detected agent’s folders and config files, interrupted installs, records, caches'
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --fix --json']
  static override flags = {
    fix: Flags.boolean({description: 'finish or roll back an interrupted install and remove caches nothing uses'}),
  }

  async run(): Promise<DoctorReport> {
    const {flags} = await this.parse(Doctor)
    const env = this.environment()
    const report = await runDoctor(env, resolveScope(undefined, env), {fix: flags.fix})
    if (!report.ok) {
      if (!this.jsonEnabled()) writeStderr(renderDoctor(report))
      const errors = report.checks.filter((c) => c.status === 'error')
      throw new LoadoutError('doctor-found-problems', EXIT.validation, `doctor found ${errors.length} problem${errors.length === 1 ? '' : 's'}`, {
        details: report,
        suggestions: [...new Set(errors.flatMap((c) => (c.suggestion ? [c.suggestion] : [])))],
      })
    }
    this.log(renderDoctor(report))
    return report
  }
}
