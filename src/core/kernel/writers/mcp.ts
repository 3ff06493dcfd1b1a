/**
 * MCP server entries: one writer per target *shape* (registry/agents/*.json `mcp.shape`), converting
 * the Claude `.mcp.json` form a plugin declares into the value stored under the server's key in the
 * target's config. Pure functions: the config editors (JSON key, Codex TOML table) do the writing.
 */
import {runnerChanges} from './runner-options.js'
import {createHash} from '../crypto/node-crypto.js'
import type {McpServerConfig} from '../../model/plugin.js'
import {redactUrl} from '../sources/redact.js'
import {codexFieldsAsVars, codexRemote, codexStdio} from './mcp-codex.js'
import type {McpSection} from '../targets/types.js'

export type McpShape = McpSection['shape']

/** The converted entry and what did not survive the conversion, or why the shape cannot hold it. */
export type McpEntryResult = {value: Record<string, unknown>; notes: string[]} | {unsupported: string}

/** A server as it runs, whatever shape it was written in. */
type Transport =
  | {kind: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; cwd?: string}
  | {kind: 'http' | 'sse'; url: string; headers?: Record<string, string>}

const copyRecord = (record: Record<string, string>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(record)) {
    Object.defineProperty(out, key, {value, enumerable: true, writable: true, configurable: true})
  }
  return out
}

const nonEmptyRecord = (record: Record<string, string> | undefined): Record<string, string> | undefined =>
  record !== undefined && Object.keys(record).length > 0 ? copyRecord(record) : undefined

/** An object without its undefined members, so the stored value and its hash carry no holes. */
const compact = (fields: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value
  return out
}

const resolveTransport = (config: McpServerConfig, notes: string[]): Transport | {unsupported: string} => {
  const hasCommand = typeof config.command === 'string' && config.command.trim() !== ''
  const hasUrl = typeof config.url === 'string' && config.url.trim() !== ''
  let kind = config.type
  if (kind === undefined) {
    if (hasCommand) {
      kind = 'stdio'
      if (hasUrl) notes.push('both "command" and "url" given without "type": run as a local (stdio) server; "url" dropped')
    } else if (hasUrl) {
      kind = 'http'
      notes.push('no "type" given for a server with a "url": treated as streamable HTTP ("type": "http")')
    } else {
      return {unsupported: 'the server has neither a "command" nor a "url"'}
    }
  }
  if (kind === 'stdio') {
    if (!hasCommand) return {unsupported: 'a stdio server needs a "command"'}
    if (config.type === 'stdio' && hasUrl) notes.push('"url" dropped: a stdio server is started from its "command"')
    if (config.headers !== undefined && Object.keys(config.headers).length > 0) notes.push('"headers" dropped: a stdio server has no HTTP headers')
    return {
      kind,
      command: config.command!,
      args: config.args && config.args.length > 0 ? [...config.args] : undefined,
      env: nonEmptyRecord(config.env),
      cwd: config.cwd,
    }
  }
  if (kind === 'http' || kind === 'sse') {
    if (!hasUrl) return {unsupported: `an ${kind} server needs a "url"`}
    const dropped = (['command', 'args', 'env', 'cwd'] as const).filter((key) => config[key] !== undefined)
    if (dropped.length > 0) notes.push(`${dropped.map((key) => `"${key}"`).join(', ')} dropped: not used by a remote (${kind}) server`)
    return {kind, url: config.url!, headers: nonEmptyRecord(config.headers)}
  }
  return {unsupported: `unknown server type "${String(kind)}"`}
}

/** Two string maps as one, the second winning; undefined when both are. */
const merged = (a: Record<string, string> | undefined, b: Record<string, string> | undefined): Record<string, string> | undefined =>
  a === undefined ? b : b === undefined ? a : copyRecord({...a, ...b})

const dropNote = (field: string, shape: McpShape): string => `"${field}" dropped: the ${shape} shape has no such field`

