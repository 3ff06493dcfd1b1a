import type {Environment} from '../environment.js'
import {conflict, usageError} from '../errors.js'
import {withStateLock} from '../install/transaction.js'
import type {ScopeContext} from '../scope.js'
import {projectLockFile, userStateFile, type InstallState} from '../state/records.js'
import {readJsonFile} from '../fs/json.js'
import {removeCached} from './fetch.js'
import {findMarketplace} from './known.js'
import {readMarketplaces, readProjectManifest, writeMarketplaces, writeProjectManifest} from './state.js'

export interface MarketplaceRemoval {
  name: string
  scope: string
  source: string
  dryRun: boolean
  /** plugins installed from it, left in place by --force */
  leftBehind: string[]
  cacheRemoved: boolean
}

/** Plugin ids (`plugin@marketplace`) installed from a marketplace, per the install records. */
export const pluginsInstalledFrom = (name: string, env: Environment, projectRoot: string): string[] => {
  const ids = new Set<string>()
  for (const file of [userStateFile(env), projectLockFile(projectRoot)]) {
    const state = readJsonFile<Partial<InstallState>>(file, {})
    for (const record of state.installs ?? []) if (record.plugin?.endsWith(`@${name}`)) ids.add(record.plugin)
  }
  return [...ids].sort()
}

export const planMarketplaceRemoval = (name: string, env: Environment, context: ScopeContext, force: boolean): MarketplaceRemoval => {
  const found = findMarketplace(name, env, context.projectRoot)
  if (found.builtin) throw usageError('builtin-marketplace', `"${name}" is built into loadout and cannot be removed`)
  const installed = pluginsInstalledFrom(name, env, context.projectRoot)
  if (installed.length > 0 && !force) {
    throw conflict('marketplace-in-use', `marketplace "${name}" has installed plugins: ${installed.join(', ')}`, {
      suggestions: [`uninstall them first (loadout uninstall ${installed[0]}), or pass --force to leave them installed`],
    })
  }
  return {name, scope: found.scope, source: found.input, dryRun: false, leftBehind: installed, cacheRemoved: found.source.kind !== 'local'}
}

/** Unregisters it and deletes its cache; a local source folder is never touched. */
export const removeMarketplace = async (plan: MarketplaceRemoval, env: Environment, context: ScopeContext): Promise<MarketplaceRemoval> =>
  withStateLock(env, () => {
    const found = findMarketplace(plan.name, env, context.projectRoot)
    const records = readMarketplaces(env)
    const rest = records.filter((r) => !(r.name === found.name && r.scope === found.scope && r.project === found.project))
    writeMarketplaces(env, rest)
    const stillUsed = rest.some((r) => JSON.stringify(r.source) === JSON.stringify(found.source))
    if (!stillUsed && found.source.kind !== 'local') removeCached(found.source, env)
    if (found.scope === 'project' && found.project) {
      const manifest = readProjectManifest(found.project)
      if (manifest.marketplaces && plan.name in manifest.marketplaces) {
        const {[plan.name]: _gone, ...others} = manifest.marketplaces
        manifest.marketplaces = others
        writeProjectManifest(found.project, manifest)
      }
    }
    return {...plan, cacheRemoved: !stillUsed && found.source.kind !== 'local'}
  })

