import {Args} from '@oclif/core'
import {resolve} from 'node:path'
import {pushCatalog, type PushedCatalog} from '../../core/ops/authoring/oci-push.js'
import {LoadoutCommand} from '../../ui/base-command.js'

export default class MarketplacePush extends LoadoutCommand {
  static override summary = "Publish a marketplace to an OCI registry: its folder's plugins pushed, every entry pinned to a digest"
  static override description =
    'Plugins in the marketplace folder are pushed to <repo>/<plugin>:<version>; oci entries with a tag are pinned to their digest. Add it with `marketplace add oci://...`.'
  static override examples = ['<%= config.bin %> marketplace push ./my-marketplace oci://ghcr.io/acme/catalog:latest']
  static override args = {
    path: Args.string({description: 'the marketplace folder', required: true}),
    target: Args.string({description: 'oci://host[:port]/repo:tag', required: true}),
  }

  async run(): Promise<PushedCatalog> {
    const {args} = await this.parse(MarketplacePush)
    const env = this.environment()
    const pushed = await pushCatalog(resolve(env.cwd, args.path), args.target, {env})
    for (const plugin of pushed.plugins) this.log(`  ${plugin.name}  ${plugin.reference}`)
    this.log(`pushed marketplace ${pushed.marketplace} (${pushed.plugins.length} plugin(s)) to ${pushed.reference}`)
    this.log(pushed.digest)
    return pushed
  }
}
