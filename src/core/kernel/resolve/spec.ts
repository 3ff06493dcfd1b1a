import type {Environment} from '../env/environment.js'
import {notFound} from '../../model/errors.js'
import {findMarketplace, knownMarketplaces, type KnownMarketplace} from '../marketplace/known.js'
import {fromMarketplace, marketplaceListing, resolveDirect, sourceOptionsOf, type ResolvedPlugin} from './resolve.js'
import {parsePluginInput, type PluginSpec} from './plugin-input.js'

/**
 * `name@marketplace` at the version a range (or exact version) picks. Without a range, the catalog's
 * current entry. `chain` names the dependents that led here, for messages.
 */
export const resolveInMarketplace = async (
  name: string,
  market: KnownMarketplace,
  range: string | undefined,
  env: Environment,
  projectRoot: string,
  chain: readonly string[] = [],
  /** policy minimumReleaseAge: only tags released before this time (ms) count */
  releasedBefore?: number,
): Promise<ResolvedPlugin> => {
  if (range === undefined || range === '*' || range === '') return fromMarketplace(name, market, env)
  // version tags (the marketplace's git history) are read only for a range
  const {chooseVersion, resolveTagged} = await import('./tags.js')
  const choice = await chooseVersion(name, market, range, env, releasedBefore)
  if (!choice.tagged && !choice.current) {
    const current = fromMarketplace(name, market, env)
    const via = chain.length > 0 ? ` (needed by ${[...chain, `${current.id}@${range}`].join(' -> ')})` : ''
    const listed = `${current.id} is at version ${current.version ?? '(none)'} in the catalog`
    throw notFound(
      'version-not-found',
      `no version of ${current.id} satisfies ${range}${via}: ${listed}, not ${range}${choice.available.length > (current.version ? 1 : 0) ? ', and no tag matches' : ''}`,
      {
        suggestions: [
          choice.available.length > 0
            ? `versions available: ${choice.available.join(', ')}`
            : `${market.name} tags no version of ${name} (tags are named ${name}--v<version>)`,
        ],
        details: {plugin: current.id, range, chain: [...chain, current.id]},
      },
    )
  }
  return choice.tagged ? resolveTagged(name, market, choice.tagged, env) : fromMarketplace(name, market, env)
}

/** The marketplace a parsed plugin spec names: as written, a known one its range-like part names, else the one listing it. */
const marketplaceOf = (spec: PluginSpec, env: Environment, projectRoot: string): {market: KnownMarketplace; range?: string} => {
  if (spec.marketplace !== undefined) return {market: findMarketplace(spec.marketplace, env, projectRoot), ...(spec.range ? {range: spec.range} : {})}
  if (spec.rangeOrMarketplace && knownMarketplaces(env, projectRoot).some((m) => m.name === spec.range))
    return {market: findMarketplace(spec.range!, env, projectRoot)}
  return {market: marketplaceListing(spec.name, env, projectRoot), ...(spec.range ? {range: spec.range} : {})}
}

/** What the user typed (see PLUGIN_INPUT_FORMS), parsed once, resolved to one plugin and the range asked for. */
export const resolveInput = async (
  input: string,
  env: Environment,
  projectRoot: string,
  releasedBefore?: number,
): Promise<{resolved: ResolvedPlugin; range?: string}> => {
  const parsed = parsePluginInput(input, sourceOptionsOf(env))
  if (parsed.form === 'source') return {resolved: resolveDirect(parsed.source, env, projectRoot)}
  const {market, range} = marketplaceOf(parsed, env, projectRoot)
  return {resolved: await resolveInMarketplace(parsed.name, market, range, env, projectRoot, [], releasedBefore), ...(range ? {range} : {})}
}

/** What the user typed, resolved to one plugin (see resolveInput). */
export const resolveSpec = async (input: string, env: Environment, projectRoot: string, releasedBefore?: number): Promise<ResolvedPlugin> =>
  (await resolveInput(input, env, projectRoot, releasedBefore)).resolved
