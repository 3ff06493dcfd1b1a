import {join} from 'node:path'
import type {Environment} from '../env/environment.js'
import {notFound} from '../../model/errors.js'
import {REGISTRY_DIR} from '../env/package-root.js'
import {closestNames} from '../text/suggest.js'
import {readMarketplaces, visibleMarketplaces, type MarketplaceRecord} from '../state/marketplaces.js'

export const BUILTIN_NAME = 'loadout'
export const BUILTIN_ROOT = join(REGISTRY_DIR, 'marketplace')

/** The marketplace that ships with loadout: always present, works offline. */
export const builtinMarketplace = (): MarketplaceRecord & {builtin: true} => ({
  name: BUILTIN_NAME,
  scope: 'user',
  input: '(built in)',
  source: {kind: 'local', path: BUILTIN_ROOT},
  addedAt: '',
  updatedAt: '',
  root: BUILTIN_ROOT,
  catalogFile: join(BUILTIN_ROOT, '.claude-plugin', 'marketplace.json'),
  pluginCount: -1,
  warningCount: 0,
  builtin: true,
})

export type KnownMarketplace = MarketplaceRecord & {builtin?: boolean}

/** The built-in marketplace, then every added one visible from this project. */
export const knownMarketplaces = (env: Environment, projectRoot: string): KnownMarketplace[] => [
  builtinMarketplace(),
  ...visibleMarketplaces(readMarketplaces(env), projectRoot),
]

export const findMarketplace = (name: string, env: Environment, projectRoot: string): KnownMarketplace => {
  const known = knownMarketplaces(env, projectRoot)
  const found = known.filter((m) => m.name === name)
  // A project-scope marketplace of this project wins over a user-scope one of the same name.
  const chosen = found.find((m) => m.scope === 'project') ?? found[0]
  if (!chosen) {
    const near = closestNames(
      name,
      known.map((m) => m.name),
    )
    throw notFound('marketplace-not-found', `no marketplace named "${name}" (${known.length} known)`, {
      suggestions: [...(near.length > 0 ? [`did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`] : []), 'see them: loadout marketplace list'],
    })
  }
  return chosen
}
