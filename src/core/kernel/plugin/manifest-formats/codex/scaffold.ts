/** `plugin create --format codex`: the paths Codex reads, and the `interface` its plugin browser shows. */
import {authorObject, has, metadata, shortDescription, title, type ScaffoldInput} from '../scaffold-kit.js'
import type {FormatScaffold} from '../format.js'
import {CODEX_MANIFEST} from './read.js'

export const codexScaffold: FormatScaffold = {
  file: CODEX_MANIFEST,
  line: '- `.codex-plugin/plugin.json`: Codex (skills, hooks, MCP servers, and the `interface` shown in its plugin browser)',
  manifest: (input: ScaffoldInput) => ({
    ...metadata(input),
    ...(input.author ? {author: authorObject(input.author)} : {}),
    ...(has(input, 'skills') ? {skills: './skills/'} : {}),
    ...(has(input, 'hooks') ? {hooks: './hooks/hooks.json'} : {}),
    ...(has(input, 'mcp') ? {mcpServers: './.mcp.json'} : {}),
    interface: {
      displayName: title(input.name),
      shortDescription: shortDescription(input.description),
      ...(input.author ? {developerName: input.author.name} : {}),
      category: 'Coding',
      defaultPrompt: [`Use ${input.name} on this project`],
    },
  }),
}
