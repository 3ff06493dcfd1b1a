/** `plugin create --format claude`: metadata only, since Claude Code finds each part in its standard folder. */
import {authorObject, metadata, type ScaffoldInput} from '../scaffold-kit.js'
import type {FormatScaffold} from '../format.js'
import {CLAUDE_MANIFEST} from './read.js'

export const claudeScaffold: FormatScaffold = {
  file: CLAUDE_MANIFEST,
  line: '- `.claude-plugin/plugin.json`: Claude Code (it finds each part in its standard folder)',
  manifest: (input: ScaffoldInput) => ({
    ...metadata(input),
    ...(input.author ? {author: authorObject(input.author)} : {}),
  }),
}
