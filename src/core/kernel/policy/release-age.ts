/**
 * `minimumReleaseAge`: a version tag or commit younger than the policy's cool-down is not taken.
 * The age of a git release is its commit's committer date: a tag's commit, or for a plugin folder of
 * a git marketplace the last commit that changed that folder (the marketplace moving on for another
 * plugin does not make this one younger). A release whose date cannot be read (an archive, an npm
 * package, a folder on this machine) is not held back: the README says so.
 */
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {describeAge, type Policy} from '../../model/policy.js'
import {findMarketplace} from '../marketplace/known.js'
import {DIRECT, type ResolvedPlugin} from '../resolve/resolve.js'
import type {PluginFetchSpec} from '../../model/source.js'
import {fetchSpecKinds} from '../sources/kinds/index.js'
import type {FetchSpecKind} from '../sources/kind.js'
import {resolveInput} from '../resolve/spec.js'
import {loadPolicy} from './load.js'

/** A release the cool-down passed over. */
export interface HeldRelease {
  version?: string
  commit: string
  /** ISO date of the commit */
  committedAt: string
  /** how old it is, as a person reads it ("1h") */
  age: string
  minimumReleaseAge: string
  /** the policy file the rule comes from */
  file: string
}

export interface MatureChoice {
  /** what may be taken: the release asked for, or the newest tagged one old enough; absent when none is */
  resolved?: ResolvedPlugin
  /** set when the release asked for was too young */
  held?: HeldRelease
  /** the semver range the spec asked for (`name@range`, `name@marketplace@range`) */
  range?: string
}

/** The moment before which a release must have been made, or undefined without a cool-down. */
export const releaseCutoff = (policy: Policy, now = Date.now()): number | undefined =>
  policy.minimumReleaseAge ? now - policy.minimumReleaseAge.ms : undefined

/** The commit a fetch spec names and when it was made, when a mirror in the cache can say. */
export const releaseOf = async (fetch: PluginFetchSpec, env: Environment): Promise<{commit: string; at: Date} | undefined> => {
  // git history is read only under a cool-down (most installs have none)
  const {committedAt, lastChangeOf} = await import('../resolve/history.js')
  const kind = fetchSpecKinds[fetch.kind] as FetchSpecKind<PluginFetchSpec>
  // a folder of a git marketplace: the last commit that changed the folder, up to the marketplace's commit
  const folder = kind.marketplaceRepository(fetch)
  if (folder && 'commit' in fetch && fetch.commit) return lastChangeOf(folder.url, fetch.commit, folder.path, env)
  const remote = kind.remote(fetch)
  const sha = 'sha' in fetch ? fetch.sha : undefined
  if (!remote || !sha) return undefined
  const at = await committedAt(remote.url, sha, env)
  return at ? {commit: sha, at} : undefined
}

export const heldOf = (policy: Policy, release: {commit: string; at: Date}, version: string | undefined, now: number): HeldRelease => ({
  ...(version ? {version} : {}),
  commit: release.commit,
  committedAt: release.at.toISOString(),
  age: describeAge(now - release.at.getTime()),
  minimumReleaseAge: policy.minimumReleaseAge!.text,
  file: policy.minimumReleaseAge!.from,
})

export const describeHeld = (held: HeldRelease): string =>
  `${held.version ? `version ${held.version}` : `commit ${held.commit.slice(0, 12)}`} is ${held.age} old, younger than minimumReleaseAge ${held.minimumReleaseAge} (${held.file})`

/**
 * `spec` resolved under the cool-down: a range passes over young tags; a catalog entry whose release
 * is young gives way to the newest tag of the plugin that is old enough (and inside the range, when
 * one was asked for). Without a cool-down, `resolveSpec` itself.
 */
export const resolveMature = async (spec: string, env: Environment, projectRoot: string, now = Date.now()): Promise<MatureChoice> => {
  const policy = loadPolicy(env, projectRoot)
  const cutoff = releaseCutoff(policy, now)
  if (cutoff === undefined) {
    const asked = await resolveInput(spec, env, projectRoot)
    return {resolved: asked.resolved, ...(asked.range ? {range: asked.range} : {})}
  }
  const {resolved, range} = await resolveInput(spec, env, projectRoot, cutoff).catch(async (error: unknown) => {
    // a range (an exact version is a range of one) that only young tags satisfy: held, not "not found"
    const young = (error as LoadoutError).code === 'version-not-found' ? await resolveInput(spec, env, projectRoot).catch(() => undefined) : undefined
    if (!young) throw error
    return young
  })
  const release = await releaseOf(resolved.fetch, env)
  const asked = range ? {range} : {}
  if (!release || release.at.getTime() <= cutoff) return {resolved, ...asked}
  const held = heldOf(policy, release, resolved.version, now)
  if (resolved.marketplace === DIRECT) return {held, ...asked}
  const market = findMarketplace(resolved.marketplace, env, projectRoot)
  const [{default: semver}, {releasedBy, resolveTagged, taggedVersions}] = await Promise.all([import('semver'), import('../resolve/tags.js')])
  const older = (await taggedVersions(resolved.name, market, env)).find(
    (t) => releasedBy(t, cutoff) && (!range || semver.satisfies(t.version, range)) && t.commit !== release.commit,
  )
  return older ? {resolved: await resolveTagged(resolved.name, market, older, env), held, ...asked} : {held, ...asked}
}

/** An install that asked for a release the cool-down holds back, with nothing older to take instead. */
export const releaseTooYoung = (what: string, held: HeldRelease): LoadoutError =>
  new LoadoutError('release-too-young', EXIT.policy, `refused by policy: ${what}: ${describeHeld(held)}`, {
    suggestions: [
      `wait until it is ${held.minimumReleaseAge} old, or install an older version (plugin@marketplace@<version>)`,
      'see the effective policy and where each rule comes from: loadout policy show',
    ],
    details: {rule: 'minimumReleaseAge', file: held.file, subject: what, held},
  })
