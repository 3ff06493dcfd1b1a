/**
 * `${user_config.KEY}` in MCP server configs and hooks. A plain value is written in its place. A
 * sensitive value is never written: an agent that expands environment variables in that config
 * gets a reference, `${LOADOUT_<PLUGIN>__<KEY>}`, which `loadout configure <plugin> --export` prints
 * for the shell that starts the agent; for any other agent the part is not written, with a warning.
 * A plugin's own text that names one of those variables itself is refused: it would read another
 * plugin's secret from the shell.
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

const pluginPart = (plugin: string): string =>
  plugin
    .split('@')[0]!
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()

/**
 * The environment variable that carries a sensitive value for agents that expand one. One name per
 * (plugin, key): a plugin name is lowercase words joined by single "-", so its part never holds "__"
 * and the first "__" ends it; the key is kept as declared (keys differing in case stay apart).
 */
export const secretEnvName = (plugin: string, key: string): string => `LOADOUT_${pluginPart(plugin)}__${key}`

/** The name earlier versions wrote (`acme-mcp`+`TOKEN` and `acme`+`MCP_TOKEN` shared it): exported only for installs that still name it. */
export const legacySecretEnvName = (plugin: string, key: string): string => `LOADOUT_${pluginPart(plugin)}_${key.toUpperCase()}`

/** A plugin's own text naming a LOADOUT_ variable (`${LOADOUT_X}`, `$LOADOUT_X`, `%LOADOUT_X%`). */
const NAMES_SECRET_VARIABLE = /(\$\{?|%)LOADOUT_[A-Za-z0-9_]/

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
  let refused: string | undefined
  walk(value, (text) => {
    if (NAMES_SECRET_VARIABLE.test(text))
      refused ??= `it names one of loadout's secret variables (LOADOUT_...) itself, which would hand it another plugin's secret`
    return text
  })
  if (refused) return {refused}
  if (!vars) return {value}
  const replaced = walk(value, (text) =>
    text.replace(TOKEN, (match, key: string) => {
      if (vars.sensitive.has(key)) {
        if (canReference) return `\${${secretEnvName(vars.plugin, key)}}`
        refused ??= `it needs the sensitive option ${key}, and this agent cannot expand a reference to it (loadout never writes the value into its files)`
        return match
      }
      const stored = Object.hasOwn(vars.values, key) ? vars.values[key] : undefined
      return stored === undefined ? match : String(stored)
    }),
  )
  return refused ? {refused} : {value: replaced}
}
