import type {ManifestFormat} from '../format.js'
import {readCstAgentManifest} from './read.js'

/** The root plugin.json, when Lexora does not claim it (see ../lexora). */
export const cstAgent: ManifestFormat = {
  id: 'cst-agent',
  name: 'cst-agent',
  files: [{path: 'plugin.json'}],
  schema: 'cst-agent-plugin',
  read: readCstAgentManifest,
  checks: async () => ({rules: (await import('./rules.js')).cstAgentRules}),
  convert: async () => {
    const {buildCstAgent, cstAgentTarget} = await import('./convert.js')
    return {target: cstAgentTarget, build: buildCstAgent}
  },
  scaffold: async () => (await import('./scaffold.js')).cstAgentScaffold,
}
