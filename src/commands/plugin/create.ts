import {Args, Flags} from '@oclif/core'
import {createPlugin, PLUGIN_FORMATS, PLUGIN_PARTS, type CreatedPlugin} from '../../core/ops/authoring/plugin-create.js'
import {splitList} from '../../core/kernel/targets/registry.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag} from '../../ui/flags.js'
import {askText} from '../../ui/prompt.js'
import {renderPluginCreated} from '../../ui/render/plugin.js'

export default class PluginCreate extends LoadoutCommand {
  static override summary = 'Scaffold a plugin folder: manifests for the chosen formats, a README and one example of each part'
  static override examples = [
    '<%= config.bin %> plugin create code-review --with skills,agents --description "Review diffs before they land"',
    '<%= config.bin %> plugin create toolkit --with skills,agents,hooks,mcp --format all',
    '<%= config.bin %> plugin create word-count --with tools --format cst-agent --dir plugins/word-count --no-git',
  ]
  static override args = {name: Args.string({required: true, description: 'plugin name: kebab-case (lowercase words joined by "-")'})}
  static override flags = {
    with: Flags.string({description: `parts to include, comma-separated: ${PLUGIN_PARTS.join(', ')} (default: skills)`, helpValue: 'skills,agents'}),
    format: Flags.string({
      description: `manifest formats, comma-separated: ${PLUGIN_FORMATS.join(', ')} or all (default: claude)`,
      helpValue: `${PLUGIN_FORMATS.join('|')}|all`,
    }),
    description: Flags.string({char: 'd', description: 'what the plugin does (up to 1024 characters)'}),
    author: Flags.string({description: 'author as "Name <email>" (default: git config user.name and user.email)'}),
    dir: Flags.string({description: 'the folder to create (default: ./<name>)', helpValue: 'path'}),
    git: Flags.boolean({description: 'run git init in the new folder (--no-git to skip)', default: true, allowNo: true}),
    force: Flags.boolean({char: 'f', description: 'replace an existing folder'}),
    'dry-run': dryRunFlag,
  }

  async run(): Promise<CreatedPlugin> {
    const {args, flags} = await this.parse(PluginCreate)
    const env = this.environment()
    let {description} = flags
    if (description === undefined && env.interactive && !this.jsonEnabled()) {
      description = await askText('Description (what the plugin does):', `Describe what ${args.name} does and when to use it.`)
    }
    const created = await createPlugin({
      name: args.name,
      parts: splitList(flags.with),
      formats: splitList(flags.format),
      ...(description === undefined ? {} : {description}),
      ...(flags.author === undefined ? {} : {author: flags.author}),
      ...(flags.dir === undefined ? {} : {dir: flags.dir}),
      env,
      git: flags.git,
      force: flags.force === true,
      dryRun: flags['dry-run'] === true,
    })
    this.log(renderPluginCreated(created))
    return created
  }
}
