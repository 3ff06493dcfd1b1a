/**
 * What `update` (and `diff`) would install in place of an installed plugin: the newest release the
 * policy's cool-down lets through, refused when `noDowngrade` says it goes backwards.
 */
import {isMcpId} from '../../kernel/mcp/spec.js'
import {describeHeld, resolveMature, type HeldRelease} from '../../kernel/policy/release-age.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'
import type {InstallRecord} from '../../kernel/state/records.js'
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
