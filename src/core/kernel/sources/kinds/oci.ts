/**
 * The `oci` source kind, in one module: an `oci://host[:port]/repo:tag`, `...@sha256:<digest>` or
 * `...:<semver range>` reference (kernel/oci/reference.ts) parsed into a Source, the host policy judges,
 * the tag or range resolved to a manifest digest, and the artifact's one `tar+gzip` layer pulled
 * (checked against its digest while it streams) and extracted with the archive extractor (bounded,
 * links refused) into a cache folder named after the manifest digest.
 */
import {join} from 'node:path'
import type {Environment} from '../../env/environment.js'
import {lazyRequire} from '../../env/lazy.js'
import {EXIT, isLoadoutError, LoadoutError, notFound, validationFailed} from '../../../model/errors.js'
import type {OciClient} from '../../oci/client.js'
import {
  ANNOTATION,
  CATALOG_ARTIFACT_TYPE,
  CATALOG_LAYER_MEDIA_TYPE,
  LAYER_MEDIA_TYPE,
  MANIFEST_MEDIA_TYPE,
  PLUGIN_ARTIFACT_TYPE,
  type ArtifactManifest,
} from '../../oci/media-types.js'
import {formatOciReference, isOciInput, parseOciReference, type OciReference} from '../../oci/reference.js'
import type {PluginFetchSpec, Source} from '../../../model/source.js'
import type {PluginSource} from '../../../model/marketplace.js'
import {hostOfUrl} from '../hosts.js'
import type {ArtifactNews, FetchSpecKind, SourceKind} from '../kind.js'

// loaded on first use: node:fs/promises costs ~3 ms to load, and every command that judges a source's host loads this module
const fsp = lazyRequire<typeof import('node:fs/promises')>('node:fs/promises')

// the client, the extractor and semver load only when something is pulled: parsing and policy
// checks (which every command may do) stay light
const pulling = async () => {
  const [client, archive, integrity, write, semver] = await Promise.all([
    import('../../oci/client.js'),
    import('../archive.js'),
    import('../../fs/integrity.js'),
    import('../../fs/write.js'),
    import('semver'),
  ])
  return {...client, ...archive, ...integrity, ...write, semver}
}

/** A catalog entry's `{"source": "oci", "ref": "oci://..."}`: the reference, or why it is broken. */
export const ociEntrySource = (value: Record<string, unknown>): {kind: 'oci'; ref: string} | {code: string; message: string; field: string} => {
  if (typeof value.ref !== 'string')
    return {code: 'source-missing-field', message: 'the source needs "ref": an oci://host/repo@sha256:<digest> reference', field: 'ref'}
  try {
    return {kind: 'oci', ref: formatOciReference(parseOciReference(value.ref))}
  } catch (error) {
    if (isLoadoutError(error)) return {code: 'source-bad-oci', message: error.message, field: 'ref'}
    throw error
  }
}

/** The Source of an `oci://` input, or undefined when it is not one (a broken one throws a usage error). */
export const matchOci = (input: string): {kind: 'oci'; ref: string} | undefined =>
  isOciInput(input) ? {kind: 'oci', ref: formatOciReference(parseOciReference(input))} : undefined

/** The URL policy judges for a reference: the registry's https origin. */
export const ociHostUrl = (ref: string): string => `https://${parseOciReference(ref).registry}/`

/** The name of a plugin pulled from a repository that names itself nowhere: its last path segment. */
export const ociDirectName = (ref: string): string => parseOciReference(ref).repository.split('/').pop()!

export interface FetchedOci {
  /** the extracted plugin folder */
  dir: string
  /** the manifest digest, `sha256:<hex>`: what the lock records and `--frozen` pulls */
  digest: string
  /** the version annotation, else the tag the reference resolved through */
  version?: string
  tag?: string
  integrity: string
  annotations: Record<string, string>
}

export interface FetchOciOptions {
  env: Environment
  cacheDir: string
  offline: boolean
  /** pull this manifest digest whatever the reference's tag says (the lock's, under --frozen) */
  digest?: string
}

