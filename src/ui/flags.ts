import {Flags} from '@oclif/core'
import {DRY_RUN_FLAG, OFFLINE_FLAG, SCOPE_FLAG, YES_FLAG} from './command-spec.js'
import {oclifFlag} from './oclif-flags.js'

export const scopeFlag = oclifFlag(SCOPE_FLAG)

export const yesFlag = oclifFlag(YES_FLAG)

export const dryRunFlag = oclifFlag(DRY_RUN_FLAG)

export const strictFlag = Flags.boolean({description: 'treat warnings as errors'})

export const offlineFlag = oclifFlag(OFFLINE_FLAG)

export {isOffline} from './command-spec.js'
