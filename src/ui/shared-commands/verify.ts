import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {verifyInstalled, type VerifyResult} from '../../core/ops/install/verify.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {renderVerify} from '../render/installed.js'
import {settlePending} from '../settle.js'
import {sharedCommand} from './types.js'
import {writeStderr} from '../safe-text.js'

const spec = {
  flags: {scope: {type: 'string', char: 's', description: 'only this scope', options: ['user', 'project']}},
  args: {name: 'plugin', description: 'plugins to check (default: all)', variadic: true},
} as const

export const verify = sharedCommand(spec, async ({flags, argv}, io): Promise<VerifyResult> => {
  const context = resolveScope(flags.scope, io.env)
  const {pending} = await settlePending(io)
  if (pending) {
    throw new LoadoutError(
      'run-pending',
      EXIT.locked,
      `cannot verify now: ${pending.label} is ${pending.running ? `in progress (pid ${pending.pid})` : 'pending'}`,
      {
        details: {pending},
        suggestions: ['run loadout verify again when it has finished'],
      },
    )
  }
  const result = await verifyInstalled(io.env, context.projectRoot, {plugins: argv, ...(flags.scope ? {scope: flags.scope as 'user' | 'project'} : {})})
  if (!result.ok) {
    if (!io.json) writeStderr(renderVerify(result))
    throw new LoadoutError('verify-failed', EXIT.integrity, 'some installed files or config entries are missing, changed or added', {
      details: result,
      suggestions: ['reinstall with: loadout install <plugin> --force'],
    })
  }
  if (!io.json) io.log(renderVerify(result))
  return result
})