const TREE = 'tree'
const cacheFolder = (cacheDir: string, digest: string): string => join(cacheDir, `oci-${digest.replace(/^sha256:/, '').slice(0, 32)}`)

const notAPlugin = (shown: string, why: string) =>
  validationFailed('oci-not-a-plugin', `${shown} is not a loadout plugin artifact: ${why}`, {
    suggestions: ['publish plugins with loadout plugin push <dir> oci://host/repo:tag'],
  })

/** The artifact's manifest, checked to be one of loadout's plugins with exactly one tar+gzip layer. */
export const pluginManifest = (bytes: Buffer, shown: string, artifactType = PLUGIN_ARTIFACT_TYPE, layerType = LAYER_MEDIA_TYPE): ArtifactManifest => {
  let manifest: ArtifactManifest
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as ArtifactManifest
  } catch {
    throw notAPlugin(shown, 'its manifest is not JSON')
  }
  if (!manifest || typeof manifest !== 'object' || manifest.schemaVersion !== 2) throw notAPlugin(shown, 'its manifest is not schemaVersion 2')
  if (manifest.mediaType !== undefined && manifest.mediaType !== MANIFEST_MEDIA_TYPE)
    throw notAPlugin(shown, `its manifest is a ${String(manifest.mediaType)}, not an OCI image manifest`)
  if (manifest.artifactType !== artifactType)
    throw notAPlugin(shown, `its artifactType is ${JSON.stringify(manifest.artifactType ?? null)}, not ${artifactType}`)
  const layers = Array.isArray(manifest.layers) ? manifest.layers : []
  if (layers.length !== 1 || layers[0]?.mediaType !== layerType) throw notAPlugin(shown, `it must hold exactly one ${layerType} layer`)
  const layer = layers[0]
  if (typeof layer.digest !== 'string' || typeof layer.size !== 'number') throw notAPlugin(shown, 'its layer has no digest or size')
  return manifest
}

