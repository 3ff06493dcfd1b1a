import type {Environment} from '../../kernel/env/environment.js'
import {knownMarketplaces} from '../../kernel/marketplace/known.js'
import {admitProvenance, admitSigning} from '../../kernel/policy/gate.js'
import {DIRECT, type ResolvedPlugin} from '../../kernel/resolve/resolve.js'
import {gitCommitOf, gitPinOf, isArchiveSpec, isGitSpec, isNpmSpec, isOciSpec} from '../../kernel/sources/signable.js'
import type {PluginFetchSpec} from '../../model/source.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {sigstoreSigner, type SignerSeen, type SigstoreIdentity} from '../../model/signing.js'
import {readFileSync} from 'node:fs'
import {createHash} from '../../kernel/crypto/node-crypto.js'
import {keepBundle, keptBundle, noKeptSignature} from '../../kernel/sources/kept-bundles.js'
import {loadoutPaths} from '../../kernel/env/environment.js'
import type {FetchedPlugin} from './fetch-plugin.js'

/** `requireProvenance` for a package fetched from an npm registry. */
export const checkPluginProvenance = (resolved: ResolvedPlugin, fetched: FetchedPlugin, env: Environment, projectRoot: string): void => {
  if (!isNpmSpec(resolved.fetch)) return
  admitProvenance(fetched.provenance ?? {signatures: 'none', attestations: 'none'}, env, projectRoot, resolved.id || resolved.fetch.label)
}

/** An archive under a marketplace that pins Sigstore identities: its bundle must verify to one of them. */
const checkArchiveBundle = async (
  spec: Extract<PluginFetchSpec, {kind: 'archive'}>,
  fetched: FetchedPlugin,
  identities: readonly SigstoreIdentity[],
  env: Environment,
  what: string,
  offline: boolean,
): Promise<SignerSeen> => {
  if (!spec.sigstore)
    throw new LoadoutError('unsigned-source', EXIT.integrity, `${what}: its catalog entry names no Sigstore bundle, and its marketplace requires one`, {
      suggestions: ['ask the marketplace to add "sigstore": "<bundle URL>" to the entry'],
      details: {trusted: identities},
    })
  const [{fetchBundle, verifySigstoreBundle}, {keptArchiveFile}] = await Promise.all([
    import('../../kernel/sources/sigstore.js'),
    import('../../kernel/sources/archive.js'),
  ])
  const bytes = readFileSync(keptArchiveFile(fetched.root))
  const cacheDir = loadoutPaths(env).cache
  // offline, the bundle kept when these bytes last verified (keyed by their sha256, taken when they were fetched): no request is made
  const hex = fetched.archiveSha256 ?? createHash('sha256').update(bytes).digest('hex')
  const bundle = offline ? keptBundle(cacheDir, 'archive-signatures', hex)?.bundle : await fetchBundle(spec.sigstore, env)
  if (bundle === undefined) throw noKeptSignature(what)
  const identity = await verifySigstoreBundle(bundle, bytes, identities, {env, cacheDir, label: what, offline})
  if (!offline) keepBundle(cacheDir, 'archive-signatures', hex, {bundle})
  return sigstoreSigner(identity)
}

/** An OCI artifact under a marketplace that pins Sigstore identities: a bundle attached to its manifest must verify to one of them. */
const checkOciBundle = async (
  spec: Extract<PluginFetchSpec, {kind: 'oci'}>,
  fetched: FetchedPlugin,
  identities: readonly SigstoreIdentity[],
  env: Environment,
  what: string,
  offline: boolean,
): Promise<SignerSeen> => {
  const {verifyOciSignature} = await import('../../kernel/sources/oci-signature.js')
  const digest = fetched.artifact?.integrity ?? spec.integrity
  if (!digest) throw new LoadoutError('unsigned-source', EXIT.integrity, `${what}: no manifest digest to check a signature against`)
  return sigstoreSigner(await verifyOciSignature(spec.ref, digest, identities, {env, cacheDir: loadoutPaths(env).cache, label: what, offline}))
}

/**
 * The keys of a plugin's marketplace cover every commit installed through it: its own (a plugin in
 * the marketplace's repository) and those of the repositories its catalog points at; its Sigstore
 * identities cover the archives it lists. A source neither can check (a package; an archive or an OCI
 * artifact under a marketplace with keys only) is refused, never taken unchecked. Returns the signer, or undefined
 * when nothing demands a signature.
 */
export const checkPluginSignature = async (
  resolved: ResolvedPlugin,
  fetched: FetchedPlugin,
  env: Environment,
  projectRoot: string,
  offline = false,
): Promise<SignerSeen | undefined> => {
  // a plugin whose marketplace is gone (configure of an installed one) has no keys left to check against
  const known = resolved.marketplace === DIRECT ? [] : knownMarketplaces(env, projectRoot).filter((m) => m.name === resolved.marketplace)
  const market = known.find((m) => m.scope === 'project') ?? known[0]
  const keys = market?.signedBy ?? []
  const identities = market?.signedByIdentity ?? []
  const what = resolved.id || resolved.fetch.label
  const spec = resolved.fetch
  const bundleChecked = (isArchiveSpec(spec) || isOciSpec(spec)) && identities.length > 0
  admitSigning({spec}, resolved.marketplace, keys.length > 0 || bundleChecked, env, projectRoot, what)
  if (bundleChecked && isArchiveSpec(spec)) return checkArchiveBundle(spec, fetched, identities, env, what, offline)
  if (bundleChecked && isOciSpec(spec)) return checkOciBundle(spec, fetched, identities, env, what, offline)
  if (keys.length === 0 && (identities.length === 0 || isGitSpec(spec))) return undefined
  const at = gitCommitOf(spec, fetched.commit)
  if (!at)
    throw new LoadoutError(
      'unsigned-source',
      EXIT.integrity,
      `${what}: marketplace "${resolved.marketplace}" requires signed sources, and this plugin's source (${spec.kind}) has nothing loadout can check against ${keys.length > 0 ? `the keys ${keys.map((k) => k.fingerprint).join(', ')}` : 'its Sigstore identities'}`,
      {suggestions: ['ask the marketplace to list the plugin from a signed git repository, or as an archive with a Sigstore bundle']},
    )
  // pinned to a tag (a `ref` naming one, or a range resolved to one): the tag's signature vouches for the commit it names
  // a folder of the marketplace's own repository is pinned by the marketplace's ref (`marketplace add --ref v1.0`)
  // (the signature check, and the gpg and ssh-keygen it runs, load only for a marketplace with keys)
  const {verifyMirrorPin} = await import('../../kernel/sources/git-signature.js')
  return verifyMirrorPin(env, {...at, ...gitPinOf(spec, market?.ref)}, keys, what)
}
