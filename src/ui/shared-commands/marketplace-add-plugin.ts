import {addPluginToMarketplace, type PluginAddedToMarketplace} from '../../core/ops/authoring/marketplace-add-plugin.js'
import {DRY_RUN_FLAG} from '../command-spec.js'
import {renderPluginAdded} from '../render/marketplace-authoring.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    'marketplace-dir': {type: 'string', description: 'the marketplace folder', default: '.'},
    'dry-run': DRY_RUN_FLAG,
  },
  args: {name: 'path', description: 'the plugin folder, inside the marketplace folder', required: true},
} as const

/** `loadout marketplace add-plugin <path>`: lists a plugin folder in the marketplace's catalog. */
export const marketplaceAddPlugin = sharedCommand(spec, async ({flags, argv}, io): Promise<PluginAddedToMarketplace> => {
  const added = addPluginToMarketplace({
    plugin: argv[0]!,
    marketplaceDir: flags['marketplace-dir']!,
    cwd: io.env.cwd,
    dryRun: flags['dry-run'] === true,
  })
  io.log(renderPluginAdded(added))
  return added
})
