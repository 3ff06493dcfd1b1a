import {showPolicy, type PolicyShown} from '../../core/kernel/policy/show.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {renderPolicy} from '../render/policy.js'
import {sharedCommand} from './types.js'

export const policyShow = sharedCommand({flags: {}}, async (_input, io): Promise<PolicyShown> => {
  const {env} = io
  const shown = showPolicy(env, resolveScope(undefined, env).projectRoot)
  io.log(renderPolicy(shown))
  return shown
})
