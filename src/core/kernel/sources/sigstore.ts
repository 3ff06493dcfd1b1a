import {readFileSync} from 'node:fs'
import {nodeRequire} from '../env/node-require.js'
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {SigstoreIdentity} from '../../model/signing.js'
import {httpGet} from './http.js'
import {redactUrl} from './redact.js'
import {publicTrustedRoot} from './sigstore-tuf.js'

/**
 * Sigstore bundles for archives, checked with @sigstore/verify: the signing certificate must chain
 * to a certificate authority of the trusted root, the bundle's transparency-log entry must carry a
 * promise signed by a log of that root, the signature must cover the archive's bytes, and the
 * certificate must name one of the identities the user pinned (OIDC issuer + subject).
 *
 * The trusted root is Sigstore's public one (fetched and checked with TUF through loadout's request
 * path, so the policy judges its host: sigstore-tuf.ts), or the
 * file `LOADOUT_SIGSTORE_TRUSTED_ROOT` names (a private Sigstore, or a test root). A root without
 * certificate-transparency logs asks for no SCT.
 */

type Libraries = {
  verify: typeof import('@sigstore/verify')
  bundle: typeof import('@sigstore/bundle')
  specs: typeof import('@sigstore/protobuf-specs')
}

let loaded: Libraries | undefined
const libraries = (): Libraries => {
  if (loaded) return loaded
  const require = nodeRequire
  loaded = {
    verify: require('@sigstore/verify') as Libraries['verify'],
    bundle: require('@sigstore/bundle') as Libraries['bundle'],
    specs: require('@sigstore/protobuf-specs') as Libraries['specs'],
  }
  return loaded
}

export const MAX_BUNDLE_BYTES = 1024 * 1024

const refused = (code: string, message: string, identities: readonly SigstoreIdentity[], details: Record<string, unknown>) =>
  new LoadoutError(code, EXIT.integrity, message, {
    suggestions: [
      `loadout trusts ${identities.map((i) => `${i.issuer}=${i.subject}`).join(', ')} for this marketplace`,
      'if the publisher signs from another identity, check it with them, then add it: --signed-by-identity <issuer>=<subject>',
    ],
    details: {...details, trusted: identities},
  })

/** Reads `--signed-by-identity <issuer>=<subject>`: the issuer is an https URL, the subject a non-empty text. */
export const parseIdentity = (text: string): SigstoreIdentity | undefined => {
  const at = text.indexOf('=')
  const issuer = text.slice(0, at)
  const subject = text.slice(at + 1)
  if (at <= 0 || subject === '' || !/^https:\/\/\S+$/.test(issuer) || /[\s\0]/.test(subject)) return undefined
  return {issuer, subject}
}

const trustedRoot = async (env: Environment, cacheDir: string, offline = false): Promise<unknown> => {
  const file = env.vars.LOADOUT_SIGSTORE_TRUSTED_ROOT
  if (file) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as unknown
    } catch (error) {
      throw new LoadoutError(
        'sigstore-root-unreadable',
        EXIT.usage,
        `LOADOUT_SIGSTORE_TRUSTED_ROOT: ${file} is not a trusted root JSON file (${(error as Error).message})`,
      )
    }
  }
  // the public root is refreshed with TUF at each check, a request --offline never makes
  if (offline)
    throw new LoadoutError('offline-not-cached', EXIT.network, "offline, and Sigstore's public trusted root is checked with TUF over the network", {
      suggestions: ['run once without --offline, or name a trusted root file with LOADOUT_SIGSTORE_TRUSTED_ROOT'],
    })
  return publicTrustedRoot(env, cacheDir)
}

/** Downloads a bundle (bounded; the policy judges its host like any fetch). */
export const fetchBundle = async (url: string, env: Environment): Promise<unknown> => {
  const got = await httpGet(url, {env, maxBytes: MAX_BUNDLE_BYTES, accept: 'application/json'})
  if (got.status !== 'ok') throw new LoadoutError('fetch-failed', EXIT.network, `${redactUrl(url)} answered 304 to a request that was not conditional`)
  try {
    return JSON.parse(got.body.toString('utf8')) as unknown
  } catch {
    throw new LoadoutError('sigstore-bundle-invalid', EXIT.integrity, `the Sigstore bundle at ${redactUrl(url)} is not JSON`)
  }
}

/** The identity a verified bundle's certificate names; throws `refusal` when the bundle does not verify. */
const verifiedSigner = async (
  bundleJson: unknown,
  artifact: Buffer | undefined,
  options: {env: Environment; cacheDir: string; offline?: boolean},
  refusal: (message: string) => LoadoutError,
): Promise<SigstoreIdentity> => {
  const lib = libraries()
  const root = lib.specs.TrustedRoot.fromJSON(await trustedRoot(options.env, options.cacheDir, options.offline))
  const verifier = new lib.verify.Verifier(lib.verify.toTrustMaterial(root), {
    ctlogThreshold: root.ctlogs.length > 0 ? 1 : 0,
    tlogThreshold: 1,
    timestampThreshold: 1,
  })
  let signer: ReturnType<typeof verifier.verify>
  try {
    const bundle = lib.bundle.bundleFromJSON(bundleJson)
    // a DSSE envelope signs a statement, not these bytes: @sigstore/verify would not look at them;
    // an attestation (no artifact) is the opposite, a statement the caller reads once it verifies
    if (artifact && bundle.content.$case !== 'messageSignature') throw new Error('it signs a DSSE envelope, not the bytes themselves')
    if (!artifact && bundle.content.$case !== 'dsseEnvelope') throw new Error('it signs bytes, not an attestation statement')
    signer = verifier.verify(lib.verify.toSignedEntity(bundle, artifact))
  } catch (error) {
    throw refusal((error as Error).message)
  }
  return {issuer: signer.identity?.extensions?.issuer ?? '', subject: signer.identity?.subjectAlternativeName ?? ''}
}

/**
 * Checks a DSSE bundle (an attestation) against the trusted root and returns who signed it: its
 * certificate must chain to the root and its log entry carry a promise of a log of the root. What
 * the attestation's statement says is for the caller to judge.
 */
export const verifyAttestationBundle = (
  bundleJson: unknown,
  options: {env: Environment; cacheDir: string},
  refusal: (message: string) => LoadoutError,
): Promise<SigstoreIdentity> => verifiedSigner(bundleJson, undefined, options, refusal)

/**
 * Checks `artifact` against a bundle; returns the identity it was signed by, or throws exit 7: a
 * bundle that does not verify, or one signed by an identity not among `identities`.
 */
export const verifySigstoreBundle = async (
  bundleJson: unknown,
  artifact: Buffer,
  identities: readonly SigstoreIdentity[],
  options: {env: Environment; cacheDir: string; label: string; offline?: boolean},
): Promise<SigstoreIdentity> => {
  const seen = await verifiedSigner(bundleJson, artifact, options, (why) =>
    refused('sigstore-bundle-invalid', `${options.label}: its Sigstore bundle does not verify (${why})`, identities, {}),
  )
  const match = identities.find((i) => i.issuer === seen.issuer && i.subject === seen.subject)
  if (!match)
    throw refused(
      'untrusted-identity',
      `${options.label} is signed by ${seen.issuer || '(no issuer)'}=${seen.subject || '(no subject)'}, an identity loadout does not trust for it`,
      identities,
      {signer: seen},
    )
  return match
}
