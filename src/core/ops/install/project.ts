import {readProjectManifest, writeProjectManifest} from '../../kernel/state/marketplaces.js'
import type {DisabledParts} from '../../model/plugin.js'

/** The project's declaration of a plugin in loadout.json: the version range it wants and where from. */
export interface DeclaredPlugin {
  version?: string
  source?: string
  /** parts turned off in every agent (`loadout disable <plugin> --skill x`): a teammate's install leaves them out too */
  disabled?: DisabledParts
  /** `loose`: installed with --loose where an agent would take it as its own plugin; a teammate's install does the same */
  form?: 'loose'
}

export const declaredPlugins = (projectRoot: string): Record<string, DeclaredPlugin> =>
  (readProjectManifest(projectRoot).plugins as Record<string, DeclaredPlugin> | undefined) ?? {}

export const declarePlugin = (
  projectRoot: string,
  id: string,
  version: string | undefined,
  source: string,
  direct: boolean,
  disabled: DisabledParts = {},
  loose = false,
): void => {
  const manifest = readProjectManifest(projectRoot)
  const plugins = {...((manifest.plugins as Record<string, DeclaredPlugin> | undefined) ?? {})}
  plugins[id] = {
    ...(version ? {version} : {}),
    ...(direct ? {source} : {}),
    ...(Object.keys(disabled).length > 0 ? {disabled} : {}),
    ...(loose ? {form: 'loose' as const} : {}),
  }
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
