import {usageError} from '../../model/errors.js'

/**
 * An `oci://` reference: `oci://host[:port]/repo[/more]:tag`, `oci://host[:port]/repo@sha256:<hex>`,
 * or `oci://host[:port]/repo:<range>` where the range is a semver range that is not a valid tag
 * (`^1.2`, `~1.4.0`, `>=2 <3`): the highest tag satisfying it is taken. No tag means `latest`.
 */
export interface OciReference {
  /** `host` or `host:port`, lower case */
  registry: string
  /** the repository path, e.g. `acme/kit` */
  repository: string
  tag?: string
  /** `sha256:<64 hex>` */
  digest?: string
  /** a semver range of tags */
  range?: string
}

const REGISTRY = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/
/** the distribution spec's repository name: lower-case components joined by `/` */
const REPOSITORY = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*)*$/
export const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/
export const DIGEST = /^sha256:[0-9a-f]{64}$/
const RANGE = /^[0-9xX*^~<>=|. v-]+$/

const bad = (input: string, why: string) =>
  usageError('invalid-oci-reference', `${JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input)} is not an OCI reference: ${why}`, {
    suggestions: ['write it as oci://host[:port]/repo:tag, oci://host[:port]/repo@sha256:<digest> or oci://host[:port]/repo:^1.2 (a range of tags)'],
  })

export const isOciInput = (input: string): boolean => /^oci:\/\//i.test(input.trim())

/** Parses an `oci://` reference; throws a usage error naming the broken part. */
export const parseOciReference = (input: string): OciReference => {
  const text = input.trim()
  if (!isOciInput(text)) throw bad(input, 'it must start with oci://')
  const rest = text.slice('oci://'.length)
  const slash = rest.indexOf('/')
  if (slash <= 0) throw bad(input, 'it names no repository after the host')
  const registry = rest.slice(0, slash).toLowerCase()
  if (registry.includes('@')) throw bad(input, 'credentials never go in the reference; loadout reads them from ~/.docker/config.json')
  if (!REGISTRY.test(registry)) throw bad(input, `"${registry}" is not a host or host:port`)
  let path = rest.slice(slash + 1)
  let digest: string | undefined
  const at = path.indexOf('@')
  if (at >= 0) {
    digest = path.slice(at + 1).toLowerCase()
    path = path.slice(0, at)
    if (!DIGEST.test(digest)) throw bad(input, 'a digest is sha256: followed by 64 hexadecimal digits')
  }
  let tag: string | undefined
  let range: string | undefined
  const colon = path.indexOf(':')
  if (colon >= 0) {
    const after = path.slice(colon + 1)
    path = path.slice(0, colon)
    if (TAG.test(after)) tag = after
    else if (RANGE.test(after) && after.trim() !== '') range = after.trim()
    else throw bad(input, `"${after}" is neither a tag nor a semver range`)
    if (digest !== undefined && range !== undefined) throw bad(input, 'a digest pins one artifact: give a range or a digest, not both')
  }
  if (!REPOSITORY.test(path)) throw bad(input, `"${path}" is not a repository name (lower-case letters, digits, ".", "_", "-", joined by "/")`)
  return {registry, repository: path, ...(tag !== undefined ? {tag} : {}), ...(digest !== undefined ? {digest} : {}), ...(range !== undefined ? {range} : {})}
}

/** The reference written back: `oci://host/repo[:tag|:range][@digest]`. */
export const formatOciReference = (ref: OciReference): string =>
  `oci://${ref.registry}/${ref.repository}${ref.tag ? `:${ref.tag}` : ref.range ? `:${ref.range}` : ''}${ref.digest ? `@${ref.digest}` : ''}`