const annotationsOf = (manifest: ArtifactManifest): Record<string, string> =>
  Object.fromEntries(Object.entries(manifest.annotations ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'))

/** The highest tag that is a version inside `range` ("v1.2.0" counts as 1.2.0). */
export const tagForRange = async (tags: readonly string[], range: string, shown: string): Promise<string> => {
  const {validRange, valid, maxSatisfying} = (await pulling()).semver
  if (validRange(range) === null) throw new LoadoutError('invalid-oci-reference', EXIT.usage, `${shown}: "${range}" is not a semver range`)
  const versions = new Map<string, string>()
  for (const tag of tags) {
    const version = valid(tag.replace(/^v(?=\d)/, ''))
    if (version !== null && !versions.has(version)) versions.set(version, tag)
  }
  const best = maxSatisfying([...versions.keys()], range)
  if (best === null)
    throw notFound('version-not-found', `${shown}: no tag satisfies ${range} (${versions.size} version tags of ${tags.length})`, {
      suggestions: ["list the repository's tags, or widen the range"],
    })
  return versions.get(best)!
}

/** The tag and the manifest digest a reference names right now (a range through the tag list). */
export const resolveOci = async (ref: OciReference, client: OciClient): Promise<{tag?: string; digest: string; bytes: Buffer}> => {
  const shown = formatOciReference(ref)
  const tag = ref.digest ? ref.tag : ref.range ? await tagForRange(await client.listTags(ref.repository), ref.range, shown) : (ref.tag ?? 'latest')
  const manifest = await client.getManifest(ref.repository, ref.digest ?? tag!)
  return {...(tag ? {tag} : {}), digest: manifest.digest, bytes: manifest.bytes}
}

const exists = async (path: string): Promise<boolean> =>
  fsp()
    .stat(path)
    .then(
      () => true,
      () => false,
    )

/**
 * Pulls a plugin artifact: the manifest (by digest when one is known, else through the tag or the
 * range), then its layer streamed into a private staging folder, its digest checked as it arrives,
 * extracted with the archive extractor and swapped into the digest's cache folder. A digest already
 * in the cache needs no network (and is what `--offline` can use). On any failure nothing is kept.
 */
export const fetchOci = async (refText: string, options: FetchOciOptions): Promise<FetchedOci> => {
  const {
    OciClient,
    sha256Digest,
    treeIntegrity,
    removeEntries,
    staleWithPrefix,
    extractTarGz,
    DEFAULT_MAX_DOWNLOAD_BYTES,
    DEFAULT_MAX_ARCHIVE_BYTES,
    DEFAULT_MAX_ARCHIVE_ENTRIES,
  } = await pulling()
  const ref = parseOciReference(refText)
  const pinned = options.digest ?? ref.digest
  const shown = formatOciReference(ref)
  if (pinned) {
    const cached = cacheFolder(options.cacheDir, pinned)
    if (await exists(join(cached, TREE))) {
      const bytes = await fsp()
        .readFile(join(cached, 'manifest.json'))
        .catch(() => undefined)
      if (bytes) {
        const manifest = pluginManifest(bytes, shown)
        if (sha256Digest(bytes) === pinned) return described(join(cached, TREE), pinned, manifest, ref.tag, await treeIntegrity(join(cached, TREE)))
      }
    }
  }
  if (options.offline)
    throw new LoadoutError(
      'offline-not-cached',
      EXIT.network,
      `offline, and ${shown} is not in the cache${pinned ? '' : ' (without a digest there is nothing to look up)'}`,
      {
        suggestions: ['run once without --offline to pull it'],
      },
    )
  const client = new OciClient(ref.registry, options.env)
  const resolved = pinned
    ? {digest: pinned, bytes: (await client.getManifest(ref.repository, pinned)).bytes, ...(ref.tag ? {tag: ref.tag} : {})}
    : await resolveOci(ref, client)
  const manifest = pluginManifest(resolved.bytes, shown)
  const layer = manifest.layers[0]!
  await fsp().mkdir(options.cacheDir, {recursive: true})
  removeEntries(options.cacheDir, staleWithPrefix('.oci-'))
  const stage = await fsp().mkdtemp(join(options.cacheDir, '.oci-'))
  try {
    const file = join(stage, 'layer.tar.gz')
    await client.downloadBlob(ref.repository, layer, file, DEFAULT_MAX_DOWNLOAD_BYTES)
    await extractTarGz(file, join(stage, TREE), {
      label: `${shown} (layer ${layer.digest.slice(0, 19)}…)`,
      maxBytes: DEFAULT_MAX_ARCHIVE_BYTES,
      maxEntries: DEFAULT_MAX_ARCHIVE_ENTRIES,
    })
    await fsp().rm(file, {force: true})
    await fsp().writeFile(join(stage, 'manifest.json'), resolved.bytes, {mode: 0o600})
    const integrity = await treeIntegrity(join(stage, TREE))
    const folder = cacheFolder(options.cacheDir, resolved.digest)
    await fsp().rm(folder, {recursive: true, force: true})
    await fsp().rename(stage, folder)
    return described(join(folder, TREE), resolved.digest, manifest, resolved.tag, integrity)
  } finally {
    await fsp().rm(stage, {recursive: true, force: true})
  }
}

const described = (dir: string, digest: string, manifest: ArtifactManifest, tag: string | undefined, integrity: string): FetchedOci => {
  const annotations = annotationsOf(manifest)
  const version = annotations[ANNOTATION.version] ?? tag
  return {dir, digest, integrity, annotations, ...(version ? {version} : {}), ...(tag ? {tag} : {})}
}

/**
 * A catalog published with `marketplace push`: its manifest (artifactType CATALOG_ARTIFACT_TYPE) and
 * its one JSON layer, fetched into memory with the digest checked; `digest` is the manifest's.
 */
export const fetchOciCatalog = async (refText: string, env: Environment, maxBytes: number): Promise<{bytes: Buffer; digest: string}> => {
  const {OciClient} = await pulling()
  const ref = parseOciReference(refText)
  const client = new OciClient(ref.registry, env)
  const resolved = await resolveOci(ref, client)
  const manifest = pluginManifest(resolved.bytes, formatOciReference(ref), CATALOG_ARTIFACT_TYPE, CATALOG_LAYER_MEDIA_TYPE)
  return {bytes: await client.getBlob(ref.repository, manifest.layers[0]!, maxBytes), digest: resolved.digest}
}

/** The tags of an OCI repository and the highest one in `range` (for `outdated` and `update`). */
export const newestOciTag = async (refText: string, range: string, env: Environment): Promise<string> => {
  const {OciClient} = await pulling()
  const ref = parseOciReference(refText)
  return tagForRange(await new OciClient(ref.registry, env).listTags(ref.repository), range, formatOciReference(ref))
}

/** The manifest digest a tag (or range) names right now. */
export const ociTagDigest = async (refText: string, env: Environment): Promise<string> => {
  const {OciClient} = await pulling()
  const ref = parseOciReference(refText)
  return (await resolveOci(ref, new OciClient(ref.registry, env))).digest
}

type OciSource = Extract<Source, {kind: 'oci'}>
type OciSpec = Extract<PluginFetchSpec, {kind: 'oci'}>

/** `oci://host[:port]/repo:tag|@sha256:<digest>|:<range>`: a plugin artifact, or a catalog pushed with `marketplace push`. */
export const oci: SourceKind<OciSource> = {
  kind: 'oci',
  describe: (source) => source.ref,
  host: (source) => hostOfUrl(ociHostUrl(source.ref)),
  gitUrl: () => undefined,
  cacheId: (source) => `oci:${source.ref}`,
  catalog: 'oci',
  cached: 'catalog',
  localPath: () => undefined,
  repositoryPath: () => undefined,
  withRepositoryPath: (source) => source,
  onGithub: false,
  tokenOrigin: () => undefined,
  direct: (source, {label}) => ({name: ociDirectName(source.ref), fetch: {kind: 'oci', ref: source.ref, label}}),
}

/**
 * For a range (`oci://host/repo:^1.2`), wanted is the highest tag inside it and latest the highest
 * version tag of all, both from the registry's tag list; for a tag, outdated when the tag now names
 * another manifest digest than the one installed; a digest pins it (nothing asked).
 */
const ociNews = async (spec: OciSpec, installed: {version?: string; integrity?: string}, env: Environment): Promise<ArtifactNews | undefined> => {
  const {range, digest} = parseOciReference(spec.ref)
  if (digest) return undefined
  if (range) {
    const wanted = {version: await newestOciTag(spec.ref, range, env)}
    const outdated = wanted.version !== installed.version
    return {range, wanted, latest: {version: await newestOciTag(spec.ref, '*', env)}, outdated, ...(outdated ? {reason: `new version within ${range}`} : {})}
  }
  const now = await ociTagDigest(spec.ref, env)
  const wanted = {version: installed.version ?? now}
  const outdated = installed.integrity !== now
  return {wanted, latest: wanted, outdated, ...(outdated ? {reason: 'the tag names a new digest'} : {})}
}

export const ociFetch: FetchSpecKind<OciSpec> = {
  kind: 'oci',
  host: (spec) => hostOfUrl(ociHostUrl(spec.ref)),
  pinned: (spec) => Boolean(spec.integrity) || parseOciReference(spec.ref).digest !== undefined,
  atCommit: () => undefined,
  marketplaceRepository: () => undefined,
  remote: () => undefined,
  localFolder: () => undefined,
  artifact: true,
  news: ociNews,
}

/** A catalog entry `{"source": "oci", "ref": "oci://host/repo:tag@sha256:<digest>"}`. */
export const ociEntry = {
  kind: 'oci' as const,
  describe: (source: OciEntrySource): string => source.ref,
  supported: true,
  fetch: (source: OciEntrySource): PluginFetchSpec => ({kind: 'oci', ref: source.ref, label: source.ref}),
  read: (value: Record<string, unknown>) => ociEntrySource(value),
}

type OciEntrySource = Extract<PluginSource, {kind: 'oci'}>
