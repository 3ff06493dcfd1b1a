import {AGENT_FLAG, ALLOW_HIDDEN_TEXT_FLAG, DRY_RUN_FLAG, OFFLINE_FLAG, SCOPE_FLAG, YES_FLAG} from './command-spec.js'
import {oclifFlag} from './oclif-flags.js'

export const agentFlag = oclifFlag(AGENT_FLAG)

export const scopeFlag = oclifFlag(SCOPE_FLAG)

export const yesFlag = oclifFlag(YES_FLAG)

export const dryRunFlag = oclifFlag(DRY_RUN_FLAG)

export const offlineFlag = oclifFlag(OFFLINE_FLAG)

export const allowHiddenTextFlag = oclifFlag(ALLOW_HIDDEN_TEXT_FLAG)

export {isOffline} from './command-spec.js'
