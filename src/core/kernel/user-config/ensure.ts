import type {Environment} from '../env/environment.js'
import {needsConsent} from '../../model/errors.js'
import {readPluginExtras, type UserConfigOption} from '../resolve/manifest.js'
import type {PluginEntry} from '../../model/marketplace.js'
import {own, storeValues, type StoredValue} from './store.js'
import type {UserConfigVars} from './substitute.js'
import {configState} from './values.js'

/** Asks the person on a terminal for the options not set yet; returns a value per key. */
export type AskUserConfig = (id: string, options: readonly UserConfigOption[]) => Promise<Record<string, StoredValue>>

/**
 * The userConfig values an install of `id` writes with. Required options without a value are asked
 * for on a terminal (and stored); off a terminal the install fails naming every missing key.
 */
export const ensureUserConfig = async (
  env: Environment,
  id: string,
  root: string,
  entry: PluginEntry | undefined,
  options: {ask?: AskUserConfig; dryRun: boolean},
): Promise<UserConfigVars | undefined> => {
  const declared = readPluginExtras(root, entry).userConfig
  if (declared.length === 0) return undefined
  let state = configState(env, id, declared)
  if (state.missing.length > 0 && !options.dryRun) {
    const missing = declared.filter((o) => state.missing.includes(o.key))
    if (!options.ask) {
      throw needsConsent('user-config-missing', `${id} needs a value for ${state.missing.join(', ')} before it can be installed`, {
        suggestions: [
          `set ${state.missing.length === 1 ? 'it' : 'them'} first: loadout configure ${id} ${state.missing.map((k) => `--set ${k}=...`).join(' ')}`,
          'or install on a terminal, which asks',
        ],
        details: {missing: state.missing},
      })
    }
    const answers = await options.ask(id, missing)
    storeValues(
      env,
      id,
      missing.flatMap((o) => {
        const value = own(answers, o.key)
        return value === undefined ? [] : [{key: o.key, value, sensitive: o.sensitive}]
      }),
    )
    state = configState(env, id, declared)
  }
  return {plugin: id, values: state.values, sensitive: new Set(declared.filter((o) => o.sensitive).map((o) => o.key))}
}
