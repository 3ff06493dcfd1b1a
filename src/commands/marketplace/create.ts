import {Args, Flags} from '@oclif/core'
import {createMarketplace, MARKETPLACE_FORMATS, type CreatedMarketplace, type MarketplaceFormatChoice} from '../../core/ops/authoring/marketplace-create.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag} from '../../ui/flags.js'
import {renderCreatedMarketplace} from '../../ui/render/marketplace-authoring.js'

export default class MarketplaceCreate extends LoadoutCommand {
  static override summary = 'Scaffold a plugin marketplace: its catalog, a plugins/ folder, a README and a git repository'
  static override examples = [
    '<%= config.bin %> marketplace create team-tools --owner "Acme Tools <tools@acme.dev>"',
    '<%= config.bin %> marketplace create team-tools --format all --dir ./marketplaces/team --no-git',
  ]
  static override args = {name: Args.string({required: true, description: 'marketplace name in kebab-case (users install <plugin>@<name>)'})}
  static override flags = {
    dir: Flags.string({description: 'the folder to create (default: ./<name>)'}),
    format: Flags.string({
      description: 'claude: .claude-plugin/marketplace.json; all: also .agents/plugins/marketplace.json for Codex',
      options: [...MARKETPLACE_FORMATS],
      default: 'claude',
    }),
    description: Flags.string({char: 'd', description: 'what the marketplace offers'}),
    owner: Flags.string({description: 'who maintains it: "Name" or "Name <email>" (default: git config user.name and user.email)'}),
    force: Flags.boolean({
      char: 'f',
      description: 'write into a folder that already has files (the files the marketplace needs are replaced; the rest are kept)',
    }),
    git: Flags.boolean({description: 'run git init in the new folder (--no-git skips it)', default: true, allowNo: true}),
    'dry-run': dryRunFlag,
  }

  async run(): Promise<CreatedMarketplace> {
    const {args, flags} = await this.parse(MarketplaceCreate)
    const created = await createMarketplace({
      name: args.name,
      ...(flags.dir === undefined ? {} : {dir: flags.dir}),
      format: flags.format as MarketplaceFormatChoice,
      ...(flags.description === undefined ? {} : {description: flags.description}),
      ...(flags.owner === undefined ? {} : {owner: flags.owner}),
      force: flags.force === true,
      dryRun: flags['dry-run'] === true,
      git: flags.git !== false,
      env: this.environment(),
    })
    this.log(renderCreatedMarketplace(created))
    return created
  }
}
