/**
 * Referrers (OCI distribution spec 1.1): manifests whose `subject` names another manifest, such as a
 * Sigstore bundle signing it. A registry with the referrers API lists them at
 * `/v2/<name>/referrers/<digest>`; one without it (distribution 2.8, which answers 404 there) is
 * read and written through the referrers tag schema: an image index tagged `sha256-<hex>` listing
 * them, which the client that pushes a referrer keeps up to date.
 */
import {EXIT, LoadoutError} from '../../model/errors.js'
import type {OciClient} from './client.js'
import {
  EMPTY_CONFIG,
  EMPTY_CONFIG_MEDIA_TYPE,
  INDEX_MEDIA_TYPE,
  MANIFEST_MEDIA_TYPE,
  type Descriptor,
  type ImageIndex,
  type ReferrerManifest,
} from './media-types.js'

/** `sha256:<hex>` -> `sha256-<hex>`: the tag the referrers tag schema keeps the index under. */
export const referrersTag = (digest: string): string => digest.replace(':', '-')

export type ReferrerDescriptor = Descriptor & {artifactType?: string}

export interface Referrers {
  /** how they were found: `referrers API` or `tag sha256-<hex>` */
  via: string
  manifests: ReferrerDescriptor[]
}

const MAX_REFERRERS = 1000

/** The descriptors of an image index, each with a sha256 digest and a size; anything else is left out. */
const indexEntries = (bytes: Buffer, what: string): ReferrerDescriptor[] => {
  let index: Partial<ImageIndex>
  try {
    index = JSON.parse(bytes.toString('utf8')) as Partial<ImageIndex>
  } catch {
    throw new LoadoutError('oci-request-failed', EXIT.network, `${what}: the registry answered an index that is not JSON`)
  }
  const manifests = Array.isArray(index?.manifests) ? index.manifests : []
  return manifests
    .filter((m) => m && typeof m.digest === 'string' && /^sha256:[0-9a-f]{64}$/.test(m.digest) && Number.isSafeInteger(m.size))
    .slice(0, MAX_REFERRERS)
}

/** The referrers of `digest`: from the referrers API when the registry has it, else from the `sha256-<hex>` tag. */
export const listReferrers = async (client: OciClient, repository: string, digest: string): Promise<Referrers> => {
  const what = `referrers of ${repository}@${digest}`
  const api = await client.referrersIndex(repository, digest)
  if (api) return {via: 'referrers API', manifests: indexEntries(api, what)}
  const tag = referrersTag(digest)
  const tagged = await client.findManifest(repository, tag, INDEX_MEDIA_TYPE)
  return {via: `tag ${tag}`, manifests: tagged ? indexEntries(tagged.bytes, what) : []}
}

/**
 * Pushes `bytes` as a one-layer artifact whose subject is `subject`, then, unless the registry says
 * it keeps referrers itself (`OCI-Subject`), adds it to the `sha256-<hex>` tag's index. The same
 * bytes give the same manifest: attaching twice lists it once.
 */
export const attachReferrer = async (
  client: OciClient,
  repository: string,
  subject: Descriptor,
  artifact: {artifactType: string; mediaType: string; bytes: Buffer},
): Promise<{digest: string; via: string}> => {
  const config = await client.pushBlob(repository, EMPTY_CONFIG, EMPTY_CONFIG_MEDIA_TYPE)
  const layer = await client.pushBlob(repository, artifact.bytes, artifact.mediaType)
  const manifest: ReferrerManifest = {
    schemaVersion: 2,
    mediaType: MANIFEST_MEDIA_TYPE,
    artifactType: artifact.artifactType,
    config,
    layers: [layer],
    subject: {mediaType: subject.mediaType, digest: subject.digest, size: subject.size},
  }
  const bytes = Buffer.from(JSON.stringify(manifest))
  const {digest, subjectAccepted} = await client.putReferrer(repository, bytes)
  if (subjectAccepted) return {digest, via: 'referrers API'}
  const tag = referrersTag(subject.digest)
  const existing = await client.findManifest(repository, tag, INDEX_MEDIA_TYPE)
  const others = existing ? indexEntries(existing.bytes, `referrers of ${repository}@${subject.digest}`).filter((m) => m.digest !== digest) : []
  const index: ImageIndex = {
    schemaVersion: 2,
    mediaType: INDEX_MEDIA_TYPE,
    manifests: [...others, {mediaType: MANIFEST_MEDIA_TYPE, digest, size: bytes.length, artifactType: artifact.artifactType}],
  }
  await client.putManifest(repository, tag, Buffer.from(JSON.stringify(index)), INDEX_MEDIA_TYPE)
  return {digest, via: `tag ${tag}`}
}
