/** Where bytes come from. One parser (parse.ts) turns a user string into one of these. */
export type Source =
  | {kind: 'github'; owner: string; repo: string; ref?: string; sha?: string; path?: string}
  | {kind: 'git'; url: string; ref?: string; sha?: string; path?: string}
  | {kind: 'catalog-url'; url: string}
  | {kind: 'archive'; url: string; sha256?: string}
  | {kind: 'local'; path: string}
  /** a package in an npm registry ($LOADOUT_NPM_REGISTRY, else the public one); version is a range, version or tag */
  | {kind: 'npm'; package: string; version?: string}
  /** an artifact in an OCI registry: `oci://host[:port]/repo` with `:tag`, `@sha256:<digest>` or `:<semver range>` (kernel/sources/kinds/oci.ts) */
  | {kind: 'oci'; ref: string}

export type SourceKind = Source['kind']

/** Where a plugin's files come from, once resolved. */
export type PluginFetchSpec =
  | {kind: 'folder'; path: string; label: string; commit?: string; git?: {url: string; path: string}}
  /** `tag`: the version tag a range resolved to (its signature is checked when the marketplace declares keys) */
  | {kind: 'git'; url: string; ref?: string; sha?: string; path?: string; tag?: string; label: string}
  | {
      kind: 'archive'
      url: string
      sha256?: string
      label: string
      /** a Sigstore bundle signing the archive (from its catalog entry) */
      sigstore?: string
      /** where LOADOUT_TOKEN may go: the archive's origin when the user named it, a catalog URL's when that listed it */ tokenOrigin?: string
    }
  | {kind: 'npm'; package: string; version?: string; registry?: string; integrity?: string; label: string}
  /** `integrity`: the manifest digest to pull whatever the reference's tag now says (the lock's); `version` as the lock recorded it */
  | {kind: 'oci'; ref: string; version?: string; integrity?: string; label: string}
