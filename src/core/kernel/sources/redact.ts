/**
 * Keeping secrets out of output. Every string that may hold a URL or a token (a source label, an
 * error message, a git error) passes through these before a person or a file sees it.
 */

/** Schemes whose user name is a login, not a secret (`ssh://git@host/...`). */
const SSH_SCHEMES = new Set(['ssh', 'git+ssh', 'ssh+git'])

const REDACTED = '***'

/** A scheme and any slashes after it (WHATWG accepts `https:u:p@host` and `https:\\u:p@host`). */
const SCHEME_START = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*):[/\\]*/g
const AUTHORITY_END = /[\s/?#]/

const isSshScheme = (scheme: string): boolean => SSH_SCHEMES.has(scheme.toLowerCase())

/** A user name alone is a secret except for ssh, where it is the login (`git`). */
const userInfoIsSecret = (scheme: string, userInfo: string): boolean => userInfo.includes(':') || (userInfo !== '' && !isSshScheme(scheme))

interface UserInfo {
  scheme: string
  /** where the scheme starts */
  at: number
  /** the user-info is text.slice(start, end); text[end] is its `@` */
  start: number
  end: number
}

/** For each position, where an authority starting there ends (whitespace, `/`, `?`, `#` or the end). */
const authorityEnds = (text: string): Int32Array => {
  const ends = new Int32Array(text.length + 1).fill(text.length)
  for (let i = text.length - 1; i >= 0; i--) ends[i] = AUTHORITY_END.test(text[i]!) ? i : ends[i + 1]!
  return ends
}

/** For each position, the index of the last `@` before it, or -1. */
const lastAtBefore = (text: string): Int32Array => {
  const ats = new Int32Array(text.length + 1).fill(-1)
  for (let i = 1; i <= text.length; i++) ats[i] = text[i - 1] === '@' ? i - 1 : ats[i - 1]!
  return ats
}

/**
 * Every URL user-info in `text`: after a scheme and its slashes, everything up to the last `@` before
 * the authority ends. With no slashes this also covers scp-style `git:password@host:owner/repo`.
 * Linear in the length of the text, whatever the text holds.
 */
const userInfos = (text: string): UserInfo[] => {
  const ends = authorityEnds(text)
  const ats = lastAtBefore(text)
  const found: UserInfo[] = []
  for (const match of text.matchAll(SCHEME_START)) {
    const previous = found.at(-1)
    if (previous && match.index <= previous.end) continue
    const start = match.index + match[0].length
    const end = ats[ends[start]!]!
    if (end >= start) found.push({scheme: match[1]!, at: match.index, start, end})
  }
  return found
}

/**
 * Replaces the user-info of every URL in `text` with `***`: `https://user:pass@host/x` becomes
 * `https://***@host/x`, `https://token@host` becomes `https://***@host`, `ssh://user:pw@host` becomes
 * `ssh://***@host`. An ssh login without a password (`ssh://git@host`, `git@host:o/r.git`) is kept;
 * a password in scp form (`git:pw@host:o/r.git`) becomes `git:***@host:o/r.git`.
 */
export const redactUrl = (text: string): string => {
  let redacted = ''
  let from = 0
  for (const info of userInfos(text)) {
    if (!userInfoIsSecret(info.scheme, text.slice(info.start, info.end))) continue
    redacted += `${text.slice(from, info.start)}${REDACTED}`
    from = info.end
  }
  return redacted + text.slice(from)
}

/**
 * Whether a URL carries a secret: a password, or a user name on any scheme but ssh. A string counts
 * when either userInfos or the WHATWG URL parser finds one, so `https:user:pw@host`,
 * `https://user:p w@host` and scp-style `git:pw@host:o/r` all count.
 */
export const hasCredentials = (url: URL | string): boolean => {
  if (typeof url !== 'string') return urlHasCredentials(url)
  const text = url.trim()
  const first = userInfos(text)[0]
  if (first?.at === 0 && userInfoIsSecret(first.scheme, text.slice(first.start, first.end))) return true
  const parsed = parsedUrl(url)
  return parsed !== undefined && urlHasCredentials(parsed)
}

const urlHasCredentials = (url: URL): boolean => url.password !== '' || (url.username !== '' && !isSshScheme(url.protocol.slice(0, -1)))

const parsedUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/** The forms a secret may take in text: as is, and percent-encoded (as it would sit in a URL). */
const secretForms = (secret: string): string[] => [...new Set([secret, encodeURIComponent(secret)])]

/**
 * Replaces every occurrence of each secret value (a token from the environment) with `***`.
 * Empty values are ignored; longer secrets are replaced first so one that contains another is
 * removed whole.
 */
export const redactSecrets = (text: string, secrets: readonly (string | undefined)[]): string =>
  secrets
    .filter((secret): secret is string => typeof secret === 'string' && secret.trim() !== '')
    .flatMap(secretForms)
    .sort((a, b) => b.length - a.length)
    .reduce((redacted, secret) => redacted.split(secret).join(REDACTED), text)
