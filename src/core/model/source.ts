/** Where bytes come from. One parser (parse.ts) turns a user string into one of these. */
export type Source =
  | {kind: 'github'; owner: string; repo: string; ref?: string; sha?: string; path?: string}
  | {kind: 'git'; url: string; ref?: string; sha?: string; path?: string}
  | {kind: 'catalog-url'; url: string}
  | {kind: 'archive'; url: string; sha256?: string}
  | {kind: 'local'; path: string}
  /** a package in an npm registry ($LOADOUT_NPM_REGISTRY, else the public one); version is a range, version or tag */
  | {kind: 'npm'; package: string; version?: string}
  /** an artifact in an OCI registry: `oci://host[:port]/repo` with `:tag`, `@sha256:<digest>` or `:<semver range>` (kernel/sources/oci.ts) */
  | {kind: 'oci'; ref: string}

export type SourceKind = Source['kind']