/**
 * Converts one server from the Claude `.mcp.json` shape into `shape`:
 *
 * | shape | stdio | http / sse |
 * |---|---|---|
 * | `mcp-servers` (Claude, Cursor, deepagents) | `{command, args, env}` | `{type, url, headers}` |
 * | `opencode` | `{type: 'local', command: [command, ...args], environment}` | `{type: 'remote', url, headers}` |
 * | `vscode` (Copilot) | `{type: 'stdio', command, args, env}` | `{type, url, headers}` |
 * | `gemini` | `{command, args, env, cwd}` | http `{httpUrl, headers}`, sse `{url, headers}` |
 * | `cst-agent` | `{command, args, env, cwd, disabled, autoApprove}` | unsupported (stdio only) |
 * | `characteroid` | `{transport: 'stdio', command, args, env}` | `{transport: 'streamable_http' or 'sse', url}` |
 * | `codex` (a TOML table) | `{command, args, env, cwd}` | http `{url, http_headers}`; sse unsupported |
 *
 * Empty `args`, `env` and `headers` are left out. Every field the shape cannot hold is named in
 * `notes`; a server the shape cannot run at all comes back as `{unsupported: reason}`.
 */
export const renderMcpEntry = (config: McpServerConfig, shape: McpShape): McpEntryResult => {
  // no shape loadout writes can hold these: writing the server without them would widen it
  if (config.narrowing && config.narrowing.length > 0)
    return {
      unsupported: `it sets ${config.narrowing.map((f) => `"${f}"`).join(', ')}, which the ${shape} shape cannot hold; it is not written rather than given more tools or access than its author allowed`,
    }
  const notes: string[] = []
  const transport = resolveTransport(config, notes)
  if ('unsupported' in transport) return transport
  const stdio = transport.kind === 'stdio' ? transport : undefined
  const remote = transport.kind === 'stdio' ? undefined : transport

  // cst-agent's own switches; every other shape drops them
  if (shape !== 'cst-agent') {
    if (config.disabled !== undefined) notes.push(dropNote('disabled', shape))
    if (config.autoApprove !== undefined) notes.push(dropNote('autoApprove', shape))
  }
  if (shape !== 'codex' && shape !== 'mcp-servers') {
    const native = {
      bearer_token_env_var: config.bearerTokenEnvVar,
      env_http_headers: config.envHttpHeaders,
      env_vars: config.envVars,
      tool_timeout_sec: config.toolTimeoutSec,
      startup_timeout_sec: config.startupTimeoutSec,
      oauth: config.oauth,
    }
    for (const [field, value] of Object.entries(native)) if (value !== undefined) notes.push(dropNote(field, shape))
  }
  const dropCwd = (): void => {
    if (stdio?.cwd !== undefined) notes.push(dropNote('cwd', shape))
  }

  switch (shape) {
    case 'mcp-servers': {
      const native = codexFieldsAsVars(config, notes)
      if (stdio) {
        dropCwd()
        return {value: compact({command: stdio.command, args: stdio.args, env: merged(native.env, stdio.env)}), notes}
      }
      return {value: compact({type: remote!.kind, url: remote!.url, headers: merged(native.headers, remote!.headers), oauth: config.oauth}), notes}
    }
    case 'opencode': {
      if (stdio) {
        dropCwd()
        return {value: compact({type: 'local', command: [stdio.command, ...(stdio.args ?? [])], environment: stdio.env}), notes}
      }
      return {value: compact({type: 'remote', url: remote!.url, headers: remote!.headers}), notes}
    }
    case 'vscode': {
      if (stdio) {
        dropCwd()
        return {value: compact({type: 'stdio', command: stdio.command, args: stdio.args, env: stdio.env}), notes}
      }
      return {value: compact({type: remote!.kind, url: remote!.url, headers: remote!.headers}), notes}
    }
    case 'gemini': {
      if (stdio) return {value: compact({command: stdio.command, args: stdio.args, env: stdio.env, cwd: stdio.cwd}), notes}
      const urlKey = remote!.kind === 'http' ? 'httpUrl' : 'url'
      return {value: compact({[urlKey]: remote!.url, headers: remote!.headers}), notes}
    }
    case 'cst-agent': {
      if (!stdio) return {unsupported: `cst-agent runs only local (stdio) MCP servers; this one is a remote ${remote!.kind} server at a URL`}
      const autoApprove = Array.isArray(config.autoApprove) ? [...config.autoApprove] : config.autoApprove
      return {
        value: compact({command: stdio.command, args: stdio.args, env: stdio.env, cwd: stdio.cwd, disabled: config.disabled, autoApprove}),
        notes,
      }
    }
    case 'characteroid': {
      if (stdio) {
        dropCwd()
        return {value: compact({transport: 'stdio', command: stdio.command, args: stdio.args, env: stdio.env}), notes}
      }
      if (remote!.headers) notes.push(dropNote('headers', shape))
      return {value: {transport: remote!.kind === 'http' ? 'streamable_http' : 'sse', url: remote!.url}, notes}
    }
    case 'codex':
      return stdio ? codexStdio(config, stdio, notes) : codexRemote(config, remote!, notes)
    default: {
      const never: never = shape
      return {unsupported: `unknown MCP shape "${String(never)}"`}
    }
  }
}

