import {createMarketplace, MARKETPLACE_FORMATS, type CreatedMarketplace, type MarketplaceFormatChoice} from '../../core/ops/authoring/marketplace-create.js'
import {DRY_RUN_FLAG} from '../command-spec.js'
import {renderCreatedMarketplace} from '../render/marketplace-authoring.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    dir: {type: 'string', description: 'the folder to create (default: ./<name>)'},
    format: {
      type: 'string',
      description: 'claude: .claude-plugin/marketplace.json; all: also .agents/plugins/marketplace.json for Codex',
      options: MARKETPLACE_FORMATS,
      default: 'claude',
    },
    description: {type: 'string', char: 'd', description: 'what the marketplace offers'},
    owner: {type: 'string', description: 'who maintains it: "Name" or "Name <email>" (default: git config user.name and user.email)'},
    force: {
      type: 'boolean',
      char: 'f',
      description: 'write into a folder that already has files (the files the marketplace needs are replaced; the rest are kept)',
    },
    git: {type: 'boolean', description: 'run git init in the new folder (--no-git skips it)', default: true, allowNo: true},
    'dry-run': DRY_RUN_FLAG,
  },
  args: {name: 'name', description: 'marketplace name in kebab-case (users install <plugin>@<name>)', required: true},
} as const

/** `loadout marketplace create <name>`: a catalog, a plugins/ folder, a README and a git repository. */
export const marketplaceCreate = sharedCommand(spec, async ({flags, argv}, io): Promise<CreatedMarketplace> => {
  const created = await createMarketplace({
    name: argv[0]!,
    ...(flags.dir === undefined ? {} : {dir: flags.dir}),
    format: flags.format as MarketplaceFormatChoice,
    ...(flags.description === undefined ? {} : {description: flags.description}),
    ...(flags.owner === undefined ? {} : {owner: flags.owner}),
    force: flags.force === true,
    dryRun: flags['dry-run'] === true,
    git: flags.git !== false,
    env: io.env,
  })
  io.log(renderCreatedMarketplace(created))
  return created
})
