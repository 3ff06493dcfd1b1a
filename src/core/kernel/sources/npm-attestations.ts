/**
 * npm provenance attestations, checked by loadout rather than by pacote: pacote's check
 * (`verifyAttestations`) takes Sigstore's public trust root through its own TUF client, which can
 * neither be given another root (a private Sigstore, a test's) nor be seen by the policy's host
 * check. Here the attestations document is fetched through loadout's request path from the
 * registry, each provenance bundle (a DSSE envelope holding an in-toto statement) is verified with
 * @sigstore/verify against the trusted root sigstore.ts reads, and its statement must name this
 * package and version (`pkg:npm/<name>@<version>`) and the tarball's sha512, as npm does.
 *
 * Publish attestations (signed with the registry's own key, not a Sigstore certificate) prove
 * nothing beyond the registry signature already checked; they are not counted as provenance.
 */
import type {Environment} from '../env/environment.js'
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {SigstoreIdentity} from '../../model/signing.js'
import {httpGet} from './http.js'
import {verifyAttestationBundle} from './sigstore.js'

const MAX_ATTESTATIONS_BYTES = 4 * 1024 * 1024
const PROVENANCE = /^https:\/\/slsa\.dev\/provenance\//

interface Statement {
  subject?: Array<{name?: unknown; digest?: {sha512?: unknown}}>
  predicateType?: unknown
}

/** The package URL npm's attestations name: a scope's `@` is percent-encoded. */
export const npmPurl = (name: string, version: string): string => `pkg:npm/${name.replace(/^@/, '%40')}@${version}`

const invalid = (what: string, why: string): LoadoutError =>
  new LoadoutError('npm-attestation-invalid', EXIT.integrity, `${what}: its provenance attestation ${why}; nothing was extracted`, {
    suggestions: ['the attestation does not vouch for these bytes: do not trust this copy'],
  })

/**
 * Checks the provenance attestations of `name@version` listed at `attestationsUrl` (the path is
 * asked of `registry`, as npm does); returns the identity each verified bundle was signed by (the
 * build's OIDC issuer and workflow), or none when the version has no provenance attestation.
 */
export const verifyNpmProvenance = async (input: {
  name: string
  version: string
  /** the dist.integrity the tarball was checked against */
  integrity: string
  registry: string
  attestationsUrl: string
  env: Environment
  cacheDir: string
}): Promise<SigstoreIdentity[]> => {
  const what = `npm package ${input.name}@${input.version}`
  let path: string
  try {
    path = new URL(input.attestationsUrl).pathname
  } catch {
    throw invalid(what, 'is listed at a URL that is not one')
  }
  const got = await httpGet(new URL(path, input.registry).href, {env: input.env, maxBytes: MAX_ATTESTATIONS_BYTES, accept: 'application/json'})
  if (got.status !== 'ok') throw invalid(what, 'could not be read (the registry answered 304)')
  let listed: unknown
  try {
    listed = (JSON.parse(got.body.toString('utf8')) as {attestations?: unknown}).attestations
  } catch {
    throw invalid(what, 'is not JSON')
  }
  if (!Array.isArray(listed)) throw invalid(what, 'is not a list of attestations')
  const sha512 = /(?:^|\s)sha512-(\S+)/.exec(input.integrity)?.[1]
  const digest = sha512 ? Buffer.from(sha512, 'base64').toString('hex') : undefined
  const purl = npmPurl(input.name, input.version)
  const signers: SigstoreIdentity[] = []
  for (const entry of listed as Array<{predicateType?: unknown; bundle?: {dsseEnvelope?: {payload?: unknown}}}>) {
    if (typeof entry?.predicateType !== 'string' || !PROVENANCE.test(entry.predicateType)) continue
    const payload = entry.bundle?.dsseEnvelope?.payload
    if (typeof payload !== 'string') throw invalid(what, 'holds no DSSE envelope')
    let statement: Statement
    try {
      statement = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Statement
    } catch {
      throw invalid(what, 'holds a statement that is not JSON')
    }
    const subject = statement.subject?.[0]
    if (statement.predicateType !== entry.predicateType)
      throw invalid(what, `is listed as ${entry.predicateType} but states ${String(statement.predicateType)}`)
    if (subject?.name !== purl) throw invalid(what, `was made for ${String(subject?.name)}, not ${purl}`)
    if (!digest || subject.digest?.sha512 !== digest) throw invalid(what, "was made for other bytes (its sha512 is not the tarball's)")
    signers.push(await verifyAttestationBundle(entry.bundle, {env: input.env, cacheDir: input.cacheDir}, (why) => invalid(what, `does not verify (${why})`)))
  }
  return signers
}
