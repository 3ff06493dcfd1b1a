/**
 * A standalone MCP server: one entry, written under its own name into each chosen agent. It is
 * installed as a one-server plugin with the id `mcp:<name>@local` (added on the command line) or
 * `mcp:<name>@registry` (from an MCP Registry), so list, verify and uninstall work on it unchanged.
 */
import {usageError} from '../../model/errors.js'
import {envReference, isEnvName, referencedEnvNames} from '../writers/env-refs.js'
import type {McpServerConfig} from '../../model/plugin.js'
import {redactUrl} from '../sources/redact.js'

export type McpOrigin = {kind: 'local'} | {kind: 'registry'; registry: string; server: string; version: string}

export interface McpServerSpec {
  /** the key in every agent's config, and the `<name>` of the id */
  name: string
  config: McpServerConfig
  origin: McpOrigin
  /** variables the server needs that the user must set (it is written as a reference to them) */
  requiredEnv: string[]
  /** what was filled in or left out on the way, for the person */
  notes: string[]
}

export const MCP_PREFIX = 'mcp:'
export const isMcpId = (id: string): boolean => id.startsWith(MCP_PREFIX)
export const mcpId = (name: string, origin: McpOrigin): string => `${MCP_PREFIX}${name}@${origin.kind}`
export const mcpNameOf = (id: string): string => id.slice(MCP_PREFIX.length).split('@')[0]!

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

export const checkServerName = (name: string): string => {
  if (!SERVER_NAME.test(name)) {
    throw usageError('bad-server-name', `"${name}" cannot name an MCP server: use 1 to 64 letters, digits, "-" or "_", starting with a letter or digit`, {
      suggestions: ['choose another name, e.g. loadout mcp add my-server -- my-server-command'],
    })
  }
  return name
}

/** Names whose value is a credential: such a value is written only as a reference to a variable. */
const SECRET_NAME = /key|token|secret|passw|auth|cookie|credential/i

/**
 * Values that are credentials whatever they are called: GitHub, GitLab, Slack, OpenAI/Anthropic-style,
 * AWS and npm tokens, private keys, and URLs with a password (`postgres://user:pw@host`).
 */
const SECRET_SHAPES: ReadonlyArray<[string, RegExp]> = [
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/],
  ['a GitLab token', /\bglpat-[A-Za-z0-9_-]{20,}/],
  ['a Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/],
  ['an API key', /\bsk-(?:[A-Za-z]+-)?[A-Za-z0-9_-]{20,}/],
  ['an AWS access key', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/],
  ['an npm token', /\bnpm_[A-Za-z0-9]{36}\b/],
  ['a private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['a URL with a password', /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i],
]

/** What kind of credential `value` looks like, or undefined (a `${VAR}` reference is never one). */
export const secretShape = (value: string): string | undefined => {
  const literal = value.replace(/\$\{[^}]*\}/g, '')
  return SECRET_SHAPES.find(([, shape]) => shape.test(literal))?.[0]
}

/** The URL with every query value shown as `***`, for messages. */
const withoutQueryValues = (url: URL): string => {
  const shown = new URL(url.href)
  for (const name of [...new Set(shown.searchParams.keys())]) shown.searchParams.set(name, '***')
  return redactUrl(shown.href)
}

/**
 * A server URL loadout will write: https only (a plain http URL would carry the session and any
 * token in the clear) and no user name or password in it (it would sit in the agent's config).
 */
export const checkServerUrl = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw usageError('bad-server-url', `"${redactUrl(url)}" is not a URL`)
  }
  const secret = [...parsed.searchParams].find(([name, value]) => SECRET_NAME.test(name) && value !== '' && referencedEnvNames(value).length === 0)
  if (secret) {
    throw usageError(
      'secret-in-url',
      `refusing ${withoutQueryValues(parsed)}: its query parameter "${secret[0]}" holds a credential, which would be written into each agent's config and shown`,
      {suggestions: ['send the credential in a header that refers to an environment variable: --header X-Api-Key=${MY_KEY}']},
    )
  }
  if (parsed.username || parsed.password) {
    throw usageError('credentials-in-url', `refusing ${redactUrl(url)}: it has a user name or password in it, which would be written into the agent's config`, {
      suggestions: ['pass the credential in a header that refers to an environment variable: --header Authorization=Bearer ${MY_TOKEN}'],
    })
  }
  if (parsed.protocol !== 'https:') {
    throw usageError('insecure-url', `refusing ${redactUrl(url)}: an MCP server URL must use https (${parsed.protocol} would send the session in the clear)`, {
      suggestions: ['use the https:// address of the server'],
    })
  }
  return url
}

const splitPair = (pair: string): [string, string | undefined] => {
  const at = pair.indexOf('=')
  return at < 0 ? [pair, undefined] : [pair.slice(0, at), pair.slice(at + 1)]
}

/**
 * `--env NAME=value` sets a value; `--env NAME` alone passes NAME through as a reference the agent
 * expands. A literal value for a name that looks like a credential is refused: it would be written
 * to disk in the clear.
 */
export const parseEnvPairs = (pairs: readonly string[]): {env: Record<string, string>; referenced: string[]} => {
  const env: Record<string, string> = {}
  for (const pair of pairs) {
    const [name, value] = splitPair(pair)
    if (!isEnvName(name))
      throw usageError('bad-env-name', `--env ${JSON.stringify(name)}: an environment variable name is letters, digits and "_", not starting with a digit`)
    const shape = value === undefined ? undefined : secretShape(value)
    if (shape) {
      throw usageError('secret-value', `--env ${name}=…: the value looks like ${shape}; refusing to write it into the agent's config in the clear`, {
        suggestions: [`pass it as a reference the agent expands: --env ${name} (then set ${name} in the agent's environment)`],
      })
    }
    if (value !== undefined && SECRET_NAME.test(name) && referencedEnvNames(value).length === 0) {
      throw usageError('secret-value', `--env ${name}=…: refusing to write the value of ${name} into the agent's config in the clear`, {
        suggestions: [`pass it as a reference the agent expands: --env ${name} (then set ${name} in the agent's environment)`],
      })
    }
    env[name] = value ?? envReference(name)
  }
  return {env, referenced: referencedEnvNames(env)}
}

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

