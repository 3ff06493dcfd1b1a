import {resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {usageError} from '../../model/errors.js'
import {npmSpecRule} from './npm-spec.js'
import {hasCredentials, redactUrl} from './redact.js'
import type {Source, SourceKind} from '../../model/source.js'
import {DEFAULT_GITHUB_URL, SCP_FORM} from './git-url.js'
import {describeSource, gitUrlOfSource} from './kinds/index.js'
import {matchOci} from './kinds/oci.js'

/**
 * Turning what a user typed into a Source. One table (ACCEPTED_SOURCE_FORMS) says which forms are
 * accepted, in the order they are tried; one table (REFUSALS) says what is refused first, each with
 * its own error. Everything else is one `unrecognized-source` error listing the accepted forms.
 *
 * A bare `owner/repo` is always GitHub, even when a folder of that name exists: write `./owner/repo`
 * for the folder. A bare path ending in `.json` is a local catalog file.
 */

export interface ParseSourceOptions {
  /** where relative paths resolve */
  cwd: string
  /** what `~` means */
  home: string
  /** the --ref flag: overrides a ref written in the source (github and git sources; a local folder with it is read as a git repository) */
  ref?: string
  /** $LOADOUT_GITHUB_URL: its host is treated like github.com (GitHub Enterprise) */
  githubUrl?: string
}

export {normalizeGitUrl} from './git-url.js'

/** A web host whose repository URLs need no `.git` suffix; `nested` allows groups (GitLab). */
export interface GitHost {
  origin: string
  basePath: string
  nested: boolean
}

export const KNOWN_GIT_HOSTS: readonly GitHost[] = [
  {origin: 'https://github.com', basePath: '', nested: false},
  {origin: 'https://gitlab.com', basePath: '', nested: true},
  {origin: 'https://bitbucket.org', basePath: '', nested: false},
  {origin: 'https://codeberg.org', basePath: '', nested: false},
]

export interface FormContext {
  cwd: string
  home: string
  gitHosts: readonly GitHost[]
}

export interface SourceForm {
  name: string
  /** how the form is written, for help text and the README */
  pattern: string
  example: string
  kind: SourceKind
  /**
   * The Source `input` means in this form, or undefined when it is not of this form. Throws a usage
   * error when the input is clearly of this form but broken (a bad ref, an invalid repository name).
   */
  match: (input: string, context: FormContext) => Source | undefined
}

// ---------------------------------------------------------------------------------------------
// Small checks

const GITHUB_OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/
const GITHUB_REPO = /^[A-Za-z0-9._-]{1,100}$/
/** `owner/repo` with an optional `@ref` or `#ref`; the names are checked by githubNameProblem. */
const OWNER_REPO = /^([^/\s@#:]+)\/([^/\s@#:]+)(?:([@#])(.*))?$/
/** scp-style ssh: `user@host:path[#ref]`; neither user, host nor path may start with `-`. */
const SSH_HOST = /^(?:[A-Za-z0-9_][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\])$/
const SSH_USER = /^[A-Za-z0-9._][A-Za-z0-9._-]*$/
const ARCHIVE_PATH = /\.(?:tar\.gz|tgz)$/i
const SHA256_FRAGMENT = /^sha256=([0-9a-fA-F]{64})$/
const LOCAL_PATH = /^(?:(?:\.{1,2}|~)(?:\/|$)|\/)/
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//
const REMOTE_HELPER = /^([A-Za-z][A-Za-z0-9+.-]*)::/
const ALLOWED_SCHEMES = new Set(['https', 'ssh', 'oci'])
const ALLOWED_TRANSPORTS = 'https://host/path.git, ssh://[user@]host/path or git@host:path'

const stripGitSuffix = (name: string): string => name.replace(/\.git$/i, '')

/** Why `owner`/`repo` is not a GitHub repository name, or undefined when it is one. */
const githubNameProblem = (owner: string, repo: string): string | undefined => {
  if (!GITHUB_OWNER.test(owner)) return `owner "${owner}" must be 1-39 letters, digits or hyphens, not starting with a hyphen`
  const name = stripGitSuffix(repo)
  if (!GITHUB_REPO.test(name)) return `repository "${repo}" must be 1-100 letters, digits, ".", "-" or "_"`
  if (name === '.' || name === '..') return `repository "${repo}" cannot be "." or ".."`
  return undefined
}

/** Why `ref` is not a ref git would accept (git check-ref-format, plus no leading "-"). */
const refProblem = (ref: string): string | undefined => {
  if (ref === '') return 'is empty'
  if (ref.length > 255) return 'is longer than 255 characters'
  if (ref.startsWith('-')) return 'starts with "-"'
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref)) return 'has a space, a control character or one of ~ ^ : ? * [ \\'
  if (ref.includes('..')) return 'contains ".."'
  if (ref === '@' || ref.includes('@{')) return 'is "@" or contains "@{"'
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) return 'has an empty path component'
  if (ref.endsWith('.') || ref.endsWith('.lock')) return 'ends with "." or ".lock"'
  if (ref.split('/').some((part) => part.startsWith('.'))) return 'has a path component starting with "."'
  return undefined
}

