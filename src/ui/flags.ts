import {Flags} from '@oclif/core'
import {AGENT_FLAG, SCOPE_FLAG} from './command-spec.js'
import {oclifFlag} from './oclif-flags.js'

export const agentFlag = oclifFlag(AGENT_FLAG)

export const scopeFlag = oclifFlag(SCOPE_FLAG)

export const yesFlag = Flags.boolean({char: 'y', description: 'answer yes to every question (needed when not on a terminal)'})

export const dryRunFlag = Flags.boolean({description: 'show what would change without changing anything'})

export const strictFlag = Flags.boolean({description: 'treat warnings as errors'})

export const offlineFlag = Flags.boolean({description: 'use only what is cached (also LOADOUT_OFFLINE=1)'})

export const allowHiddenTextFlag = Flags.boolean({description: 'install even when text the agents read hides characters (Unicode tags, bidi controls, zero-width)'})

export const isOffline = (flag: boolean | undefined): boolean => Boolean(flag) || process.env.LOADOUT_OFFLINE === '1'
