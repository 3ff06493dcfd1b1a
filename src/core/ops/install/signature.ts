import type {Environment} from '../../kernel/env/environment.js'
import {findMarketplace} from '../../kernel/marketplace/known.js'
import {admitProvenance, admitSigning} from '../../kernel/policy/gate.js'
import {DIRECT, type ResolvedPlugin} from '../../kernel/resolve/resolve.js'
import {verifyMirrorCommit} from '../../kernel/sources/git-signature.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {SignerSeen} from '../../model/signing.js'
import type {FetchedPlugin} from './fetch-plugin.js'

/** `requireProvenance` for a package fetched from an npm registry. */
export const checkPluginProvenance = (resolved: ResolvedPlugin, fetched: FetchedPlugin, env: Environment, projectRoot: string): void => {
  if (resolved.fetch.kind !== 'npm') return
  admitProvenance(fetched.provenance ?? {signatures: 'none', attestations: 'none'}, env, projectRoot, resolved.id || resolved.fetch.label)
}

/** The repository and commit a fetched plugin was read at, when it came from git. */
const gitCommitOf = (resolved: ResolvedPlugin, fetched: FetchedPlugin): {url: string; commit: string} | undefined => {
  const spec = resolved.fetch
  if (!fetched.commit) return undefined
  if (spec.kind === 'git') return {url: spec.url, commit: fetched.commit}
  if (spec.kind === 'folder' && spec.git) return {url: spec.git.url, commit: fetched.commit}
  return undefined
}

/**
 * The keys of a plugin's marketplace cover every commit installed through it: its own (a plugin in
 * the marketplace's repository) and those of the repositories its catalog points at. A source with
 * no commit to check (an archive, a package) under such a marketplace is refused, never taken
 * unchecked. Returns the signer, or undefined when nothing demands a signature.
 */
export const checkPluginSignature = async (
  resolved: ResolvedPlugin,
  fetched: FetchedPlugin,
  env: Environment,
  projectRoot: string,
): Promise<SignerSeen | undefined> => {
  const keys = resolved.marketplace === DIRECT ? [] : (findMarketplace(resolved.marketplace, env, projectRoot).signedBy ?? [])
  const what = resolved.id || resolved.fetch.label
  admitSigning({spec: resolved.fetch}, resolved.marketplace, keys.length > 0, env, projectRoot, what)
  if (keys.length === 0) return undefined
  const at = gitCommitOf(resolved, fetched)
  if (!at)
    throw new LoadoutError(
      'unsigned-source',
      EXIT.integrity,
      `${what}: marketplace "${resolved.marketplace}" requires commits signed by ${keys.map((k) => k.fingerprint).join(', ')}, and this plugin's source (${resolved.fetch.kind}) has no git commit to check`,
      {suggestions: ['ask the marketplace to list the plugin from a git repository whose commits are signed']},
    )
  return verifyMirrorCommit(env, at.url, at.commit, keys, what)
}
