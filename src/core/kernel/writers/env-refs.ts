/**
 * References to environment variables in an MCP server entry. loadout writes a secret as a
 * reference the agent expands when it starts the server, never as a value. The canonical spelling is
 * Claude Code's `${NAME}`; an agent that spells it otherwise (Cursor: `${env:NAME}`) says so in its
 * registry file (`mcp.envReference`), and Codex, which expands nothing, is given the variable's name
 * to pass through (`env_vars`, `bearer_token_env_var`, `env_http_headers`).
 */
import type {McpServerConfig} from '../../model/plugin.js'

const NAME = '[A-Za-z_][A-Za-z0-9_]*'
/** `${NAME}` alone, not `${NAME:-default}` */
const REFERENCE = new RegExp(`\\$\\{(${NAME})\\}`, 'g')
const WHOLE_REFERENCE = new RegExp(`^\\$\\{(${NAME})\\}$`)
const BEARER_REFERENCE = new RegExp(`^Bearer \\$\\{(${NAME})\\}$`)

export const isEnvName = (name: string): boolean => new RegExp(`^${NAME}$`).test(name)

/** The canonical reference to a variable. */
export const envReference = (name: string): string => `\${${name}}`

/** The names of the variables a value refers to as `${NAME}`, at any depth. */
export const referencedEnvNames = (value: unknown): string[] => {
  const found = new Set<string>()
  const walk = (item: unknown): void => {
    if (typeof item === 'string') for (const match of item.matchAll(REFERENCE)) found.add(match[1]!)
    else if (Array.isArray(item)) item.forEach(walk)
    else if (item !== null && typeof item === 'object') Object.values(item).forEach(walk)
  }
  walk(value)
  return [...found].sort()
}

const spell = (text: string, form: string): string => text.replace(REFERENCE, (_match, name: string) => form.replace('VAR', name))

const spellRecord = (record: Record<string, string> | undefined, form: string): Record<string, string> | undefined => {
  if (!record) return undefined
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(record))
    Object.defineProperty(out, key, {value: spell(value, form), enumerable: true, writable: true, configurable: true})
  return out
}

/** The server with every `${NAME}` in its command, arguments, env, URL and headers spelled `form` (`VAR` standing for the name). */
export const spellEnvReferences = (config: McpServerConfig, form: string): McpServerConfig => {
  const out: McpServerConfig = {...config}
  if (config.command !== undefined) out.command = spell(config.command, form)
  if (config.args) out.args = config.args.map((a) => spell(a, form))
  if (config.url !== undefined) out.url = spell(config.url, form)
  const env = spellRecord(config.env, form)
  if (env) out.env = env
  const headers = spellRecord(config.headers, form)
  if (headers) out.headers = headers
  return out
}

/**
 * Codex expands no variables in config.toml: an env entry `NAME = "${NAME}"` becomes `env_vars =
 * ["NAME"]` (passed through from Codex's own environment), `Authorization: Bearer ${NAME}` becomes
 * `bearer_token_env_var = "NAME"`, and a header whose value is `${NAME}` goes in `env_http_headers`.
 * What cannot be said that way is left as written and named in `notes`.
 */
export const codexPassThrough = (value: Record<string, unknown>, notes: string[]): Record<string, unknown> => {
  const out = {...value}
  const args = value.args as string[] | undefined
  const inArgs = referencedEnvNames(args ?? [])
  if (inArgs.length > 0) notes.push(`args: Codex does not expand \${...} references (${inArgs.join(', ')}); written as is`)
  const env = value.env as Record<string, string> | undefined
  if (env) {
    const kept: Record<string, string> = {}
    const passed: string[] = []
    for (const [key, text] of Object.entries(env)) {
      const match = WHOLE_REFERENCE.exec(text)
      if (match && match[1] === key) passed.push(key)
      else {
        if (referencedEnvNames(text).length > 0) notes.push(`env ${key}: Codex does not expand \${...} references; written as is`)
        Object.defineProperty(kept, key, {value: text, enumerable: true, writable: true, configurable: true})
      }
    }
    delete out.env
    if (Object.keys(kept).length > 0) out.env = kept
    if (passed.length > 0) out.env_vars = passed.sort()
  }
  const headers = value.http_headers as Record<string, string> | undefined
  if (headers) {
    const kept: Record<string, string> = {}
    const fromEnv: Record<string, string> = {}
    for (const [key, text] of Object.entries(headers)) {
      const bearer = BEARER_REFERENCE.exec(text)
      const whole = WHOLE_REFERENCE.exec(text)
      if (bearer && key.toLowerCase() === 'authorization' && out.bearer_token_env_var === undefined) out.bearer_token_env_var = bearer[1]
      else if (whole) Object.defineProperty(fromEnv, key, {value: whole[1], enumerable: true, writable: true, configurable: true})
      else {
        if (referencedEnvNames(text).length > 0) notes.push(`header ${key}: Codex does not expand \${...} references; written as is`)
        Object.defineProperty(kept, key, {value: text, enumerable: true, writable: true, configurable: true})
      }
    }
    delete out.http_headers
    if (Object.keys(kept).length > 0) out.http_headers = kept
    if (Object.keys(fromEnv).length > 0) out.env_http_headers = fromEnv
  }
  return out
}
