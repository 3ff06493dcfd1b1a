import type {Environment} from '../../kernel/env/environment.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {descendsFrom} from '../../kernel/resolve/history.js'
import type {PluginFetchSpec} from '../../model/source.js'
import {fetchSpecKinds} from '../../kernel/sources/kinds/index.js'
import type {FetchSpecKind} from '../../kernel/sources/kind.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {Prepared} from './install.js'

const semverOf = async () => (await import('semver')).default

/** The repository whose history says whether one commit of this source descends from another. */
const repositoryOf = (fetch: PluginFetchSpec): string | undefined => {
  const kind = fetchSpecKinds[fetch.kind] as FetchSpecKind<PluginFetchSpec>
  return kind.marketplaceRepository(fetch)?.url ?? kind.remote(fetch)?.url
}

/**
 * `noDowngrade`: the new version may not be lower, and the new commit must descend from the locked
 * one (`git merge-base` in the cached mirror). Throws (status 11) unless allowed.
 */
export const checkDowngrade = async (
  first: InstallRecord,
  prepared: Prepared,
  to: {version?: string; commit?: string},
  env: Environment,
  projectRoot: string,
  allowDowngrade: boolean,
): Promise<void> => {
  const rule = loadPolicy(env, projectRoot).noDowngrade
  if (!rule || allowDowngrade) return
  const refuse = (why: string) =>
    new LoadoutError('downgrade-refused', EXIT.policy, `refused by policy: ${first.plugin}: ${why} (rule noDowngrade in ${rule.from})`, {
      suggestions: ['pass --allow-downgrade to move back on purpose', 'see the effective policy and where each rule comes from: loadout policy show'],
      details: {rule: 'noDowngrade', file: rule.from, subject: first.plugin, from: {version: first.version, commit: first.commit}, to},
    })
  const semver = await semverOf()
  if (first.version && to.version && semver.valid(first.version) && semver.valid(to.version) && semver.lt(to.version, first.version))
    throw refuse(`version ${to.version} is older than the installed ${first.version}`)
  const url = repositoryOf(prepared.resolved.fetch)
  if (first.commit && to.commit && first.commit !== to.commit && url && !(await descendsFrom(url, first.commit, to.commit, env)))
    throw refuse(`commit ${to.commit.slice(0, 12)} does not descend from the installed ${first.commit.slice(0, 12)}`)
}
