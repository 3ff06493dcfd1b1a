import type {ManifestFormat} from '../format.js'
import {isLexoraManifest, readLexoraManifest} from './read.js'

/** A root plugin.json or package.json with `contributes`; package.json is npm's file otherwise. */
export const lexora: ManifestFormat = {
  id: 'lexora',
  name: 'Lexora',
  files: [
    {path: 'plugin.json', when: isLexoraManifest},
    {path: 'package.json', when: isLexoraManifest, shared: true},
  ],
  schema: 'lexora-manifest',
  read: readLexoraManifest,
  packs: {manifest: 'a package.json or plugin.json with "contributes"'},
  checks: async () => {
    const {lexoraRules} = await import('./rules.js')
    return {
      rules: (json, ctx) => {
        ctx.problems.push(...lexoraRules(json, ctx.file))
      },
    }
  },
  convert: async () => {
    const {buildLexora, lexoraTarget} = await import('./convert.js')
    return {target: lexoraTarget, build: buildLexora}
  },
  scaffold: async () => (await import('./scaffold.js')).lexoraScaffold,
}
