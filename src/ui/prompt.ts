import {needsConsent} from '../core/model/errors.js'
import {whilePrompting} from './progress.js'

export interface AskContext {
  yes: boolean
  interactive: boolean
}

/** Yes when --yes was given; asks on a terminal; otherwise fails with "needs consent", never hangs. */
export const confirmOrFail = async (question: string, context: AskContext): Promise<boolean> => {
  if (context.yes) return true
  if (!context.interactive) {
    throw needsConsent('answer-needed', `${question} (no terminal to ask on)`, {suggestions: ['pass --yes to answer yes']})
  }
  const {confirm} = await import('@inquirer/prompts')
  return whilePrompting(() => confirm({message: question, default: false}))
}

export const chooseMany = async <T>(message: string, choices: Array<{name: string; value: T; checked: boolean}>): Promise<T[]> => {
  const {checkbox} = await import('@inquirer/prompts')
  return whilePrompting(() => checkbox({message, choices, required: true}))
}

export const askText = async (message: string, fallback: string): Promise<string> => {
  const {input} = await import('@inquirer/prompts')
  return whilePrompting(() => input({message, default: fallback}))
}
