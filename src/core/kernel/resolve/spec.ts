import type {Environment} from '../env/environment.js'
import {notFound, usageError} from '../../model/errors.js'
import {checkPluginName} from '../text/names.js'
import {findMarketplace, type KnownMarketplace} from '../marketplace/known.js'
import {resolvePluginSpec, type ResolvedPlugin} from './resolve.js'
import {chooseVersion, resolveTagged} from './tags.js'

export const RANGE_FORM = /^([^@/\\:]+)@([^@/\\:]+)@(.+)$/

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
  releasedBefore?: number,
): Promise<ResolvedPlugin> => {
  if (range === undefined || range === '*' || range === '') return resolvePluginSpec(`${name}@${market.name}`, env, projectRoot)
  const choice = await chooseVersion(name, market, range, env, releasedBefore)
  if (!choice.tagged && !choice.current) {
    const current = resolvePluginSpec(`${name}@${market.name}`, env, projectRoot)
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
  return choice.tagged ? resolveTagged(name, market, choice.tagged, env) : resolvePluginSpec(`${name}@${market.name}`, env, projectRoot)
}

/** The semver range of `plugin@marketplace@<range>` (an exact version counts: it is a range of one), else undefined. */
export const rangeOf = (input: string): string | undefined => RANGE_FORM.exec(input)?.[3]

/**
 * What the user typed, with `plugin@marketplace@<range>` resolved against the marketplace's tags;
 * every other form goes to resolvePluginSpec unchanged.
 */
export const resolveSpec = async (input: string, env: Environment, projectRoot: string, releasedBefore?: number): Promise<ResolvedPlugin> => {
  const match = RANGE_FORM.exec(input)
  if (!match) return resolvePluginSpec(input, env, projectRoot)
  const [, name, marketName, range] = match as unknown as [string, string, string, string]
  const rule = checkPluginName(name)
  if (rule) throw usageError('bad-plugin-spec', `plugin name ${JSON.stringify(name)} ${rule}`)
  return resolveInMarketplace(name, findMarketplace(marketName, env, projectRoot), range, env, projectRoot, [], releasedBefore)
}
