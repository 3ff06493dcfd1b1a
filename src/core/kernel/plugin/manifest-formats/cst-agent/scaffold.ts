/** `plugin create --format cst-agent`: the root plugin.json with its skills folder and an example exec tool. */
import {has, metadata, type ScaffoldInput} from '../scaffold-kit.js'
import type {FormatScaffold} from '../format.js'

export const exampleTool = (name: string) => ({
  name,
  description: 'Counts the words in a text (an example exec tool: replace it with your own)',
  command: ['node', `tools/${name}.mjs`],
  parameters: {
    type: 'object',
    properties: {text: {type: 'string', description: 'the text whose words to count'}},
    required: ['text'],
    additionalProperties: false,
  },
  perm: 'read',
  timeout: 60,
})

export const cstAgentScaffold: FormatScaffold = {
  file: 'plugin.json',
  line: '- `plugin.json`: cst-agent (its skills folder and exec tools)',
  manifest: (input: ScaffoldInput) => ({
    ...metadata(input),
    ...(has(input, 'skills') ? {skills: 'skills'} : {}),
    ...(has(input, 'tools') ? {tools: [exampleTool(input.name)]} : {}),
  }),
  notes: (input) => (has(input, 'hooks') ? ['cst-agent runs no hooks; hooks/hooks.json serves the other agents'] : []),
  ownParts: {tools: (n) => `- \`tools/${n}.mjs\`: a cst-agent exec tool, declared in \`plugin.json\` with a JSON Schema for its parameters`},
}
