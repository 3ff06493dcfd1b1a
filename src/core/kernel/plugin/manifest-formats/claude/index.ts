import type {ManifestFormat} from '../format.js'
import {CLAUDE_MANIFEST, readClaudeManifest} from './read.js'

export const claude: ManifestFormat = {
  id: 'claude',
  name: 'Claude Code',
  files: [{path: CLAUDE_MANIFEST}],
  schema: 'claude-plugin',
  read: readClaudeManifest,
  declaresDependencies: true,
  checks: async () => {
    const [{pathsAt}, {claudeRules, CLAUDE_PATH_FIELDS}] = await Promise.all([import('../plugin-rules.js'), import('./rules.js')])
    return {
      rules: claudeRules,
      dataFiles: (json) => ({hooks: pathsAt(json, 'hooks').map((p) => p.raw), mcp: pathsAt(json, 'mcpServers').map((p) => p.raw)}),
      fixablePaths: (json) => CLAUDE_PATH_FIELDS.map((key) => ({holder: json, base: '', key})),
    }
  },
  convert: async () => {
    const [{targetAt}, {buildClaude}] = await Promise.all([import('../convert-plan.js'), import('./convert.js')])
    return {target: (existing) => targetAt(CLAUDE_MANIFEST, existing(CLAUDE_MANIFEST)), build: buildClaude}
  },
  scaffold: async () => (await import('./scaffold.js')).claudeScaffold,
}
