/** Codex's `.codex-plugin/plugin.json`: metadata, skills, MCP servers, and `interface` assets, each `./`-relative. */
import {isRecord, type Json} from '../../components.js'
import {declaredPaths, declaredSources, readMetadata, warnUnwritable, type Declaration, type ManifestContext} from '../../manifest-fields.js'
import {checkManifestPath, typeName} from '../../paths.js'
import {jsonPathJoin} from '../../../json/path.js'
import type {PluginReport} from '../../report.js'

export const CODEX_MANIFEST = '.codex-plugin/plugin.json'

/** Codex `interface` assets (icons, logo, screenshots) are plugin files too: same path rules. */
const checkCodexInterface = (json: Json, ctx: ManifestContext): void => {
  const ui = json.interface
  if (ui === undefined) return
  if (!isRecord(ui)) {
    ctx.report.error('manifest-field-invalid', `"interface" must be an object, not ${typeName(ui)}`, {file: ctx.file, path: 'interface'})
    return
  }
  const check = (raw: unknown, jsonPath: string) =>
    ctx.report.attempt(() => checkManifestPath(raw, {root: ctx.root, file: ctx.file, jsonPath, requireDotSlash: true}))
  for (const key of ['composerIcon', 'logo']) if (typeof ui[key] === 'string') check(ui[key], `interface.${key}`)
  if (Array.isArray(ui.screenshots)) ui.screenshots.forEach((raw, i) => check(raw, jsonPathJoin('interface.screenshots', i)))
}

export const readCodexManifest = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: true}
  warnUnwritable(json, file, report)
  const declaration: Declaration = {kind: 'codex', file, ...readMetadata(json, ctx), skillDialect: 'spec'}
  const skills = declaredPaths(json, 'skills', ctx)
  const mcpServers = declaredSources(json, 'mcpServers', ctx)
  if (skills) declaration.skills = skills
  if (mcpServers) declaration.mcpServers = mcpServers
  checkCodexInterface(json, ctx)
  return declaration
}
