import {readFileSync} from 'node:fs'
import {dirname, join, relative, sep} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {unsafePath} from '../../kernel/fs/contain.js'
import type {PluginVars} from '../../kernel/writers/substitute.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {PROJECT_DIR} from '../../kernel/env/environment.js'

/**
 * Where a plugin's installed copy lives (what `${CLAUDE_PLUGIN_ROOT}` points at), and how an agent's
 * config names it.
 *
 * User scope: under loadout's data folder, one folder per plugin and revision.
 * Project scope: inside the project, at `.loadout/plugins/<plugin@marketplace>/<revision>`, so that
 * the MCP and hook commands in the project's agent files work on every teammate's machine. That folder
 * is machine-local (each `loadout install` recreates it from the lock) and teams ignore `.loadout/`.
 * A section whose commands the agent expands a project-root variable in (Claude Code's hooks:
 * `${CLAUDE_PROJECT_DIR}`) is given `${CLAUDE_PROJECT_DIR}/.loadout/...`; everything else a
 * project-relative `.loadout/...`, which works when the agent runs its commands from the project root
 * (Claude Code leaves `${CLAUDE_PROJECT_DIR}` unexpanded in a project `.mcp.json`, and starts its
 * servers in the session's folder).
 */

/** Where a user-scope install keeps its installed copy and its data folder. */
export const pluginDataDirs = (dataDir: string, id: string, revision: string) => {
  const [name, market] = id.split('@') as [string, string]
  return {
    root: join(dataDir, 'plugins', market, name, revision),
    data: join(dataDir, 'plugin-data', market, name),
  }
}

export const PROJECT_PLUGINS = `${PROJECT_DIR}/plugins`

/** The lines a project's .gitignore needs: loadout's machine-local folder. */
export const IGNORE_LINES = [`/${PROJECT_DIR}/`] as const

/** The ignore lines the project's .gitignore does not have yet (any spelling of the folder counts). */
export const missingIgnoreLines = (projectRoot: string): string[] => {
  let text = ''
  try {
    text = readFileSync(join(projectRoot, '.gitignore'), 'utf8')
  } catch {
    // no .gitignore
  }
  const lines = new Set(text.split(/\r?\n/).map((l) => l.trim()))
  return IGNORE_LINES.filter((line) => ![line, PROJECT_DIR, `${PROJECT_DIR}/`, `/${PROJECT_DIR}`].some((l) => lines.has(l)))
}

export interface PluginDirs {
  /** the installed copy, absolute */
  root: string
  /** the data folder that survives updates, absolute */
  data: string
}

export const revisionOf = (fetched: {commit?: string; integrity: string}): string => (fetched.commit ?? fetched.integrity.replace(/^sha256-/, '')).slice(0, 16)

const SAFE_SEGMENT = /^(mcp:)?[A-Za-z0-9][A-Za-z0-9._-]*(@[A-Za-z0-9][A-Za-z0-9._-]*)?$/

export const projectPluginDirs = (projectRoot: string, id: string, revision: string): PluginDirs => {
  // the id and revision become folder names: nothing in them may climb out
  for (const part of [id, revision])
    if (!SAFE_SEGMENT.test(part) || part.includes('..')) throw unsafePath(`"${part}" cannot name a folder under ${PROJECT_PLUGINS}`)
  return {root: join(projectRoot, PROJECT_DIR, 'plugins', id, revision), data: join(projectRoot, PROJECT_DIR, 'data', id)}
}

/** The folder holding every installed revision of a project-scope plugin. */
export const projectCopiesOf = (projectRoot: string, id: string): string => dirname(projectPluginDirs(projectRoot, id, 'x').root)

/** The installed copy and data folder of a plugin at a revision, for the scope. */
export const installedDirs = (env: Environment, context: ScopeContext, id: string, fetched: {commit?: string; integrity: string}): PluginDirs =>
  context.scope === 'project'
    ? projectPluginDirs(context.projectRoot, id, revisionOf(fetched))
    : pluginDataDirs(loadoutPaths(env).data, id, revisionOf(fetched))

const portable = (projectRoot: string, path: string): string => relative(projectRoot, path).split(sep).join('/')

/**
 * The plugin variables as one agent's config should spell them. In project scope no machine path is
 * written: the agent's project variable, or a path relative to the project root.
 */
export const pluginVarsFor = (target: AgentTarget, context: ScopeContext, dirs: PluginDirs, section?: 'hooks' | 'mcp'): PluginVars => {
  if (context.scope !== 'project') return {pluginRoot: dirs.root, pluginData: dirs.data}
  const variable = section ? target[section]?.projectDirVariable : undefined
  const prefix = variable ? `${variable}/` : ''
  return {pluginRoot: prefix + portable(context.projectRoot, dirs.root), pluginData: prefix + portable(context.projectRoot, dirs.data)}
}
