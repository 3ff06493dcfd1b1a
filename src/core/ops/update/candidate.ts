/**
 * What `update` (and `diff`) would install in place of an installed plugin: the newest release the
 * policy's cool-down lets through, refused when `noDowngrade` says it goes backwards.
 */
import type {Environment} from '../../kernel/env/environment.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {describeHeld, resolveMature, type HeldRelease} from '../../kernel/policy/release-age.js'
import {descendsFrom} from '../../kernel/resolve/history.js'
import {DIRECT, type PluginFetchSpec} from '../../kernel/resolve/resolve.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {prepareResolved, type InstallOptions, type Prepared} from '../install/install.js'
import {prepareServerUpdate} from '../mcp/from-registry.js'

export type Candidate = {held: HeldRelease; prepared?: undefined} | {prepared: Prepared; held?: HeldRelease}

type PrepareOptions = Pick<InstallOptions, 'env' | 'context' | 'offline' | 'allowHiddenText' | 'onProgress'>

const semverOf = async () => (await import('semver')).default

/** The spec `update` resolves for an installed plugin: its source, its range, or its id. */
export const updateSpec = (plugin: string, first: InstallRecord): string =>
  plugin.endsWith(`@${DIRECT}`) ? first.source : first.range ? `${plugin}@${first.range}` : plugin

/**
 * The candidate for `first`'s plugin. A release younger than `minimumReleaseAge` is passed over for
 * the newest tagged one old enough; when that is no newer than what is installed, the plugin is held.
 */
export const prepareCandidate = async (plugin: string, first: InstallRecord, options: PrepareOptions): Promise<Candidate> => {
  const {env, context} = options
  if (isMcpId(plugin)) return {prepared: await prepareServerUpdate(first, env, context.projectRoot)}
  const choice = await resolveMature(updateSpec(plugin, first), env, context.projectRoot)
  if (!choice.resolved) return {held: choice.held!}
  if (choice.held) {
    const semver = await semverOf()
    const [older, installed] = [choice.resolved.version, first.version]
    if (!(older && installed && semver.valid(older) && semver.valid(installed) && semver.gt(older, installed))) return {held: choice.held}
  }
  return {prepared: await prepareResolved(choice.resolved, options), ...(choice.held ? {held: choice.held} : {})}
}

export const heldMessage = (held: HeldRelease): string => `held back: ${describeHeld(held)}`

/** The repository whose history says whether one commit of this source descends from another. */
const repositoryOf = (fetch: PluginFetchSpec): string | undefined =>
  fetch.kind === 'git' ? fetch.url : fetch.kind === 'folder' && fetch.git ? fetch.git.url : undefined

/**
 * `noDowngrade`: the new version may not be lower, and the new commit must descend from the locked
 * one (`git merge-base --is-ancestor` in the cached mirror). Throws (status 11) unless allowed.
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
