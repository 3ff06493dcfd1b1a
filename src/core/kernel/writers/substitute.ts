/**
 * Plugin path variables. A plugin names its own folder and its data folder with
 * `${CLAUDE_PLUGIN_ROOT}` / `${PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` / `${PLUGIN_DATA}` in MCP and
 * hook commands. Claude Code expands them itself; other agents do not, so loadout writes the
 * installed paths in their place. Nothing else is touched: `${HOME}`, `${API_KEY}` and every other
 * `${VAR}` are left for the agent or the shell to expand.
 */

export interface PluginVars {
  /** the installed plugin root (one folder per plugin and resolved version) */
  pluginRoot: string
  /** the per-plugin data folder that survives updates */
  pluginData: string
}

const TOKEN = /\$\{(CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|PLUGIN_DATA)\}/g

/** The same names written without braces, which only an agent that sets the variable can expand. */
const BARE = /\$(CLAUDE_PLUGIN_ROOT|PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|PLUGIN_DATA)(?![A-Za-z0-9_])/g

const substituteString = (text: string, vars: PluginVars): string =>
  // a function replacement, so a `$&` or `$1` inside a path is taken literally
  text.replace(TOKEN, (_match, name: string) => (name.endsWith('ROOT') ? vars.pluginRoot : vars.pluginData))

/**
 * A deep copy of `value` with the four plugin variables replaced in every string value, at any depth
 * (object keys are left alone). Inputs are never changed.
 */
export const substitutePluginVars = (value: unknown, vars: PluginVars): unknown => {
  if (typeof value === 'string') return substituteString(value, vars)
  if (Array.isArray(value)) return value.map((item) => substitutePluginVars(item, vars))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, so a JSON key named `__proto__` stays an own key instead of a prototype
      Object.defineProperty(out, key, {value: substitutePluginVars(item, vars), enumerable: true, writable: true, configurable: true})
    }
    return out
  }
  return value
}

/**
 * The plugin variables written without braces (`$CLAUDE_PLUGIN_ROOT/x.sh`) anywhere in `value`.
 * They are left as they are (the shell may expand them from the environment in Claude Code, which
 * sets them), but no other agent sets them, so a planner can warn that the command will see an empty
 * variable there.
 */
export const barePluginVars = (value: unknown): string[] => {
  const found = new Set<string>()
  const walk = (item: unknown): void => {
    if (typeof item === 'string') {
      for (const match of item.matchAll(BARE)) found.add(`$${match[1]!}`)
    } else if (Array.isArray(item)) {
      for (const child of item) walk(child)
    } else if (item !== null && typeof item === 'object') {
      for (const child of Object.values(item)) walk(child)
    }
  }
  walk(value)
  return [...found].sort()
}
