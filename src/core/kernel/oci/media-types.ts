/** The media types and annotations of loadout's OCI artifacts (OCI image manifest 1.1, artifact form). */
export const MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json'
export const EMPTY_CONFIG_MEDIA_TYPE = 'application/vnd.oci.empty.v1+json'
/** the empty config blob, `{}`, every OCI artifact without a config of its own points at */
export const EMPTY_CONFIG = Buffer.from('{}')
export const LAYER_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip'
export const PLUGIN_ARTIFACT_TYPE = 'application/vnd.loadout.plugin.v1'
export const CATALOG_ARTIFACT_TYPE = 'application/vnd.loadout.catalog.v1'
export const CATALOG_LAYER_MEDIA_TYPE = 'application/vnd.loadout.catalog.v1+json'

export const ANNOTATION = {
  title: 'org.opencontainers.image.title',
  version: 'org.opencontainers.image.version',
  description: 'org.opencontainers.image.description',
  source: 'org.opencontainers.image.source',
  created: 'org.opencontainers.image.created',
} as const

export interface Descriptor {
  mediaType: string
  digest: string
  size: number
  annotations?: Record<string, string>
}

export interface ArtifactManifest {
  schemaVersion: 2
  mediaType: typeof MANIFEST_MEDIA_TYPE
  artifactType: string
  config: Descriptor
  layers: Descriptor[]
  annotations?: Record<string, string>
}

export const INDEX_MEDIA_TYPE = 'application/vnd.oci.image.index.v1+json'
/** the artifactType (and layer media type) of a Sigstore bundle attached as a referrer, as cosign writes it */
export const SIGSTORE_BUNDLE_ARTIFACT_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json'
/** any version of the Sigstore bundle media type: `application/vnd.dev.sigstore.bundle[.v0.N]+json[;version=0.N]` */
export const isSigstoreBundleType = (type: unknown): boolean =>
  typeof type === 'string' && /^application\/vnd\.dev\.sigstore\.bundle(?:\.v0\.\d+)?\+json(?:;\s*version=0\.\d+)?$/.test(type)

/** A manifest that refers to another (OCI 1.1): a signature, an SBOM, an attestation. */
export interface ReferrerManifest extends ArtifactManifest {
  subject?: Descriptor
}

export interface ImageIndex {
  schemaVersion: 2
  mediaType: typeof INDEX_MEDIA_TYPE
  manifests: Array<Descriptor & {artifactType?: string}>
}
