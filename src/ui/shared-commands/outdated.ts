import {findOutdated, type OutdatedResult} from '../../core/ops/update/outdated.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {withProgress} from '../progress.js'
import {renderOutdated} from '../render/update.js'
import {settlePending} from '../settle.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {},
  args: {name: 'plugin', description: 'plugins to check (default: all installed)', variadic: true},
} as const

export const outdated = sharedCommand(
  spec,
  async ({argv}, io): Promise<OutdatedResult> => {
    const {env} = io
    await settlePending(io)
    const result = await withProgress(!io.json, () => findOutdated(env, resolveScope(undefined, env), argv))
    io.log(renderOutdated(result))
    return result
  },
  {requests: true},
)
