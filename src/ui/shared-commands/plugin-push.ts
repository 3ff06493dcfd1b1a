import {resolve} from 'node:path'
import {pushPlugin, type PushedPlugin} from '../../core/ops/authoring/oci-push.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {},
  args: [
    {name: 'path', description: 'the plugin folder', required: true},
    {name: 'target', description: 'oci://host[:port]/repo:tag', required: true},
  ],
} as const

/** `loadout plugin push <path> <target>`: validated, packed, pushed; prints the digest. */
export const pluginPush = sharedCommand(
  spec,
  async ({argv}, io): Promise<PushedPlugin> => {
    const pushed = await pushPlugin(resolve(io.env.cwd, argv[0]!), argv[1]!, {env: io.env})
    io.log(`pushed ${pushed.plugin}${pushed.version ? ` ${pushed.version}` : ''} (${pushed.files} file(s)) to ${pushed.reference}`)
    io.log(pushed.digest)
    return pushed
  },
  {requests: true},
)
