import {Args} from '@oclif/core'
import {resolve} from 'node:path'
import {pushPlugin, type PushedPlugin} from '../../core/ops/authoring/oci-push.js'
import {LoadoutCommand} from '../../ui/base-command.js'

export default class PluginPush extends LoadoutCommand {
  static override summary = 'Publish a plugin to an OCI registry (validated, packed, pushed; prints the digest)'
  static override description =
    'The plugin must pass `plugin validate`. Credentials come from ~/.docker/config.json and its credential helpers (docker login); loadout stores none.'
  static override examples = [
    '<%= config.bin %> plugin push ./my-plugin oci://ghcr.io/acme/my-plugin:1.2.0',
    '<%= config.bin %> plugin push . oci://registry.example.com:5000/team/kit:latest --json',
  ]
  static override args = {
    path: Args.string({description: 'the plugin folder', required: true}),
    target: Args.string({description: 'oci://host[:port]/repo:tag', required: true}),
  }

  async run(): Promise<PushedPlugin> {
    const {args} = await this.parse(PluginPush)
    const env = this.environment()
    const pushed = await pushPlugin(resolve(env.cwd, args.path), args.target, {env})
    this.log(`pushed ${pushed.plugin}${pushed.version ? ` ${pushed.version}` : ''} (${pushed.files} file(s)) to ${pushed.reference}`)
    this.log(pushed.digest)
    return pushed
  }
}
