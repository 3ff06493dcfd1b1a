/** Git URLs as keys: the default GitHub, the scp form, and one spelling per repository. */

export const DEFAULT_GITHUB_URL = 'https://github.com'

export const SCP_FORM = /^([A-Za-z0-9._][A-Za-z0-9._-]*)@([A-Za-z0-9_][A-Za-z0-9._-]*):((?!-)[^\s#]+)(?:#(.*))?$/

const DEFAULT_PORTS: Record<string, string> = {https: '443', http: '80', ssh: '22'}

const trimRepoPath = (path: string): string =>
  path
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/, '')

/** scp form as an ssh URL; a relative scp path is relative to the login's home (`/~/`). */
const scpAsUrl = (user: string, host: string, path: string): string =>
  `ssh://${user}@${host}${path.startsWith('/') ? '' : path.startsWith('~') ? '/' : '/~/'}${path}`

/**
 * A git URL as a cache key: scheme and host lower-cased, default port, user-info (except an ssh
 * login), fragment, trailing `/` and `.git` dropped; scp form written as an ssh URL.
 */
export const normalizeGitUrl = (url: string): string => {
  const text = url.trim()
  const scp = SCP_FORM.exec(text)
  let parsed: URL
  try {
    parsed = new URL(scp ? scpAsUrl(scp[1]!, scp[2]!, scp[3]!) : text)
  } catch {
    return trimRepoPath(text)
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase()
  const user = scheme === 'ssh' && parsed.username ? `${parsed.username}@` : ''
  const port = parsed.port && parsed.port !== DEFAULT_PORTS[scheme] ? `:${parsed.port}` : ''
  return `${scheme}://${user}${parsed.hostname.toLowerCase()}${port}${trimRepoPath(parsed.pathname)}${parsed.search}`
}

/** A repository on this machine: only ever made by loadout from a local folder at a locked commit (a typed file:// is refused). */
export const isFileUrl = (url: string): boolean => url.startsWith('file://')
