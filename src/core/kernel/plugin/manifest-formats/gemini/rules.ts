/** Gemini CLI extension rules beyond its schema: identity, and context files that must exist. */
import {checkIdentity, checkPathExists, pathsAt, type RuleContext} from '../plugin-rules.js'
import type {Json} from '../../components.js'

export const geminiRules = (json: Json, ctx: RuleContext): void => {
  checkIdentity(json, ctx)
  // the reader checks each path's form; only its existence is left
  for (const {raw, at} of pathsAt(json, 'contextFileName')) checkPathExists(raw, at, false, ctx, false)
}
