/**
 * A plugin's `userConfig` on this machine: which options it declares, what is set, what is missing,
 * and the checks a value must pass for its type.
 */
import {statSync} from 'node:fs'
import {resolve} from 'node:path'
import {expandHome, type Environment} from '../env/environment.js'
import {usageError} from '../../model/errors.js'
import type {UserConfigOption} from '../resolve/manifest.js'
import {emptyMap, own, storedValues, type StoredValue} from './store.js'

export interface ConfigState {
  options: UserConfigOption[]
  /** key -> value, defaults applied; sensitive values included (never shown or written for an agent) */
  values: Record<string, StoredValue>
  missing: string[]
}

export const configState = (env: Environment, id: string, options: readonly UserConfigOption[]): ConfigState => {
  const {plain, secret} = storedValues(env, id)
  const values = emptyMap<StoredValue>()
  const missing: string[] = []
  for (const option of options) {
    const value = option.sensitive ? (own(secret, option.key) ?? own(plain, option.key)) : own(plain, option.key)
    if (value !== undefined) values[option.key] = value
    else if (option.default !== undefined) values[option.key] = option.default
    else if (option.required) missing.push(option.key)
  }
  return {options: [...options], values, missing}
}

/** A value typed in (or given with --set) as the option's type; a bad one is a usage error naming the key. */
export const parseValue = (option: UserConfigOption, text: string, env: Environment): StoredValue => {
  switch (option.type) {
    case 'number': {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n))
        throw usageError('user-config-bad-value', `${option.key} must be a number, not ${JSON.stringify(option.sensitive ? '***' : text)}`)
      return n
    }
    case 'boolean':
      if (/^(true|yes|1)$/i.test(text)) return true
      if (/^(false|no|0)$/i.test(text)) return false
      throw usageError('user-config-bad-value', `${option.key} must be true or false`)
    case 'directory':
    case 'file': {
      const path = resolve(env.cwd, expandHome(text, env))
      let ok: boolean
      try {
        const stat = statSync(path)
        ok = option.type === 'directory' ? stat.isDirectory() : stat.isFile()
      } catch {
        ok = false
      }
      if (!ok)
        throw usageError(
          'user-config-bad-value',
          option.sensitive ? `${option.key} must be an existing ${option.type}` : `${option.key} must be an existing ${option.type}; ${path} is not one`,
        )
      return path
    }
    default:
      if (/[\u0000]/.test(text)) throw usageError('user-config-bad-value', `${option.key} contains a NUL character`)
      return text
  }
}
