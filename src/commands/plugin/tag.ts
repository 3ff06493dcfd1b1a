import {Args} from '@oclif/core'
import {resolve} from 'node:path'
import {tagPlugin, type TagResult} from '../../core/ops/authoring/plugin-tag.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag} from '../../ui/flags.js'

export default class PluginTag extends LoadoutCommand {
  static override summary = 'Tag the current commit as {name}--v{version} from the plugin manifest, for version ranges and dependencies'
  static override description = 'Refuses a dirty work tree and a tag that exists already. Push the tag with git push origin <tag>.'
  static override examples = ['<%= config.bin %> plugin tag ./plugins/review', '<%= config.bin %> plugin tag --dry-run --json']
  static override args = {path: Args.string({description: 'the plugin folder (default: .)'})}
  static override flags = {'dry-run': dryRunFlag}

  async run(): Promise<TagResult> {
    const {args, flags} = await this.parse(PluginTag)
    const env = this.environment()
    const result = await tagPlugin(resolve(env.cwd, args.path ?? '.'), {env, dryRun: flags['dry-run'] === true})
    this.log(`${result.dryRun ? 'would tag' : 'tagged'} ${result.commit.slice(0, 12)} as ${result.tag}; publish it with: git push origin ${result.tag}`)
    return result
  }
}