/** What an error may echo of the input: credentials redacted, long input cut, quoted and escaped. */
const quote = (input: string): string => {
  const redacted = redactUrl(input.trim())
  return JSON.stringify(redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted)
}

const checkedRef = (ref: string): string => {
  const problem = refProblem(ref)
  if (problem === undefined) return ref
  throw usageError('invalid-ref', `ref ${quote(ref)} ${problem}`, {
    suggestions: ['name a branch, tag or commit the way git does, e.g. main, v1.2.0 or feature/x'],
  })
}

type RepositorySource = Extract<Source, {kind: 'github' | 'git'}>

const withRef = (source: RepositorySource, ref: string | undefined): RepositorySource => (ref === undefined ? source : {...source, ref: checkedRef(ref)})

const localPath = (input: string, context: FormContext): string =>
  input === '~' || input.startsWith('~/') ? resolve(context.home, input.slice(2)) : resolve(context.cwd, input)

// ---------------------------------------------------------------------------------------------
// URLs

/** The input as a URL when it is written `https://...` and parses; undefined otherwise. */
const httpsUrl = (input: string): URL | undefined => {
  if (!/^https:\/\//i.test(input)) return undefined
  try {
    return new URL(input)
  } catch {
    return undefined
  }
}

/** The `#fragment` of a URL, percent-decoded, or undefined when there is none. */
const fragmentOf = (url: URL): string | undefined => {
  if (url.hash === '') return undefined
  try {
    return decodeURIComponent(url.hash.slice(1))
  } catch {
    throw usageError('invalid-ref', `the fragment of ${quote(url.href)} is not valid percent-encoding`, {
      suggestions: ['write the ref after # as git names it, e.g. #main or #v1.2.0'],
    })
  }
}

/** The URL without its fragment and without trailing slashes on the path. */
const repositoryUrl = (url: URL): string => {
  const copy = new URL(url.href)
  copy.hash = ''
  copy.pathname = copy.pathname.replace(/\/+$/, '') || '/'
  return copy.href
}

const gitSource = (url: URL): Source => withRef({kind: 'git', url: repositoryUrl(url)}, fragmentOf(url))

/** The path segments of `url` below `host`, when `url` is on that host; undefined otherwise. */
const segmentsOn = (url: URL, host: GitHost): string[] | undefined => {
  const base = `${host.basePath.replace(/\/+$/, '')}/`
  if (url.origin !== host.origin || !url.pathname.startsWith(base)) return undefined
  return stripGitSuffix(url.pathname.slice(base.length).replace(/\/+$/, '')).split('/')
}

const isRepositoryOnKnownHost = (url: URL, hosts: readonly GitHost[]): boolean =>
  hosts.some((host) => {
    const segments = segmentsOn(url, host)
    if (segments === undefined || segments.some((s) => s === '' || s === '-')) return false
    return host.nested ? segments.length >= 2 : segments.length === 2
  })

/** The host of $LOADOUT_GITHUB_URL joins the known git hosts, so Enterprise URLs need no `.git`. */
const gitHostsFor = (githubUrl: string | undefined): GitHost[] => {
  if (!githubUrl) return [...KNOWN_GIT_HOSTS]
  try {
    const url = new URL(githubUrl)
    if (url.protocol !== 'https:') return [...KNOWN_GIT_HOSTS]
    return [...KNOWN_GIT_HOSTS, {origin: url.origin, basePath: url.pathname.replace(/\/+$/, ''), nested: false}]
  } catch {
    return [...KNOWN_GIT_HOSTS]
  }
}

// ---------------------------------------------------------------------------------------------
// The accepted forms, in the order they are tried

const matchGithub = (text: string): Source | undefined => {
  const match = OWNER_REPO.exec(text)
  if (!match || githubNameProblem(match[1]!, match[2]!)) return undefined
  return withRef({kind: 'github', owner: match[1]!, repo: stripGitSuffix(match[2]!)}, match[3] === undefined ? undefined : match[4]!)
}

const matchGithubPrefixed = (input: string): Source | undefined => {
  if (!/^github:/i.test(input)) return undefined
  const rest = input.slice('github:'.length)
  const match = OWNER_REPO.exec(rest)
  const problem = match ? githubNameProblem(match[1]!, match[2]!) : 'expected github:owner/repo'
  if (problem !== undefined) {
    throw usageError('invalid-github-repository', `${quote(input)} is not a GitHub repository: ${problem}`, {
      suggestions: ['write it as github:owner/repo, owner/repo@ref or owner/repo#ref'],
    })
  }
  return matchGithub(rest)
}

const matchScp = (input: string): Source | undefined => {
  const match = SCP_FORM.exec(input)
  if (!match) return undefined
  const ref = match[4] === undefined || match[4] === '' ? undefined : match[4]
  return withRef({kind: 'git', url: `${match[1]}@${match[2]}:${match[3]}`}, ref)
}

const matchSsh = (input: string): Source | undefined => {
  if (!/^ssh:\/\//i.test(input)) return undefined
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw invalidUrl(input, 'it does not parse as a URL')
  }
  if (!SSH_HOST.test(url.hostname)) throw invalidUrl(input, 'the host must be a name or an address, not starting with "-"')
  if (url.username !== '' && !SSH_USER.test(url.username)) throw invalidUrl(input, 'the user name must not start with "-"')
  if (url.pathname.length <= 1) throw invalidUrl(input, 'it names no repository path')
  return gitSource(url)
}

const matchArchive = (input: string): Source | undefined => {
  const url = httpsUrl(input)
  if (!url || !ARCHIVE_PATH.test(url.pathname)) return undefined
  const fragment = fragmentOf(url)
  const copy = new URL(url.href)
  copy.hash = ''
  if (fragment === undefined) return {kind: 'archive', url: copy.href}
  const sha256 = SHA256_FRAGMENT.exec(fragment)?.[1]
  if (sha256 === undefined) {
    throw usageError('invalid-archive-checksum', `the fragment of ${quote(input)} must be #sha256=<64 hex digits>`, {
      suggestions: ["leave the fragment out, or give the archive's sha256 as #sha256=<64 hex digits>"],
    })
  }
  return {kind: 'archive', url: copy.href, sha256: sha256.toLowerCase()}
}

const matchGitHttps = (input: string): Source | undefined => {
  const url = httpsUrl(input)
  return url && /\.git\/*$/i.test(url.pathname) ? gitSource(url) : undefined
}

const matchKnownHost = (input: string, context: FormContext): Source | undefined => {
  const url = httpsUrl(input)
  return url && isRepositoryOnKnownHost(url, context.gitHosts) ? gitSource(url) : undefined
}

const matchCatalogUrl = (input: string): Source | undefined => {
  if (!/^https:\/\//i.test(input)) return undefined
  const url = httpsUrl(input)
  if (!url) throw invalidUrl(input, 'it does not parse as a URL')
  return {kind: 'catalog-url', url: url.href}
}

const matchLocalPath = (input: string, context: FormContext): Source | undefined =>
  LOCAL_PATH.test(input) ? {kind: 'local', path: localPath(input, context)} : undefined

const matchLocalJson = (input: string, context: FormContext): Source | undefined =>
  /\.json$/i.test(input) && !input.includes(':') ? {kind: 'local', path: localPath(input, context)} : undefined

const invalidUrl = (input: string, why: string) =>
  usageError('invalid-url', `${quote(input)} is not a usable URL: ${why}`, {suggestions: [`use ${ALLOWED_TRANSPORTS}`]})

const NPM_FORM = /^npm:((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(?:@([^\s@]+))?$/

const matchNpm = (input: string): Source | undefined => {
  if (!input.startsWith('npm:')) return undefined
  const match = NPM_FORM.exec(input)
  const spec = match ? {package: match[1]!, ...(match[2] ? {version: match[2]} : {})} : undefined
  const rule = spec
    ? npmSpecRule(spec)
    : 'is not npm:<package>[@<range>] (a package name is lowercase letters, digits, "-", ".", "_", "~", with an optional @scope/)'
  if (rule || !spec) throw usageError('bad-npm-source', `${quote(input)}: ${rule}`, {suggestions: ['write it as npm:@scope/name@^1.2 or npm:name']})
  return {kind: 'npm', ...spec}
}

export const ACCEPTED_SOURCE_FORMS: readonly SourceForm[] = [
  {name: 'local folder', pattern: './dir, ../dir, /abs/dir, ~/dir', example: './my-plugins', kind: 'local', match: matchLocalPath},
  {name: 'local catalog file', pattern: 'path/to/file.json', example: 'marketplace.json', kind: 'local', match: matchLocalJson},
  {
    name: 'OCI registry artifact',
    pattern: 'oci://host[:port]/repo(:tag|@sha256:<hex>|:<range>)',
    example: 'oci://ghcr.io/acme/kit:1.2.0',
    kind: 'oci',
    match: matchOci,
  },
  {name: 'npm package', pattern: 'npm:<package>[@<range>]', example: 'npm:@acme/agent-tools@^1.2', kind: 'npm', match: matchNpm},
  {name: 'GitHub repository', pattern: 'owner/repo[@ref|#ref]', example: 'acme/agent-tools@v1.2.0', kind: 'github', match: matchGithub},
  {name: 'GitHub repository', pattern: 'github:owner/repo[@ref|#ref]', example: 'github:acme/agent-tools', kind: 'github', match: matchGithubPrefixed},
  {name: 'git over ssh (scp form)', pattern: 'user@host:path[#ref]', example: 'git@gitlab.com:group/tools.git', kind: 'git', match: matchScp},
  {
    name: 'git over ssh',
    pattern: 'ssh://[user@]host[:port]/path[#ref]',
    example: 'ssh://git@git.example.com:2222/team/tools.git',
    kind: 'git',
    match: matchSsh,
  },
  {
    name: 'archive (.tar.gz or .tgz)',
    pattern: 'https://host/file.tar.gz[#sha256=<hex>]',
    example: 'https://example.com/tools-1.0.tgz',
    kind: 'archive',
    match: matchArchive,
  },
  {name: 'git over https', pattern: 'https://host/path.git[#ref]', example: 'https://git.example.com/team/tools.git#v2', kind: 'git', match: matchGitHttps},
  {
    name: 'repository on github.com, gitlab.com, bitbucket.org or codeberg.org',
    pattern: 'https://github.com/owner/repo',
    example: 'https://gitlab.com/group/sub/tools',
    kind: 'git',
    match: matchKnownHost,
  },
  {name: 'catalog URL', pattern: 'https://host/any/other/path', example: 'https://example.com/marketplace.json', kind: 'catalog-url', match: matchCatalogUrl},
]

/** One line per accepted form, for error messages and help. */
export const acceptedSourceFormLines = (): string[] => {
  const width = Math.max(...ACCEPTED_SOURCE_FORMS.map((form) => form.pattern.length))
  return ACCEPTED_SOURCE_FORMS.map((form) => `${form.pattern.padEnd(width)}  ${form.name} (${form.kind}), e.g. ${form.example}`)
}

// ---------------------------------------------------------------------------------------------
// What is refused before any form is tried, in order

interface Refusal {
  code: string
  refuses: (input: string) => boolean
  message: (input: string) => string
  suggestions: (input: string) => string[]
}

const transportOf = (input: string): string | undefined => {
  const text = input.trim()
  const helper = REMOTE_HELPER.exec(text)?.[1]
  if (helper !== undefined) return `${helper}::`
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase()
  return scheme === undefined || scheme === 'http' || ALLOWED_SCHEMES.has(scheme) ? undefined : `${scheme}://`
}

/**
 * The credentials error shows the input with its user-info masked: rebuilt from the parsed URL
 * when the URL parser finds the user-info, else as redactUrl leaves it, else not at all.
 */
const maskedCredentials = (input: string): string => {
  const text = input.trim()
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  if (url && (url.username !== '' || url.password !== '')) return ` ${JSON.stringify(`${url.protocol}//***@${url.host}${url.pathname}`)}`
  return redactUrl(text) === text ? '' : ` ${quote(text)}`
}

const REFUSALS: readonly Refusal[] = [
  {
    code: 'source-empty',
    refuses: (input) => input.trim() === '',
    message: () => 'the source is empty',
    suggestions: () => ['name a source, e.g. owner/repo, https://host/path.git or ./dir'],
  },
  {
    code: 'source-has-credentials',
    // npm:pkg@range has an "@" after a "scheme:", but names a package, never a host to log in to
    refuses: (input) => !NPM_FORM.test(input.trim()) && hasCredentials(input),
    message: (input) => `the source${maskedCredentials(input)} has a user name or password in it, which loadout refuses`,
    suggestions: () => ["remove the credentials from the URL; use LOADOUT_TOKEN or git's credential helper"],
  },
  {
    code: 'source-control-characters',
    refuses: (input) => INVISIBLE.test(input),
    message: (input) => {
      const at = input.search(INVISIBLE)
      const code = input.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')
      return `the source contains a control or invisible character (U+${code} at position ${at + 1})`
    },
    suggestions: () => ['type the source again on one line, without pasted control characters'],
  },
  {
    code: 'source-looks-like-option',
    refuses: (input) => input.trim().startsWith('-'),
    message: (input) => `${quote(input)} starts with "-", so git would read it as an option; loadout refuses it`,
    suggestions: () => ['a source never starts with "-"; for a local folder of that name write ./ in front'],
  },
  {
    code: 'source-insecure-transport',
    refuses: (input) => /^http:\/\//i.test(input.trim()),
    message: (input) => `remote sources must use https: ${quote(input)}`,
    suggestions: (input) => [`use ${quote(input.trim().replace(/^http:/i, 'https:'))} if the server offers https`],
  },
  {
    code: 'source-transport-not-allowed',
    refuses: (input) => transportOf(input) !== undefined,
    message: (input) => `${quote(input)} uses the ${transportOf(input)} transport, which loadout does not allow`,
    suggestions: (input) => [
      `remote sources use ${ALLOWED_TRANSPORTS}`,
      ...(transportOf(input)?.startsWith('file') ? ['for a local folder or file, give its path: ./dir, /abs/dir or ~/dir'] : []),
    ],
  },
]

// ---------------------------------------------------------------------------------------------
// The parser

const unrecognizedHints = (text: string): string[] => {
  const shorthand = OWNER_REPO.exec(text)
  const problem = shorthand ? githubNameProblem(shorthand[1]!, shorthand[2]!) : undefined
  if (problem !== undefined) return [`not a GitHub owner/repo: ${problem}`]
  if (!text.includes(':')) return [`for a local folder or file, write ${quote(`./${text}`)}`]
  return []
}

const unrecognized = (text: string) =>
  usageError('unrecognized-source', `${quote(text)} is not a source loadout understands`, {
    suggestions: [...unrecognizedHints(text), 'a source is one of:', ...acceptedSourceFormLines().map((line) => `  ${line}`)],
    details: {accepted: ACCEPTED_SOURCE_FORMS.map(({name, pattern, kind, example}) => ({name, pattern, kind, example}))},
  })

const refOptionApplied = (source: Source, ref: string | undefined): Source => {
  if (ref === undefined) return source
  if (source.kind === 'github' || source.kind === 'git') return {...source, ref: checkedRef(ref)}
  // a folder with a ref is a git repository on this machine: read through git at that ref, not as its work tree
  if (source.kind === 'local' && !/\.json$/i.test(source.path)) return {kind: 'git', url: pathToFileURL(source.path).href, ref: checkedRef(ref)}
  throw usageError('ref-not-allowed', `--ref applies to GitHub and git sources, but ${quote(sourceLabel(source))} is a ${source.kind} source`, {
    suggestions: ['leave out --ref, or name a git repository (owner/repo, https://host/path.git, or a folder of one)'],
  })
}

/**
 * The Source a user string names. Pure: it reads no files and sends nothing. Throws a usage error
 * (exit 2) for a refused or unrecognized string; no error ever echoes credentials.
 */
export const parseSource = (input: string, options: ParseSourceOptions): Source => {
  const refusal = REFUSALS.find((r) => r.refuses(input))
  if (refusal) throw usageError(refusal.code, refusal.message(input), {suggestions: refusal.suggestions(input)})
  const text = input.trim()
  const context: FormContext = {cwd: options.cwd, home: options.home, gitHosts: gitHostsFor(options.githubUrl)}
  for (const form of ACCEPTED_SOURCE_FORMS) {
    const source = form.match(text, context)
    if (source) return refOptionApplied(source, options.ref)
  }
  throw unrecognized(text)
}

// ---------------------------------------------------------------------------------------------
// Using a Source

/** How a Source is shown to people: credentials redacted; github and git labels parse back. */
export const sourceLabel = (source: Source): string => describeSource(source)

/** The URL git clones: `${githubUrl}/owner/repo.git` for GitHub, the URL for git, else undefined. */
export const cloneUrl = (source: Source, githubUrl: string = DEFAULT_GITHUB_URL): string | undefined => gitUrlOfSource(source, githubUrl)
