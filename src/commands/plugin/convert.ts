import {Args, Flags} from '@oclif/core'
import {convertPlugin, CONVERT_FORMATS, type PluginConversion} from '../../core/ops/authoring/convert.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag} from '../../ui/flags.js'
import {renderPluginConversion} from '../../ui/render/plugin-convert.js'

export default class PluginConvert extends LoadoutCommand {
  static override summary = 'Write the manifest another agent needs from what a plugin has, and list what that format cannot carry'
  static override examples = [
    '<%= config.bin %> plugin convert ./my-plugin --to codex',
    '<%= config.bin %> plugin convert ./my-plugin --to lexora --out dist/lexora',
    '<%= config.bin %> plugin convert . --to cst-agent --dry-run --json',
  ]
  static override args = {path: Args.string({required: true, description: 'the plugin folder'})}
  static override flags = {
    to: Flags.string({description: 'the format to write (required)', options: [...CONVERT_FORMATS]}),
    out: Flags.string({description: 'copy the plugin to this folder and convert the copy (default: write into the plugin folder)', helpValue: 'dir'}),
    force: Flags.boolean({char: 'f', description: 'replace a manifest of that format, or a non-empty --out'}),
    'dry-run': dryRunFlag,
  }

  async run(): Promise<PluginConversion> {
    const {args, flags} = await this.parse(PluginConvert)
    const converted = await convertPlugin({
      path: args.path,
      ...(flags.to === undefined ? {} : {to: flags.to}),
      ...(flags.out === undefined ? {} : {out: flags.out}),
      force: flags.force === true,
      dryRun: flags['dry-run'] === true,
      env: this.environment(),
    })
    this.log(renderPluginConversion(converted))
    return converted
  }
}
