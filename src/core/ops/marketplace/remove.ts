import type {Environment} from '../../kernel/env/environment.js'
import {conflict, notFound, usageError} from '../../model/errors.js'
import {withStateLock} from '../../kernel/state/transaction.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import {projectLockFile, userStateFile, type InstallState} from '../../kernel/state/records.js'
import {readJsonFile} from '../../kernel/fs/json.js'
import {readFromCache, removeCached, sourceKey} from '../../kernel/marketplace/fetch.js'
import {findMarketplace, knownMarketplaces, type KnownMarketplace} from '../../kernel/marketplace/known.js'
import {marketEnv, readMarketplaces, readProjectManifest, writeMarketplaces, writeProjectManifest} from '../../kernel/state/marketplaces.js'

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

/** The marketplace named, in the scope asked for (the project's first, when none is). */
const findIn = (name: string, env: Environment, context: ScopeContext, scope?: Scope): KnownMarketplace => {
  if (!scope) return findMarketplace(name, env, context.projectRoot)
  const found = knownMarketplaces(env, context.projectRoot).find((m) => m.name === name && m.scope === scope && !m.builtin)
  if (found) return found
  const other = findMarketplace(name, env, context.projectRoot)
  throw notFound('marketplace-not-found', `no marketplace named "${name}" in the ${scope} scope`, {
    suggestions: [other.builtin ? `"${name}" is built into loadout` : `it is in the ${other.scope} scope: add --scope ${other.scope}`],
  })
}

export const planMarketplaceRemoval = (name: string, env: Environment, context: ScopeContext, force: boolean, scope?: Scope): MarketplaceRemoval => {
  const found = findIn(name, env, context, scope)
  if (found.builtin) throw usageError('builtin-marketplace', `"${name}" is built into loadout and cannot be removed`)
  const installed = pluginsInstalledFrom(name, env, context.projectRoot)
  if (installed.length > 0 && !force) {
    throw conflict('marketplace-in-use', `marketplace "${name}" has installed plugins: ${installed.join(', ')}`, {
      suggestions: [`uninstall them first (loadout uninstall ${installed[0]}), or pass --force to leave them installed`],
    })
  }
  return {name, scope: found.scope, source: found.input, dryRun: false, leftBehind: installed, cacheRemoved: readFromCache(found.source)}
}

/**
 * Unregisters it and deletes its cache, unless another registered marketplace (any scope, any
 * project) fetches from the same place; a local source folder is never touched.
 */
export const removeMarketplace = async (plan: MarketplaceRemoval, env: Environment, context: ScopeContext): Promise<MarketplaceRemoval> =>
  withStateLock(env, () => {
    const found = findIn(plan.name, env, context, plan.scope as Scope)
    const records = readMarketplaces(env)
    const rest = records.filter((r) => !(r.name === found.name && r.scope === found.scope && r.project === found.project))
    writeMarketplaces(env, rest)
    const key = sourceKey(found.source, marketEnv(found, env))
    const stillUsed = rest.some((r) => sourceKey(r.source, marketEnv(r, env)) === key)
    if (!stillUsed && readFromCache(found.source)) removeCached(found.source, marketEnv(found, env))
    if (found.scope === 'project' && found.project) {
      const manifest = readProjectManifest(found.project)
      if (manifest.marketplaces && plan.name in manifest.marketplaces) {
        const {[plan.name]: _gone, ...others} = manifest.marketplaces
        manifest.marketplaces = others
        writeProjectManifest(found.project, manifest)
      }
    }
    return {...plan, cacheRemoved: !stillUsed && readFromCache(found.source)}
  })
