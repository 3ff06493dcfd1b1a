import {Args, Flags} from '@oclif/core'
import {addMarketplace, type MarketplaceAdded} from '../../core/marketplace/add.js'
import {resolveScope} from '../../core/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag, isOffline, offlineFlag, scopeFlag} from '../../ui/flags.js'
import {withProgress} from '../../ui/progress.js'
import {renderAdded} from '../../ui/render/marketplace.js'

export default class MarketplaceAdd extends LoadoutCommand {
  static override summary = 'Add a marketplace (a catalog of plugins) from GitHub, a git URL, a catalog URL or a folder'
  static override examples = [
    '<%= config.bin %> marketplace add acme/agent-plugins',
    '<%= config.bin %> marketplace add https://git.example.com/team/plugins.git --ref v2',
    '<%= config.bin %> marketplace add https://example.com/marketplace.json --name example',
    '<%= config.bin %> marketplace add ./my-marketplace --scope project',
  ]
  static override args = {source: Args.string({required: true, description: 'owner/repo, git URL, catalog URL or path'})}
  static override flags = {
    name: Flags.string({description: "register it under this name instead of the catalog's own"}),
    ref: Flags.string({description: 'branch, tag or commit to read (git sources)'}),
    sparse: Flags.string({description: 'check out only these paths of a big repository', multiple: true}),
    scope: scopeFlag,
    offline: offlineFlag,
    'dry-run': dryRunFlag,
  }

  async run(): Promise<MarketplaceAdded> {
    const {args, flags} = await this.parse(MarketplaceAdd)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const added = await withProgress(!this.jsonEnabled(), (onProgress) =>
      addMarketplace({
        input: args.source,
        ...(flags.name ? {name: flags.name} : {}),
        ...(flags.ref ? {ref: flags.ref} : {}),
        ...(flags.sparse ? {sparse: flags.sparse} : {}),
        env,
        context,
        offline: isOffline(flags.offline),
        dryRun: flags['dry-run'],
        onProgress,
      }),
    )
    this.log(renderAdded(added))
    return added
  }
}