export const parseHeaderPairs = (pairs: readonly string[]): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of pairs) {
    const [name, value] = splitPair(pair)
    if (!HEADER_NAME.test(name) || value === undefined) throw usageError('bad-header', `--header ${JSON.stringify(name)}: give it as Name=value`)
    // a line break would end the header and start another one the user never typed
    if (/[\r\n\0]/.test(value)) throw usageError('bad-header', `--header ${name}=…: a header value cannot hold a line break or a NUL`)
    const shape = secretShape(value)
    if (shape) {
      throw usageError('secret-value', `--header ${name}=…: the value looks like ${shape}; refusing to write it into the agent's config in the clear`, {
        suggestions: [`refer to an environment variable instead: --header '${name}=Bearer \${MY_TOKEN}'`],
      })
    }
    if (SECRET_NAME.test(name) && referencedEnvNames(value).length === 0) {
      throw usageError('secret-value', `--header ${name}=…: refusing to write a credential into the agent's config in the clear`, {
        suggestions: [`refer to an environment variable instead: --header '${name}=Bearer \${MY_TOKEN}'`],
      })
    }
    headers[name] = value
  }
  return headers
}

export interface LocalServerInput {
  name: string
  command?: readonly string[]
  url?: string
  transport?: 'http' | 'sse'
  env?: readonly string[]
  headers?: readonly string[]
}

/** What `loadout mcp add` was given, as a server spec: a command to run, or an https URL. */
export const localServerSpec = (input: LocalServerInput): McpServerSpec => {
  const name = checkServerName(input.name)
  const command = input.command ?? []
  if (command.length > 0 && input.url !== undefined) throw usageError('command-and-url', 'give either a command (after --) or --url, not both')
  if (command.length === 0 && input.url === undefined) {
    throw usageError('no-command', `MCP server "${name}" needs a command to run or a URL`, {
      suggestions: [`loadout mcp add ${name} -- npx -y some-mcp-server`, `loadout mcp add ${name} --url https://mcp.example.com/mcp`],
    })
  }
  const origin: McpOrigin = {kind: 'local'}
  if (input.url !== undefined) {
    if ((input.env ?? []).length > 0) throw usageError('env-for-url', '--env is for a server loadout starts with a command; a URL server takes --header')
    const headers = parseHeaderPairs(input.headers ?? [])
    const config: McpServerConfig = {type: input.transport ?? 'http', url: checkServerUrl(input.url), ...(Object.keys(headers).length > 0 ? {headers} : {})}
    return {name, config, origin, requiredEnv: referencedEnvNames(config), notes: []}
  }
  if ((input.headers ?? []).length > 0 || input.transport !== undefined)
    throw usageError('header-for-command', '--header and --transport are for a URL server (--url)')
  const [program, ...args] = command
  for (const [i, word] of command.entries()) {
    const shape = secretShape(word)
    if (shape)
      throw usageError('secret-value', `word ${i + 1} of the command looks like ${shape}; refusing to write it into the agent's config in the clear`, {
        suggestions: ['pass it in a variable the agent expands: --env NAME, and refer to it in the command as ${NAME}'],
      })
  }
  const {env} = parseEnvPairs(input.env ?? [])
  const config: McpServerConfig = {command: program!, ...(args.length > 0 ? {args} : {}), ...(Object.keys(env).length > 0 ? {env} : {})}
  return {name, config, origin, requiredEnv: referencedEnvNames(config), notes: []}
}

const isStringRecord = (value: unknown): value is Record<string, string> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string')

/**
 * A command-line server as a project declares it in loadout.json (untrusted: it is checked as
 * strictly as `mcp add` checks its flags, and installing it still asks for consent).
 */
export const declaredLocalSpec = (name: string, raw: unknown): McpServerSpec => {
  const bad = (why: string) => usageError('bad-declared-server', `loadout.json declares MCP server "${name}" with ${why}`)
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('no "server" object')
  const value = raw as Record<string, unknown>
  let config: McpServerConfig
  if (typeof value.url === 'string') {
    if (value.headers !== undefined && !isStringRecord(value.headers)) throw bad('headers that are not strings')
    if (value.type !== undefined && value.type !== 'http' && value.type !== 'sse') throw bad(`an unknown type ${JSON.stringify(value.type)}`)
    config = {type: (value.type as 'http' | 'sse' | undefined) ?? 'http', url: checkServerUrl(value.url), ...(value.headers ? {headers: value.headers} : {})}
  } else if (typeof value.command === 'string' && value.command !== '') {
    if (value.args !== undefined && !(Array.isArray(value.args) && value.args.every((a) => typeof a === 'string'))) throw bad('arguments that are not strings')
    if (value.env !== undefined && !isStringRecord(value.env)) throw bad('environment values that are not strings')
    config = {command: value.command, ...(value.args ? {args: value.args as string[]} : {}), ...(value.env ? {env: value.env} : {})}
  } else throw bad('neither a command nor a url')
  return {name: checkServerName(name), config, origin: {kind: 'local'}, requiredEnv: referencedEnvNames(config), notes: []}
}
