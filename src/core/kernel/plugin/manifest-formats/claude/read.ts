/** Claude Code's `.claude-plugin/plugin.json`: metadata and component paths, each `./`-relative. */
import type {Json} from '../../components.js'
import {claudeComponents, readMetadata, warnUnwritable, type Declaration, type ManifestContext} from '../../manifest-fields.js'
import type {PluginReport} from '../../report.js'

export const CLAUDE_MANIFEST = '.claude-plugin/plugin.json'

export const readClaudeManifest = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: true}
  warnUnwritable(json, file, report)
  return {kind: 'claude', file, ...readMetadata(json, ctx), ...claudeComponents(json, ctx), skillDialect: 'spec'}
}
