import {Flags} from '@oclif/core'
import {resolveScope} from '../core/kernel/env/scope.js'
import {buildSbom, SBOM_FORMATS, type SbomFormat, type SbomResult} from '../core/ops/sbom/sbom.js'
import {LoadoutCommand} from '../ui/base-command.js'

export default class Sbom extends LoadoutCommand {
  static override summary =
    'Write a software bill of materials of what is installed (CycloneDX 1.6 or SPDX 2.3 JSON): plugins, versions, sources, commits, hashes and every file written'
  static override examples = ['<%= config.bin %> sbom --format cyclonedx', '<%= config.bin %> sbom --format spdx --scope project --out sbom.spdx.json']
  static override flags = {
    format: Flags.string({char: 'f', description: 'the document format', options: [...SBOM_FORMATS], required: true}),
    scope: Flags.string({char: 's', description: 'only this scope (default: both)', options: ['user', 'project']}),
    out: Flags.string({char: 'o', description: 'write the document to this file instead of stdout'}),
  }

  async run(): Promise<SbomResult> {
    const {flags} = await this.parse(Sbom)
    const env = this.environment()
    const result = buildSbom(env, resolveScope(flags.scope, env).projectRoot, {
      format: flags.format as SbomFormat,
      ...(flags.scope ? {scope: flags.scope as 'user' | 'project'} : {}),
      ...(flags.out ? {out: flags.out} : {}),
    })
    if (result.out) this.log(`wrote ${result.format} SBOM of ${result.plugins} plugin(s) and ${result.files} file(s) to ${result.out}`)
    else this.log(JSON.stringify(result.document, null, 2))
    return result
  }
}
