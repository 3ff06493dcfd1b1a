import {Args, Flags} from '@oclif/core'
import {addPluginToMarketplace, type PluginAddedToMarketplace} from '../../core/ops/authoring/marketplace-add-plugin.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag} from '../../ui/flags.js'
import {renderPluginAdded} from '../../ui/render/marketplace-authoring.js'

export default class MarketplaceAddPlugin extends LoadoutCommand {
  static override summary = "List a plugin folder of a marketplace in its catalog, by its ./ path, with its manifest's name, description and version"
  static override examples = [
    '<%= config.bin %> marketplace add-plugin ./plugins/code-review',
    '<%= config.bin %> marketplace add-plugin ../team-tools/plugins/lint --marketplace-dir ../team-tools',
  ]
  static override args = {path: Args.string({required: true, description: 'the plugin folder, inside the marketplace folder'})}
  static override flags = {
    'marketplace-dir': Flags.string({description: 'the marketplace folder', default: '.'}),
    'dry-run': dryRunFlag,
  }

  async run(): Promise<PluginAddedToMarketplace> {
    const {args, flags} = await this.parse(MarketplaceAddPlugin)
    const added = addPluginToMarketplace({
      plugin: args.path,
      marketplaceDir: flags['marketplace-dir'],
      cwd: this.environment().cwd,
      dryRun: flags['dry-run'] === true,
    })
    this.log(renderPluginAdded(added))
    return added
  }
}
