/**
 * Codex does not expand `${VAR}` in its MCP tables: text written there reaches the server literally.
 * Each place a plugin uses a variable is translated to the field Codex has for it, or the server is
 * not written and the reason says what would have been lost:
 *  - `Authorization: Bearer ${X}` -> `bearer_token_env_var = "X"`; another `${X}` header -> `env_http_headers`;
 *  - `env: {X: "${X}"}` -> `env_vars = ["X"]`; docker's `-e X=${X}` -> `-e X` plus `env_vars`;
 *  - Codex's own fields (`bearer_token_env_var`, `env_http_headers`, `env_vars`, `tool_timeout_sec`,
 *    `startup_timeout_sec`) are kept.
 */
import type {McpServerConfig} from '../../model/plugin.js'

type Stdio = {command: string; args?: string[]; env?: Record<string, string>; cwd?: string}
type Remote = {kind: 'http' | 'sse'; url: string; headers?: Record<string, string>}
export type CodexResult = {value: Record<string, unknown>; notes: string[]} | {unsupported: string}

// the plugin's own path variables are written as paths by the installer before this runs
const ANY_VAR = /\$\{(?!(?:CLAUDE_)?PLUGIN_(?:ROOT|DATA)\})[^}]*\}/
const WHOLE_VAR = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/
const BEARER = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/
const DOCKER_ENV = /^([A-Za-z_][A-Za-z0-9_]*)=\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/

const lost = (what: string) => ({unsupported: `Codex does not expand \${VAR}: ${what} would reach the server as literal text; not written`})

const compact = (fields: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue
    if (typeof value === 'object' && !Array.isArray(value) && value !== null && Object.keys(value).length === 0) continue
    Object.defineProperty(out, key, {value, enumerable: true, writable: true, configurable: true})
  }
  return out
}

const timeouts = (config: McpServerConfig) => ({tool_timeout_sec: config.toolTimeoutSec, startup_timeout_sec: config.startupTimeoutSec})

export const codexStdio = (config: McpServerConfig, stdio: Stdio, notes: string[]): CodexResult => {
  if (ANY_VAR.test(stdio.command)) return lost(`"command" ${JSON.stringify(stdio.command)}`)
  const envVars = new Set(config.envVars ?? [])
  const args: string[] = []
  for (const [i, arg] of (stdio.args ?? []).entries()) {
    const docker = DOCKER_ENV.exec(arg)
    const previous = stdio.args![i - 1]
    if (docker && docker[1] === docker[2] && (previous === '-e' || previous === '--env')) {
      args.push(docker[1]!)
      envVars.add(docker[1]!)
    } else if (ANY_VAR.test(arg)) return lost(`the argument ${JSON.stringify(arg)}`)
    else args.push(arg)
  }
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(stdio.env ?? {})) {
    const whole = WHOLE_VAR.exec(value)
    if (whole && whole[1] === key) envVars.add(key)
    else if (whole) return lost(`env "${key}" = "\${${whole[1]}}" (Codex passes a variable on only under its own name)`)
    else if (ANY_VAR.test(value)) return lost(`env "${key}"`)
    else Object.defineProperty(env, key, {value, enumerable: true, writable: true, configurable: true})
  }
  if (config.bearerTokenEnvVar || config.envHttpHeaders) notes.push('"bearer_token_env_var" and "env_http_headers" dropped: a stdio server has no HTTP headers')
  return {value: compact({command: stdio.command, args, env, env_vars: [...envVars].sort(), cwd: stdio.cwd, ...timeouts(config)}), notes}
}

export const codexRemote = (config: McpServerConfig, remote: Remote, notes: string[]): CodexResult => {
  if (remote.kind === 'sse') return {unsupported: 'Codex connects to remote MCP servers over streamable HTTP only; this one uses SSE'}
  if (ANY_VAR.test(remote.url)) return lost(`the url ${JSON.stringify(remote.url)}`)
  let bearer = config.bearerTokenEnvVar
  const fromEnv: Record<string, string> = {...config.envHttpHeaders}
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(remote.headers ?? {})) {
    const token = name.toLowerCase() === 'authorization' ? BEARER.exec(value) : null
    const whole = WHOLE_VAR.exec(value)
    if (token) bearer = token[1]
    else if (whole) Object.defineProperty(fromEnv, name, {value: whole[1], enumerable: true, writable: true, configurable: true})
    else if (ANY_VAR.test(value)) return lost(`the header "${name}"`)
    else Object.defineProperty(headers, name, {value, enumerable: true, writable: true, configurable: true})
  }
  if (config.oauth) notes.push('"oauth" dropped: Codex signs in to a server with `codex mcp login <name>`')
  return {value: compact({url: remote.url, http_headers: headers, env_http_headers: fromEnv, bearer_token_env_var: bearer, ...timeouts(config)}), notes}
}

/**
 * Codex's own fields in an agent that expands `${VAR}` itself (Claude Code's `.mcp.json` shape):
 * the same variables, written as that agent reads them.
 */
export const codexFieldsAsVars = (config: McpServerConfig, notes: string[]): {env?: Record<string, string>; headers?: Record<string, string>} => {
  const env: Record<string, string> = {}
  for (const name of config.envVars ?? []) env[name] = `\${${name}}`
  const headers: Record<string, string> = {}
  if (config.bearerTokenEnvVar) headers.Authorization = `Bearer \${${config.bearerTokenEnvVar}}`
  for (const [name, variable] of Object.entries(config.envHttpHeaders ?? {})) {
    Object.defineProperty(headers, name, {value: `\${${variable}}`, enumerable: true, writable: true, configurable: true})
  }
  if (config.toolTimeoutSec !== undefined || config.startupTimeoutSec !== undefined)
    notes.push('"tool_timeout_sec" and "startup_timeout_sec" dropped: only Codex reads them')
  return {...(Object.keys(env).length > 0 ? {env} : {}), ...(Object.keys(headers).length > 0 ? {headers} : {})}
}
