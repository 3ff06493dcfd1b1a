import type {ManifestFormat} from '../format.js'
import {readCstAgentManifest} from './read.js'

/** The root plugin.json, when Lexora does not claim it (see ../lexora). */
export const cstAgent: ManifestFormat = {
  id: 'cst-agent',
  name: 'cst-agent',
  files: [{path: 'plugin.json'}],
  schema: 'cst-agent-plugin',
  read: readCstAgentManifest,
  authoring: async () => {
    const [{cstAgentRules}, {buildCstAgent, cstAgentTarget}, {cstAgentScaffold}] = await Promise.all([import('./rules.js'), import('./convert.js'), import('./scaffold.js')])
    return {rules: cstAgentRules, convert: {target: cstAgentTarget, build: buildCstAgent}, scaffold: cstAgentScaffold}
  },
}
