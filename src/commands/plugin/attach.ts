import {Args} from '@oclif/core'
import {readFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import {attachOciBundle} from '../../core/kernel/sources/oci-signature.js'
import {usageError} from '../../core/model/errors.js'
import {LoadoutCommand} from '../../ui/base-command.js'

const MAX_BUNDLE_FILE_BYTES = 1024 * 1024

export default class PluginAttach extends LoadoutCommand {
  static override summary = 'Attach a Sigstore bundle to a pushed plugin or catalog as an OCI referrer'
  static override description =
    "The bundle must sign the artifact's manifest bytes (cosign sign-blob --bundle). It is pushed with the subject set to the manifest, listed through the registry's referrers API, or through the sha256-<hex> tag on a registry without it; installs from a marketplace added with --signed-by-identity check it."
  static override examples = ['<%= config.bin %> plugin attach oci://ghcr.io/acme/kit@sha256:<digest> kit.sigstore.json --json']
  static override args = {
    target: Args.string({description: 'oci://host[:port]/repo@sha256:<digest> (or :tag)', required: true}),
    bundle: Args.string({description: 'the Sigstore bundle file (JSON)', required: true}),
  }

  async run(): Promise<{subject: string; digest: string; via: string}> {
    const {args} = await this.parse(PluginAttach)
    const env = this.environment()
    const file = resolve(env.cwd, args.bundle)
    const bytes = await readFile(file).catch(() => {
      throw usageError('bundle-unreadable', `${file} cannot be read`)
    })
    if (bytes.length > MAX_BUNDLE_FILE_BYTES) throw usageError('bundle-too-large', `${file} is larger than ${MAX_BUNDLE_FILE_BYTES} bytes`)
    const attached = await attachOciBundle(args.target, bytes, env)
    this.log(`attached ${attached.digest} to ${attached.subject} (listed through the ${attached.via})`)
    return attached
  }
}
