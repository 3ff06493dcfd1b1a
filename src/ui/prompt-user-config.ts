import type {UserConfigOption} from '../core/kernel/resolve/manifest.js'
import type {Environment} from '../core/kernel/env/environment.js'
import {emptyMap, type StoredValue} from '../core/kernel/user-config/store.js'
import {parseValue} from '../core/kernel/user-config/values.js'
import {whilePrompting} from './progress.js'
import {safeText, writeStderr} from './safe-text.js'

/** Asks for each option on the terminal (hidden input for sensitive ones), checking the value's type. */
export const askUserConfig =
  (env: Environment) =>
  async (id: string, options: readonly UserConfigOption[]): Promise<Record<string, StoredValue>> =>
    whilePrompting(() => ask(env, id, options))

const ask = async (env: Environment, id: string, options: readonly UserConfigOption[]): Promise<Record<string, StoredValue>> => {
  const {input, password, confirm} = await import('@inquirer/prompts')
  const answers = emptyMap<StoredValue>()
  writeStderr(`${id} asks for ${options.length} setting(s):`)
  for (const option of options) {
    const message = `${safeText(option.title ?? option.key)}${option.description ? ` (${safeText(option.description)})` : ''}${option.required ? '' : ' [optional]'}`
    if (option.type === 'boolean') {
      answers[option.key] = await confirm({message, default: option.default === true})
      continue
    }
    const validate = (text: string): string | true => {
      if (text === '') return option.required ? 'a value is needed' : true
      try {
        parseValue(option, text, env)
        return true
      } catch (error) {
        return (error as Error).message
      }
    }
    const text = option.sensitive
      ? await password({message, mask: '*', validate})
      : await input({message, ...(option.default !== undefined ? {default: String(option.default)} : {}), validate})
    if (text !== '') answers[option.key] = parseValue(option, text, env)
  }
  return answers
}
