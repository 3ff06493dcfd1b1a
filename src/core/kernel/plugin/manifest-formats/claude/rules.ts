/** Claude Code's manifest rules beyond its schema: identity, and paths that name folders or must exist. */
import {checkIdentity, checkPathExists, checkTrailingSlash, pathsAt, type RuleContext} from '../plugin-rules.js'
import type {Json} from '../../components.js'

export const CLAUDE_PATH_FIELDS = ['skills', 'agents', 'commands', 'outputStyles', 'hooks', 'mcpServers', 'lspServers'] as const
/** Claude fields the plugin reader does not read, whose files must still exist. */
const CLAUDE_UNREAD = new Set(['outputStyles', 'lspServers'])

export const claudeRules = (json: Json, ctx: RuleContext): void => {
  checkIdentity(json, ctx)
  for (const key of CLAUDE_PATH_FIELDS) {
    for (const {raw, at} of pathsAt(json, key)) {
      checkTrailingSlash(raw, at, ctx)
      if (CLAUDE_UNREAD.has(key)) checkPathExists(raw, at, true, ctx)
    }
  }
}
