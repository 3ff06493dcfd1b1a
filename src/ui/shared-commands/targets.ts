import {resolveScope, SCOPES} from '../../core/kernel/env/scope.js'
import {describeTargets, type TargetsResult} from '../../core/kernel/targets/describe.js'
import {loadTargets, pickTargets} from '../../core/kernel/targets/registry.js'
import {agentIds} from '../agent-ids.js'
import {AGENT_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {renderTargets} from '../render/targets.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    agent: AGENT_FLAG,
    scope: SCOPE_FLAG,
    all: {type: 'boolean', description: 'show the paths of both scopes'},
    detected: {type: 'boolean', description: 'only the agents detected on this machine'},
  },
} as const

export const targets = sharedCommand(spec, async ({flags}, io): Promise<TargetsResult> => {
  const context = resolveScope(flags.scope, io.env)
  const all = await loadTargets()
  const ids = agentIds(flags.agent)
  const chosen = ids ? pickTargets(ids, all) : all
  let described = describeTargets(chosen, io.env, context, flags.all ? SCOPES : [context.scope])
  if (flags.detected) described = described.filter((t) => t.detected)
  const result = {scope: flags.all ? 'all' : context.scope, projectRoot: context.projectRoot, targets: described}
  if (!io.json) io.log(renderTargets(result))
  return result
})
