import {resolveScope} from '../../core/kernel/env/scope.js'
import {buildSbom, SBOM_FORMATS, type SbomFormat, type SbomResult} from '../../core/ops/sbom/sbom.js'
import {ONE_SCOPE_FLAG} from '../command-spec.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    format: {type: 'string', char: 'f', description: 'the document format', options: SBOM_FORMATS, required: true},
    scope: ONE_SCOPE_FLAG,
    out: {type: 'string', char: 'o', description: 'write the document to this file instead of stdout'},
  },
} as const

export const sbom = sharedCommand(spec, async ({flags}, io): Promise<SbomResult> => {
  const {env} = io
  const result = buildSbom(env, resolveScope(flags.scope, env).projectRoot, {
    format: flags.format as SbomFormat,
    ...(flags.scope ? {scope: flags.scope as 'user' | 'project'} : {}),
    ...(flags.out ? {out: flags.out} : {}),
  })
  if (result.out) io.log(`wrote ${result.format} SBOM of ${result.plugins} plugin(s) and ${result.files} file(s) to ${result.out}`)
  else io.log(JSON.stringify(result.document, null, 2))
  return result
})
