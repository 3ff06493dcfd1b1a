import {usageError} from '../../model/errors.js'
import {AUTO_UPDATE_MODES, type AutoUpdate} from '../../model/marketplace.js'
import type {Environment} from '../../kernel/env/environment.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {readMarketplaces, readProjectManifest, visibleMarketplaces, writeMarketplaces, writeProjectManifest} from '../../kernel/state/marketplaces.js'
import {withStateLock} from '../../kernel/state/transaction.js'

export const parseAutoUpdate = (value: string): AutoUpdate => {
  if ((AUTO_UPDATE_MODES as readonly string[]).includes(value)) return value as AutoUpdate
  throw usageError('bad-auto-update', `--auto-update must be ${AUTO_UPDATE_MODES.join(', ')} (got "${value}")`)
}

export interface AutoUpdateSet {
  marketplaces: Array<{name: string; scope: string; autoUpdate: AutoUpdate}>
}

/**
 * `marketplace update <name> --auto-update <mode>`: sets the mode in the marketplace record and, for a
 * project's marketplace, in loadout.json; refreshes nothing.
 */
export const setAutoUpdate = async (names: readonly string[], mode: string, env: Environment, context: ScopeContext): Promise<AutoUpdateSet> => {
  const autoUpdate = parseAutoUpdate(mode)
  if (names.length === 0) throw usageError('marketplace-name-needed', '--auto-update needs the marketplace names to set it for')
  return withStateLock(env, async () => {
    const records = readMarketplaces(env)
    const visible = visibleMarketplaces(records, context.projectRoot)
    const chosen = names.map((name) => {
      const found = visible.filter((r) => r.name === name)
      if (found.length === 0)
        throw usageError('unknown-marketplace', `no marketplace named "${name}" is registered here`, {suggestions: ['see them: loadout marketplace list']})
      return found
    })
    const picked = new Set(chosen.flat())
    writeMarketplaces(
      env,
      records.map((r) => (picked.has(r) ? (autoUpdate === 'off' ? withoutMode(r) : {...r, autoUpdate}) : r)),
    )
    const project = [...picked].filter((r) => r.scope === 'project')
    if (project.length > 0) {
      const manifest = readProjectManifest(context.projectRoot)
      const declared = {...manifest.marketplaces}
      for (const r of project) {
        const entry = declared[r.name]
        if (entry) declared[r.name] = autoUpdate === 'off' ? withoutMode(entry) : {...entry, autoUpdate}
      }
      writeProjectManifest(context.projectRoot, {...manifest, marketplaces: declared})
    }
    return {marketplaces: [...picked].map((r) => ({name: r.name, scope: r.scope, autoUpdate}))}
  })
}

const withoutMode = <T extends {autoUpdate?: AutoUpdate}>(value: T): T => {
  const {autoUpdate: _dropped, ...rest} = value
  return rest as T
}
