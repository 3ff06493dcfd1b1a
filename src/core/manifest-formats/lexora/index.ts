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
  authoring: async () => {
    const [{lexoraRules}, {buildLexora, lexoraTarget}, {lexoraScaffold}] = await Promise.all([import('./rules.js'), import('./convert.js'), import('./scaffold.js')])
    return {
      rules: (json, ctx) => {
        ctx.problems.push(...lexoraRules(json, ctx.file))
      },
      convert: {target: lexoraTarget, build: buildLexora},
      scaffold: lexoraScaffold,
    }
  },
}
