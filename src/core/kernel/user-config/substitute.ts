/**
 * `${user_config.KEY}` in MCP server configs and hooks. A plain value is written in its place. A
 * sensitive value is never written: an agent that expands environment variables in that config
 * gets a reference, `${LOADOUT_<PLUGIN>_<KEY>}`, which `loadout configure <plugin> --export` prints
 * for the shell that starts the agent; for any other agent the part is not written, with a warning.
 */
import type {StoredValue} from './store.js'

const TOKEN = /\$\{user_config\.([A-Za-z_][A-Za-z0-9_]*)\}/g

/**
 * Whether an agent expands a reference to an environment variable there: Claude Code does (`${VAR}`
 * in MCP entries and in hook commands, which run through a shell), and so does every agent whose
 * registry file says how it spells one in MCP config (`mcp.envReference`: Cursor, VS Code, OpenCode).
 */
export const referencesEnv = (target: string, envReference: string | undefined): boolean => target === 'claude-code' || envReference !== undefined

export interface UserConfigVars {
  plugin: string
  values: Record<string, StoredValue>
  sensitive: ReadonlySet<string>
}

/** The environment variable that carries a sensitive value for agents that expand one. */
export const secretEnvName = (plugin: string, key: string): string =>
  `LOADOUT_${plugin
    .split('@')[0]!
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()}_${key.toUpperCase()}`

const walk = (value: unknown, fn: (text: string) => string): unknown => {
  if (typeof value === 'string') return fn(value)
  if (Array.isArray(value)) return value.map((item) => walk(item, fn))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value))
      Object.defineProperty(out, key, {value: walk(item, fn), enumerable: true, writable: true, configurable: true})
    return out
  }
  return value
}

/** `value` with every `${user_config.KEY}` replaced for `target`, or why the part cannot be written there. */
export const substituteUserConfig = (value: unknown, vars: UserConfigVars | undefined, canReference: boolean): {value: unknown} | {refused: string} => {
  if (!vars) return {value}
  let refused: string | undefined
  const replaced = walk(value, (text) =>
    text.replace(TOKEN, (match, key: string) => {
      if (vars.sensitive.has(key)) {
        if (canReference) return `\${${secretEnvName(vars.plugin, key)}}`
        refused ??= `it needs the sensitive option ${key}, and this agent cannot expand a reference to it (loadout never writes the value into its files)`
        return match
      }
      const stored = vars.values[key]
      return stored === undefined ? match : String(stored)
    }),
  )
  return refused ? {refused} : {value: replaced}
}
