import {diffInstalled, type PluginDiffs} from '../../core/ops/update/diff.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {isOffline, OFFLINE_FLAG, ONE_SCOPE_FLAG} from '../command-spec.js'
import {withProgress} from '../progress.js'
import {renderDiffs} from '../render/review.js'
import {settlePending} from '../settle.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {scope: ONE_SCOPE_FLAG, offline: OFFLINE_FLAG},
  args: {name: 'plugin', description: 'installed plugins to compare with what update would install', variadic: true, required: true},
} as const

export const diff = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<PluginDiffs> => {
    const {env} = io
    await settlePending(io)
    const result = await withProgress(!io.json, () =>
      diffInstalled(argv, {
        env,
        context: resolveScope(flags.scope, env),
        offline: isOffline(flags.offline),
        ...(flags.scope ? {scope: flags.scope as 'user' | 'project'} : {}),
      }),
    )
    io.log(renderDiffs(result))
    return result
  },
  {requests: true},
)
