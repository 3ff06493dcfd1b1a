/** The rules for an npm source as a catalog writes it: pure, so reading a catalog loads nothing heavy. */

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org'

// npm's own rule for package names: lowercase, url-safe, optionally @scope/.
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/

/**
 * What pacote may be given after `name@`: a version, a semver range or a dist-tag, in the characters
 * those are written with. pacote would read anything with `:`, `/`, `\\`, `#` or `@` in it, or a
 * leading `.`, as a URL, a file, a git repository or an alias, and fetch it from anywhere.
 */
const VERSION_RANGE_OR_TAG = /^(?![.-])[A-Za-z0-9^~<>=*|.+_-]+$/

/** Why a package name, range or registry from a catalog cannot be used, or undefined. */
export const npmSpecRule = (spec: {package: string; version?: string; registry?: string}): string | undefined => {
  if (spec.package.length > 214 || !PACKAGE_NAME.test(spec.package)) return `package ${JSON.stringify(spec.package)} is not an npm package name`
  if (spec.version !== undefined && !VERSION_RANGE_OR_TAG.test(spec.version)) {
    return `version ${JSON.stringify(spec.version)} is not an exact version, a semver range or a dist-tag (a URL, a path, git or another package is not accepted)`
  }
  if (spec.registry !== undefined) {
    let url: URL
    try {
      url = new URL(spec.registry)
    } catch {
      return 'registry is not a valid URL'
    }
    if (url.protocol !== 'https:') return 'registry must be an https URL'
    if (url.username || url.password) return 'registry carries a user name or password; remove it'
  }
  return undefined
}
