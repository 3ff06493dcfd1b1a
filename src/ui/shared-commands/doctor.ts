import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {runDoctor, type DoctorReport} from '../../core/ops/maintenance/doctor.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {renderDoctor} from '../render/maintenance.js'
import {writeStderr} from '../safe-text.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {fix: {type: 'boolean', description: 'finish or roll back an interrupted install and remove caches nothing uses'}},
} as const

export const doctor = sharedCommand(spec, async ({flags}, io): Promise<DoctorReport> => {
  const {env} = io
  const report = await runDoctor(env, resolveScope(undefined, env), {fix: flags.fix as boolean})
  if (!report.ok) {
    if (!io.json) writeStderr(renderDoctor(report))
    const errors = report.checks.filter((c) => c.status === 'error')
    throw new LoadoutError('doctor-found-problems', EXIT.validation, `doctor found ${errors.length} problem${errors.length === 1 ? '' : 's'}`, {
      details: report,
      suggestions: [...new Set(errors.flatMap((c) => (c.suggestion ? [c.suggestion] : [])))],
    })
  }
  io.log(renderDoctor(report))
  return report
})
