import {Args, Flags} from '@oclif/core'
import {validateMarketplace, type MarketplaceValidation} from '../../core/ops/authoring/marketplace-validate.js'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {strictFlag} from '../../ui/flags.js'
import {renderMarketplaceValidation} from '../../ui/render/marketplace-authoring.js'
import {writeStderr} from '../../ui/safe-text.js'

export default class MarketplaceValidate extends LoadoutCommand {
  static override summary = "Check a marketplace's catalogs and the plugin folders they list; the exit status says whether they pass"
  static override examples = [
    '<%= config.bin %> marketplace validate .',
    '<%= config.bin %> marketplace validate ./team-tools --strict --json',
    '<%= config.bin %> marketplace validate . --fix',
  ]
  static override args = {path: Args.string({description: 'the marketplace folder, or one marketplace.json (default: .)'})}
  static override flags = {
    strict: strictFlag,
    fix: Flags.boolean({description: 'repair what is mechanical (path forms, name case, a byte-order mark) and say what changed'}),
  }

  async run(): Promise<MarketplaceValidation> {
    const {args, flags} = await this.parse(MarketplaceValidate)
    const path = args.path ?? '.'
    const result = await validateMarketplace({path, cwd: this.environment().cwd, strict: flags.strict === true, fix: flags.fix === true})
    if (!result.valid) {
      if (!this.jsonEnabled()) writeStderr(renderMarketplaceValidation(result))
      const counts = `${result.errors} error(s)${result.strict ? `, ${result.warnings} warning(s) (strict)` : ''}`
      throw new LoadoutError('validation-failed', EXIT.validation, `${counts} in the marketplace at ${path}`, {
        details: result,
        suggestions: [
          result.problems.some((p) => p.fixable) && !flags.fix
            ? 'some can be repaired: run this again with --fix'
            : 'fix the problems listed above, then run this again',
        ],
      })
    }
    this.log(renderMarketplaceValidation(result))
    return result
  }
}
