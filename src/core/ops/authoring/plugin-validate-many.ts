import {existsSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {MANIFEST_FILES} from '../../kernel/plugin/manifest-formats/index.js'
import {validatePlugin, type PluginValidation, type ValidatePluginOptions} from './plugin-validate.js'

/** What marks a folder as a plugin rather than a folder of plugins: a manifest file (or its folder), or a conventional part. */
const PLUGIN_MARKERS = [...new Set([...MANIFEST_FILES.map((f) => f.path.split('/')[0]!), 'skills', 'agents', 'SKILL.md', '.mcp.json', 'hooks'])]

const isPluginFolder = (dir: string): boolean => PLUGIN_MARKERS.some((m) => existsSync(join(dir, m)))

/** A path names one plugin, or a folder whose subfolders are plugins (a marketplace's plugins/). */
export const pluginFoldersAt = (path: string): string[] => {
  if (isPluginFolder(path)) return [path]
  let entries
  try {
    entries = readdirSync(path, {withFileTypes: true})
  } catch {
    return [path]
  }
  const children = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => join(path, e.name))
    .filter(isPluginFolder)
    .sort()
  return children.length > 0 ? children : [path]
}

export interface PluginsValidation {
  valid: boolean
  errors: number
  warnings: number
  plugins: PluginValidation[]
}

/** Validates every plugin the paths name; a folder of plugins is validated plugin by plugin. */
export const validatePlugins = async (paths: readonly string[], options: ValidatePluginOptions = {}): Promise<PluginsValidation> => {
  const folders = [...new Set(paths.flatMap((p) => (existsSync(p) && statSync(p).isDirectory() ? pluginFoldersAt(p) : [p])))]
  const plugins: PluginValidation[] = []
  for (const folder of folders) plugins.push(await validatePlugin(folder, options))
  return {
    valid: plugins.every((p) => p.valid),
    errors: plugins.reduce((n, p) => n + p.errors, 0),
    warnings: plugins.reduce((n, p) => n + p.warnings, 0),
    plugins,
  }
}
