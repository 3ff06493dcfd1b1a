import {Args, Flags} from '@oclif/core'
import {resolve} from 'node:path'
import type {PluginValidation} from '../../core/ops/authoring/plugin-validate.js'
import {validatePlugins, type PluginsValidation} from '../../core/ops/authoring/plugin-validate-many.js'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {strictFlag} from '../../ui/flags.js'
import {renderPluginValidation} from '../../ui/render/plugin.js'
import {writeStderr} from '../../ui/safe-text.js'

export default class PluginValidate extends LoadoutCommand {
  static override summary =
    'Check a plugin in every format it ships (Claude, Codex, cst-agent, Lexora, Gemini CLI extensions); the exit status says whether it passes'
  static override description = "A folder whose subfolders are plugins (a marketplace's plugins/) is validated plugin by plugin."
  static override examples = [
    '<%= config.bin %> plugin validate ./my-plugin',
    '<%= config.bin %> plugin validate ./plugins --json',
    '<%= config.bin %> plugin validate . --strict --json',
    '<%= config.bin %> plugin validate ./my-plugin --fix',
  ]
  static override strict = false
  static override args = {path: Args.string({description: 'plugin folders, or folders of plugins (default: .)'})}
  static override flags = {
    strict: strictFlag,
    fix: Flags.boolean({
      description: 'repair what is mechanical (a missing "./", "." to "./", a trailing "/" on a file, name case, a byte-order mark) and say what changed',
    }),
  }

  async run(): Promise<PluginValidation | PluginsValidation> {
    const {argv, flags} = await this.parse(PluginValidate)
    const env = this.environment()
    const paths = (argv as string[]).length > 0 ? (argv as string[]) : ['.']
    const all = await validatePlugins(
      paths.map((p) => resolve(env.cwd, p)),
      {strict: flags.strict === true, fix: flags.fix === true, home: env.home},
    )
    // One plugin keeps its own result shape; several come as a list.
    const result: PluginValidation | PluginsValidation = all.plugins.length === 1 ? all.plugins[0]! : all
    const rendered = all.plugins.map(renderPluginValidation).join('\n\n')
    if (!all.valid) {
      if (!this.jsonEnabled()) writeStderr(rendered)
      const failed = all.plugins.filter((p) => !p.valid)
      const counted = `${all.errors} error(s)${flags.strict ? `, ${all.warnings} warning(s) (strict)` : ''}`
      const what =
        failed.length === 1 ? `plugin "${failed[0]!.name}" at ${failed[0]!.path} is invalid` : `${failed.length} of ${all.plugins.length} plugins are invalid`
      throw new LoadoutError('validation-failed', EXIT.validation, `${what}: ${counted}`, {
        details: result,
        suggestions: ['fix the problems listed above, then run this again', ...(flags.fix ? [] : ['`--fix` repairs the mechanical ones'])],
      })
    }
    this.log(all.plugins.length === 1 ? rendered : `${rendered}\n${all.plugins.length} plugins valid`)
    return result
  }
}
