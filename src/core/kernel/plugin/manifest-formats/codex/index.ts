import {isRecord} from '../../components.js'
import type {ManifestFormat} from '../format.js'
import {CODEX_MANIFEST, readCodexManifest} from './read.js'

export const codex: ManifestFormat = {
  id: 'codex',
  name: 'Codex',
  files: [{path: CODEX_MANIFEST}],
  schema: 'codex-plugin',
  read: readCodexManifest,
  checks: async () => {
    const [{pathsAt}, {CODEX_ASSET_FIELDS, codexMarketplaceRule, codexRules}] = await Promise.all([import('../plugin-rules.js'), import('./rules.js')])
    return {
      rules: (json, ctx) => {
        codexRules(json, ctx)
        codexMarketplaceRule(json, ctx)
      },
      dataFiles: (json) => ({hooks: pathsAt(json, 'hooks').map((p) => p.raw), mcp: pathsAt(json, 'mcpServers').map((p) => p.raw)}),
      fixablePaths: (json) => [
        ...['skills', 'hooks', 'mcpServers', 'apps'].map((key) => ({holder: json, base: '', key})),
        ...(isRecord(json.interface)
          ? [...CODEX_ASSET_FIELDS, 'screenshots'].map((key) => ({holder: json.interface as typeof json, base: 'interface', key}))
          : []),
      ],
    }
  },
  convert: async () => {
    const [{targetAt}, {buildCodex}] = await Promise.all([import('../convert-plan.js'), import('./convert.js')])
    return {target: (existing) => targetAt(CODEX_MANIFEST, existing(CODEX_MANIFEST)), build: buildCodex}
  },
  scaffold: async () => (await import('./scaffold.js')).codexScaffold,
}
