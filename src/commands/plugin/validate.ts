import {Args, Flags} from '@oclif/core'
import {resolve} from 'node:path'
import {validatePlugin, type PluginValidation} from '../../core/authoring/plugin-validate.js'
import {EXIT, LoadoutError} from '../../core/errors.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {strictFlag} from '../../ui/flags.js'
import {renderPluginValidation} from '../../ui/render/plugin.js'

export default class PluginValidate extends LoadoutCommand {
  static override summary = 'Check a plugin in every format it ships (Claude, Codex, cst-agent, Lexora); the exit status says whether it passes'
  static override examples = ['<%= config.bin %> plugin validate ./my-plugin', '<%= config.bin %> plugin validate . --strict --json', '<%= config.bin %> plugin validate ./my-plugin --fix']
  static override args = {path: Args.string({description: 'the plugin folder (default: .)'})}
  static override flags = {
    strict: strictFlag,
    fix: Flags.boolean({description: 'repair what is mechanical (a missing "./", "." to "./", a trailing "/" on a file, name case, a byte-order mark) and say what changed'}),
  }

  async run(): Promise<PluginValidation> {
    const {args, flags} = await this.parse(PluginValidate)
    const env = this.environment()
    const result = await validatePlugin(resolve(env.cwd, args.path ?? '.'), {strict: flags.strict === true, fix: flags.fix === true, home: env.home})
    if (!result.valid) {
      if (!this.jsonEnabled()) process.stderr.write(`${renderPluginValidation(result)}\n`)
      const counted = `${result.errors} error(s)${result.strict ? `, ${result.warnings} warning(s) (strict)` : ''}`
      throw new LoadoutError('validation-failed', EXIT.validation, `plugin "${result.name}" at ${result.path} is invalid: ${counted}`, {
        details: result,
        suggestions: ['fix the problems listed above, then run this again', ...(flags.fix ? [] : ['`--fix` repairs the mechanical ones'])],
      })
    }
    this.log(renderPluginValidation(result))
    return result
  }
}
