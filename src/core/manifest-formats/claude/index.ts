import type {ManifestFormat} from '../format.js'
import {CLAUDE_MANIFEST, readClaudeManifest} from './read.js'

export const claude: ManifestFormat = {
  id: 'claude',
  name: 'Claude Code',
  files: [{path: CLAUDE_MANIFEST}],
  schema: 'claude-plugin',
  read: readClaudeManifest,
  declaresDependencies: true,
  authoring: async () => {
    const [{pathsAt}, {targetAt}, {claudeRules, CLAUDE_PATH_FIELDS}, {buildClaude}, {claudeScaffold}] = await Promise.all([
      import('../../authoring/plugin-rules.js'),
      import('../../authoring/convert-plan.js'),
      import('./rules.js'),
      import('./convert.js'),
      import('./scaffold.js'),
    ])
    return {
      rules: claudeRules,
      dataFiles: (json) => ({hooks: pathsAt(json, 'hooks').map((p) => p.raw), mcp: pathsAt(json, 'mcpServers').map((p) => p.raw)}),
      fixablePaths: (json) => CLAUDE_PATH_FIELDS.map((key) => ({holder: json, base: '', key})),
      convert: {target: (existing) => targetAt(CLAUDE_MANIFEST, existing(CLAUDE_MANIFEST)), build: buildClaude},
      scaffold: claudeScaffold,
    }
  },
}
