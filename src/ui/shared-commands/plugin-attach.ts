import {readFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import {attachOciBundle} from '../../core/kernel/sources/oci-signature.js'
import {usageError} from '../../core/model/errors.js'
import {sharedCommand} from './types.js'

const MAX_BUNDLE_FILE_BYTES = 1024 * 1024

const spec = {
  flags: {},
  args: [
    {name: 'target', description: 'oci://host[:port]/repo@sha256:<digest> (or :tag)', required: true},
    {name: 'bundle', description: 'the Sigstore bundle file (JSON)', required: true},
  ],
} as const

/** `loadout plugin attach <target> <bundle>`: the bundle pushed as an OCI referrer of the artifact. */
export const pluginAttach = sharedCommand(
  spec,
  async ({argv}, io): Promise<{subject: string; digest: string; via: string}> => {
    const file = resolve(io.env.cwd, argv[1]!)
    const bytes = await readFile(file).catch(() => {
      throw usageError('bundle-unreadable', `${file} cannot be read`)
    })
    if (bytes.length > MAX_BUNDLE_FILE_BYTES) throw usageError('bundle-too-large', `${file} is larger than ${MAX_BUNDLE_FILE_BYTES} bytes`)
    const attached = await attachOciBundle(argv[0]!, bytes, io.env)
    io.log(`attached ${attached.digest} to ${attached.subject} (listed through the ${attached.via})`)
    return attached
  },
  {requests: true},
)
