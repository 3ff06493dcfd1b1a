import {addMarketplace, type MarketplaceAdded} from '../../core/ops/marketplace/add.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {DRY_RUN_FLAG, isOffline, OFFLINE_FLAG, SCOPE_FLAG} from '../command-spec.js'
import {withProgress} from '../progress.js'
import {renderAdded} from '../render/marketplace.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    name: {type: 'string', description: "register it under this name instead of the catalog's own"},
    ref: {type: 'string', description: 'branch, tag or commit to read (git sources)'},
    sparse: {type: 'string', description: 'check out only these paths of a big repository', multiple: true},
    'signed-by': {
      type: 'string',
      description: 'a public key file (SSH .pub or armored OpenPGP) whose signature every commit read must carry; repeatable',
      multiple: true,
    },
    'signed-by-identity': {
      type: 'string',
      description: 'a Sigstore identity, <issuer>=<subject>, whose bundle every archive the catalog lists must carry; repeatable',
      multiple: true,
    },
    scope: SCOPE_FLAG,
    'auto-update': {type: 'string', description: 'what `loadout update --auto` does once a day: off (default), notify or apply'},
    offline: OFFLINE_FLAG,
    'dry-run': DRY_RUN_FLAG,
  },
  args: {name: 'source', description: 'owner/repo, git URL, catalog URL or path', required: true},
} as const

/** `loadout marketplace add`: registers a catalog; it never asks anything. */
export const marketplaceAdd = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<MarketplaceAdded> => {
    const {env} = io
    const context = resolveScope(flags.scope, env)
    const added = await withProgress(!io.json, (onProgress) =>
      addMarketplace({
        input: argv[0]!,
        ...(flags.name ? {name: flags.name} : {}),
        ...(flags.ref ? {ref: flags.ref} : {}),
        ...(flags.sparse ? {sparse: flags.sparse} : {}),
        ...(flags['signed-by'] ? {signedBy: flags['signed-by']} : {}),
        ...(flags['signed-by-identity'] ? {signedByIdentity: flags['signed-by-identity']} : {}),
        ...(flags['auto-update'] ? {autoUpdate: flags['auto-update']} : {}),
        env,
        context,
        offline: isOffline(flags.offline),
        dryRun: flags['dry-run'] ?? false,
        onProgress,
      }),
    )
    io.log(renderAdded(added))
    return added
  },
  {requests: true},
)
