import {changeParts} from '../../core/ops/install/enable.js'
import type {InstallResult} from '../../core/ops/install/install.js'
import {removeInstalled, type RemovalResult} from '../../core/ops/install/remove.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {agentIds} from '../agent-ids.js'
import {AGENT_FLAG, DRY_RUN_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {PART_FLAGS, partsFrom} from '../parts-flags.js'
import {renderInstalled, renderRemoved} from '../render/install.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {agent: AGENT_FLAG, scope: SCOPE_FLAG, 'dry-run': DRY_RUN_FLAG, ...PART_FLAGS},
  args: {name: 'plugin', description: 'plugin@marketplace', required: true},
} as const

export const disable = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<RemovalResult | InstallResult> => {
    const {env} = io
    const plugin = argv[0]!
    const agents = agentIds(flags.agent)
    const context = resolveScope(flags.scope, env)
    // as oclif hands it over: undefined when not given (the result echoes dryRun only when given)
    const dryRun = flags['dry-run'] as boolean
    const parts = partsFrom(flags)
    if (parts) {
      const result = await changeParts(plugin, {off: parts}, {env, context, yes: false, dryRun, ...(agents ? {agents} : {})})
      io.log(renderInstalled(result))
      return result
    }
    const result = await removeInstalled(plugin, env, context, {force: false, dryRun, keepRecord: true, ...(agents ? {agents} : {})})
    io.log(renderRemoved(result, 'disable'))
    return result
  },
  // the parts written back come from the installed copy; what they point at may be judged by policy
  {requests: true},
)
