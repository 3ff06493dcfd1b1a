/**
 * Sigstore bundles attached to an OCI artifact as referrers (kernel/oci/referrers.ts). A bundle signs
 * the subject's manifest bytes (its message digest is the manifest digest), so checking it against the
 * manifest fetched by that digest proves who published exactly this artifact; the checks themselves
 * are sigstore.ts's (certificate chain to the trusted root, log promise, signature, pinned identity).
 *
 * cosign's legacy `sha256-<hex>.sig` tag (a "simple signing" payload with the signature in an
 * annotation) is not read: its payload format and Rekor bundle annotations are a second verifier;
 * cosign attaches the bundle form as a referrer with `--new-bundle-format` (the default from cosign 3).
 */
import type {Environment} from '../env/environment.js'
import {EXIT, isLoadoutError, LoadoutError} from '../../model/errors.js'
import type {SigstoreIdentity} from '../../model/signing.js'
import {isSigstoreBundleType, MANIFEST_MEDIA_TYPE, SIGSTORE_BUNDLE_ARTIFACT_TYPE, type ReferrerManifest} from '../oci/media-types.js'
import {formatOciReference, parseOciReference} from '../oci/reference.js'
import {keepBundle, keptBundle, noKeptSignature} from './kept-bundles.js'

/** at most this many bundles are tried: a registry listing thousands cannot make loadout fetch them all */
const MAX_BUNDLES_TRIED = 16

const ociLibraries = async () => {
  const [{OciClient}, {attachReferrer, listReferrers}, {verifySigstoreBundle, MAX_BUNDLE_BYTES}] = await Promise.all([
    import('../oci/client.js'),
    import('../oci/referrers.js'),
    import('./sigstore.js'),
  ])
  return {OciClient, attachReferrer, listReferrers, verifySigstoreBundle, MAX_BUNDLE_BYTES}
}

/** `oci://host/repo@sha256:<hex>`: the artifact exactly, for messages. */
const pinnedText = (refText: string, digest: string): string => {
  const ref = parseOciReference(refText)
  return formatOciReference({registry: ref.registry, repository: ref.repository, digest})
}

/** The bundle a referrer manifest carries, when it is one for `digest`. */
const bundleOf = (bytes: Buffer, digest: string): ReferrerManifest['layers'][number] | undefined => {
  let manifest: ReferrerManifest
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as ReferrerManifest
  } catch {
    return undefined
  }
  if (manifest?.subject?.digest !== digest || !isSigstoreBundleType(manifest.artifactType)) return undefined
  return (Array.isArray(manifest.layers) ? manifest.layers : []).find((l) => isSigstoreBundleType(l?.mediaType))
}

/** `sha256:<hex>` -> `<hex>`: the name a kept bundle is filed under. */
const digestHex = (digest: string): string => digest.replace(/^sha256:/, '')

/**
 * Offline, the bundle kept when it verified (kept-bundles.ts) with the manifest bytes it signs: they
 * must still hash to the digest, and the bundle is verified as it was the first time.
 */
const verifyKept = async (
  shown: string,
  digest: string,
  identities: readonly SigstoreIdentity[],
  options: {env: Environment; cacheDir: string; label: string; offline?: boolean},
): Promise<SigstoreIdentity> => {
  const [{verifySigstoreBundle}, {sha256Digest}] = await Promise.all([import('./sigstore.js'), import('../oci/client.js')])
  const kept = keptBundle(options.cacheDir, 'oci-signatures', digestHex(digest))
  const manifest = typeof kept?.manifest === 'string' ? Buffer.from(kept.manifest, 'base64') : undefined
  if (!manifest || sha256Digest(manifest) !== digest) throw noKeptSignature(shown)
  return verifySigstoreBundle(kept!.bundle, manifest, identities, {...options, label: `${options.label} (${shown})`})
}

/** A later failure replaces an earlier one only when it says more: an identity seen beats a bundle that did not verify. */
const rank = (error: LoadoutError): number => (error.code === 'untrusted-identity' ? 2 : 1)

/**
 * Checks that a Sigstore bundle attached to the manifest `digest` of `refText` verifies to one of
 * `identities`; returns that identity. Exit 7: no bundle attached (`unsigned-source`), or none that
 * verifies to a pinned identity (`untrusted-identity` naming who signed, `sigstore-bundle-invalid`).
 */