export const MAX_MCP_KEY = 64
const HASH_LENGTH = 8

/**
 * The key a plugin's server is stored under: `<plugin>-<server>`, NFC-normalised, every character
 * outside `[A-Za-z0-9_-]` replaced by `_` (one per code point, so an emoji is one `_`). A key longer
 * than 64 characters is cut to 55 and given `-` and 8 hex digits of the sha256 of the plugin and
 * server names, so two long names that share their first 55 characters still get distinct keys.
 *
 * Replacing characters can make two inputs meet (`a.b` and `a_b` both give `a_b-…`); the installer
 * must treat a key that another plugin or the user already holds as a conflict, never overwrite it.
 */
export const mcpServerKey = (plugin: string, server: string): string => {
  const raw = `${plugin}-${server}`.normalize('NFC')
  let key = ''
  for (const char of raw) key += /^[A-Za-z0-9_-]$/.test(char) ? char : '_'
  if (key.length <= MAX_MCP_KEY) return key
  const hash = createHash('sha256')
    .update(`${plugin.normalize('NFC')}\0${server.normalize('NFC')}`)
    .digest('hex')
    .slice(0, HASH_LENGTH)
  return `${key.slice(0, MAX_MCP_KEY - HASH_LENGTH - 1)}-${hash}`
}

/** What a person is shown before an MCP server is installed. Values of env vars and headers never appear. */
export interface McpConsent {
  transport: 'stdio' | 'http' | 'sse' | 'unknown'
  command?: string
  args?: string[]
  cwd?: string
  /** names of the environment variables set for the server, sorted */
  envNames: string[]
  url?: string
  /** names of the HTTP headers sent to the server, sorted */
  headerNames: string[]
  /** what changes the runner itself (npx, uvx, docker): its options and variables, as written; absent when nothing does */
  runner?: string[]
}

/**
 * The command, arguments and URL as they will run, with only the names of environment variables and
 * headers (their values may be secrets) and any user-info in the URL shown as `***`. Consent is bound
 * to a fingerprint of this object, so a changed command, argument, variable name or host asks again.
 */
export const describeMcpForConsent = (config: McpServerConfig): McpConsent => {
  const transport = config.type ?? (config.command !== undefined ? 'stdio' : config.url !== undefined ? 'http' : 'unknown')
  return compact({
    transport,
    command: config.command,
    args: config.args ? [...config.args] : undefined,
    cwd: config.cwd,
    envNames: Object.keys(config.env ?? {}).sort(),
    url: config.url === undefined ? undefined : redactUrl(config.url),
    headerNames: Object.keys(config.headers ?? {}).sort(),
    runner: runnerChanges(config).length > 0 ? runnerChanges(config) : undefined,
  }) as unknown as McpConsent
}
