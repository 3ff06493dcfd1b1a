import {Args, Flags} from '@oclif/core'
import {resolve} from 'node:path'
import {PACK_FORMATS, packPlugin, type PackResult} from '../../core/ops/authoring/plugin-pack.js'
import {LoadoutCommand} from '../../ui/base-command.js'

export default class PluginPack extends LoadoutCommand {
  static override summary = 'Write the package archive of a plugin for an agent that installs packages itself (Lexora)'
  static override description = "The plugin must pass `plugin validate`; the archive keeps every file's bytes and relative path under package/."
  static override examples = ['<%= config.bin %> plugin pack ./my-plugin --format lexora', '<%= config.bin %> plugin pack . --format lexora --out dist --json']
  static override args = {path: Args.string({description: 'the plugin folder (default: .)'})}
  static override flags = {
    format: Flags.string({description: 'the package format', options: [...PACK_FORMATS], required: true}),
    out: Flags.string({description: 'folder to write the archive to (default: the current folder)'}),
  }

  async run(): Promise<PackResult> {
    const {args, flags} = await this.parse(PluginPack)
    const env = this.environment()
    const result = await packPlugin(resolve(env.cwd, args.path ?? '.'), {format: flags.format, outDir: resolve(env.cwd, flags.out ?? '.'), home: env.home})
    this.log(`packed ${result.plugin}: ${result.archive} (${result.files} file(s), sha256 ${result.sha256.slice(0, 16)}…)`)
    return result
  }
}