export const verifyOciSignature = async (
  refText: string,
  digest: string,
  identities: readonly SigstoreIdentity[],
  options: {env: Environment; cacheDir: string; label: string; offline?: boolean},
): Promise<SigstoreIdentity> => {
  const {OciClient, listReferrers, verifySigstoreBundle, MAX_BUNDLE_BYTES} = await ociLibraries()
  const ref = parseOciReference(refText)
  const shown = pinnedText(refText, digest)
  if (options.offline) return verifyKept(shown, digest, identities, options)
  const client = new OciClient(ref.registry, options.env)
  const subject = await client.getManifest(ref.repository, digest)
  const {via, manifests} = await listReferrers(client, ref.repository, digest)
  let failure: LoadoutError | undefined
  for (const referrer of manifests.filter((m) => isSigstoreBundleType(m.artifactType)).slice(0, MAX_BUNDLES_TRIED)) {
    try {
      const layer = bundleOf((await client.getManifest(ref.repository, referrer.digest)).bytes, digest)
      if (!layer) continue
      let bundle: unknown
      try {
        bundle = JSON.parse((await client.getBlob(ref.repository, layer, MAX_BUNDLE_BYTES)).toString('utf8'))
      } catch (error) {
        if (isLoadoutError(error)) throw error
        throw new LoadoutError(
          'sigstore-bundle-invalid',
          EXIT.integrity,
          `${options.label}: the Sigstore bundle ${referrer.digest} attached to ${shown} is not JSON`,
        )
      }
      const identity = await verifySigstoreBundle(bundle, subject.bytes, identities, {...options, label: `${options.label} (${shown})`})
      keepBundle(options.cacheDir, 'oci-signatures', digestHex(digest), {manifest: subject.bytes.toString('base64'), bundle})
      return identity
    } catch (error) {
      if (!isLoadoutError(error) || error.exitStatus !== EXIT.integrity) throw error
      if (!failure || rank(error) > rank(failure)) failure = error
    }
  }
  if (failure) throw failure
  // cosign's legacy form is not read, but is worth naming: the publisher signed, in a form loadout does not check
  const legacy = `${digest.replace(':', '-')}.sig`
  const cosignLegacy = (await client.findManifest(ref.repository, legacy)) !== undefined
  throw new LoadoutError(
    'unsigned-source',
    EXIT.integrity,
    `${options.label}: ${shown} has no Sigstore bundle attached (looked up through the ${via}), and ${identities.length > 0 ? `it must be signed by ${identities.map((i) => `${i.issuer}=${i.subject}`).join(' or ')}` : 'a signature is required'}`,
    {
      suggestions: [
        ...(cosignLegacy
          ? [`a cosign signature in its legacy form is attached (tag ${legacy}); loadout reads only Sigstore bundles: sign with cosign --new-bundle-format`]
          : []),
        `the publisher attaches one with: loadout plugin attach ${shown} <bundle.json> (a bundle signing the manifest bytes, as cosign sign-blob --new-bundle-format writes it)`,
      ],
      details: {digest, via, trusted: identities, ...(cosignLegacy ? {cosignLegacyTag: legacy} : {})},
    },
  )
}

/** `plugin attach`: a bundle file checked to be a Sigstore bundle over this manifest digest, attached as a referrer. */
export const attachOciBundle = async (refText: string, bundleBytes: Buffer, env: Environment): Promise<{subject: string; digest: string; via: string}> => {
  const {OciClient, attachReferrer} = await ociLibraries()
  const ref = parseOciReference(refText)
  if (!ref.digest && !ref.tag) throw new LoadoutError('invalid-oci-reference', EXIT.usage, `${refText}: name the artifact by tag or digest`)
  const client = new OciClient(ref.registry, env)
  const subject = await client.getManifest(ref.repository, ref.digest ?? ref.tag!)
  let bundle: {mediaType?: unknown; messageSignature?: {messageDigest?: {digest?: unknown}}}
  try {
    bundle = JSON.parse(bundleBytes.toString('utf8')) as typeof bundle
  } catch {
    throw new LoadoutError('sigstore-bundle-invalid', EXIT.usage, 'the bundle file is not JSON')
  }
  if (!bundle || typeof bundle !== 'object' || typeof bundle.mediaType !== 'string' || !bundle.mediaType.startsWith('application/vnd.dev.sigstore.bundle'))
    throw new LoadoutError(
      'sigstore-bundle-invalid',
      EXIT.usage,
      'the bundle file is not a Sigstore bundle (its mediaType is not application/vnd.dev.sigstore.bundle…)',
    )
  const signed = bundle.messageSignature?.messageDigest?.digest
  const expected = Buffer.from(subject.digest.slice('sha256:'.length), 'hex').toString('base64')
  if (signed !== expected)
    throw new LoadoutError(
      'sigstore-bundle-invalid',
      EXIT.usage,
      `the bundle does not sign the manifest ${subject.digest} (it must sign the manifest's bytes)`,
      {
        suggestions: [`sign the bytes of /v2/${ref.repository}/manifests/${subject.digest} (cosign sign-blob --bundle <file>), then attach that bundle`],
      },
    )
  const attached = await attachReferrer(
    client,
    ref.repository,
    {mediaType: MANIFEST_MEDIA_TYPE, digest: subject.digest, size: subject.bytes.length},
    {artifactType: SIGSTORE_BUNDLE_ARTIFACT_TYPE, mediaType: SIGSTORE_BUNDLE_ARTIFACT_TYPE, bytes: bundleBytes},
  )
  return {subject: pinnedText(refText, subject.digest), ...attached}
}
