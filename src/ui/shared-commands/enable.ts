import {changeParts, enablePlugin} from '../../core/ops/install/enable.js'
import type {InstallResult} from '../../core/ops/install/install.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {agentIds} from '../agent-ids.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {PART_FLAGS, partsFrom} from '../parts-flags.js'
import {renderInstalled} from '../render/install.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {...WRITER_FLAGS, ...PART_FLAGS},
  args: {name: 'plugin', description: 'plugin@marketplace', required: true},
} as const

export const enable = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<InstallResult> => {
    const {env} = io
    const plugin = argv[0]!
    const agents = agentIds(flags.agent)
    // as oclif hands them over: a flag not given is undefined (the result echoes dryRun only when given)
    const options = {env, context: resolveScope(flags.scope, env), yes: flags.yes as boolean, dryRun: flags['dry-run'] as boolean, ...(agents ? {agents} : {})}
    const parts = partsFrom(flags)
    const result = parts ? await changeParts(plugin, {on: parts}, options) : await enablePlugin(plugin, options)
    io.log(renderInstalled(result))
    return result
  },
  {requests: true},
)
