import {resolve} from 'node:path'
import {pushCatalog, type PushedCatalog} from '../../core/ops/authoring/oci-push.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {},
  args: [
    {name: 'path', description: 'the marketplace folder', required: true},
    {name: 'target', description: 'oci://host[:port]/repo:tag', required: true},
  ],
} as const

/** `loadout marketplace push <path> <target>`: the folder's plugins pushed, every entry pinned to a digest. */
export const marketplacePush = sharedCommand(
  spec,
  async ({argv}, io): Promise<PushedCatalog> => {
    const pushed = await pushCatalog(resolve(io.env.cwd, argv[0]!), argv[1]!, {env: io.env})
    for (const plugin of pushed.plugins) io.log(`  ${plugin.name}  ${plugin.reference}`)
    io.log(`pushed marketplace ${pushed.marketplace} (${pushed.plugins.length} plugin(s)) to ${pushed.reference}`)
    io.log(pushed.digest)
    return pushed
  },
  {requests: true},
)
