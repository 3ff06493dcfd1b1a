import {readProjectManifest, writeProjectManifest} from '../../kernel/state/marketplaces.js'

/** The project's declaration of a plugin in loadout.json: the version range it wants and where from. */
export interface DeclaredPlugin {
  version?: string
  source?: string
}

export const declaredPlugins = (projectRoot: string): Record<string, DeclaredPlugin> =>
  (readProjectManifest(projectRoot).plugins as Record<string, DeclaredPlugin> | undefined) ?? {}

export const declarePlugin = (projectRoot: string, id: string, version: string | undefined, source: string, direct: boolean): void => {
  const manifest = readProjectManifest(projectRoot)
  const plugins = {...((manifest.plugins as Record<string, DeclaredPlugin> | undefined) ?? {})}
  plugins[id] = {...(version ? {version} : {}), ...(direct ? {source} : {})}
  manifest.plugins = plugins
  writeProjectManifest(projectRoot, manifest)
}

export const undeclarePlugin = (projectRoot: string, id: string): void => {
  const manifest = readProjectManifest(projectRoot)
  const plugins = {...((manifest.plugins as Record<string, DeclaredPlugin> | undefined) ?? {})}
  if (!(id in plugins)) return
  delete plugins[id]
  manifest.plugins = plugins
  writeProjectManifest(projectRoot, manifest)
}
