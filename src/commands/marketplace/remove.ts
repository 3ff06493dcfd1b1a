import {Args, Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import {planMarketplaceRemoval, removeMarketplace, type MarketplaceRemoval} from '../../core/ops/marketplace/remove.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag, scopeFlag, yesFlag} from '../../ui/flags.js'
import {confirmOrFail} from '../../ui/prompt.js'
import {renderRemoved} from '../../ui/render/marketplace.js'

export default class MarketplaceRemove extends LoadoutCommand {
  static override summary = 'Remove a marketplace and its cache (never a local source folder)'
  static override examples = [
    '<%= config.bin %> marketplace remove acme --yes',
    '<%= config.bin %> marketplace remove acme --scope user --yes',
    '<%= config.bin %> marketplace remove acme --force --dry-run',
  ]
  static override args = {name: Args.string({required: true, description: 'marketplace name'})}
  static override flags = {
    force: Flags.boolean({char: 'f', description: 'remove it even though installed plugins come from it (they stay installed)'}),
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<MarketplaceRemoval> {
    const {args, flags} = await this.parse(MarketplaceRemove)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const plan = planMarketplaceRemoval(args.name, env, context, flags.force, flags.scope === undefined ? undefined : context.scope)
    if (flags['dry-run']) {
      const result = {...plan, dryRun: true}
      this.log(renderRemoved(result))
      return result
    }
    if (!(await confirmOrFail(`Remove marketplace "${plan.name}" (${plan.source})?`, {yes: flags.yes, interactive: env.interactive}))) {
      throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was removed')
    }
    const removed = await removeMarketplace(plan, env, context)
    this.log(renderRemoved(removed))
    return removed
  }
}
