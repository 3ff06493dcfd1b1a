import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginAttach} from '../../ui/shared-commands/plugin-attach.js'

export default oclifCommand(pluginAttach, {
  summary: 'Attach a Sigstore bundle to a pushed plugin or catalog as an OCI referrer',
  description:
    "The bundle must sign the artifact's manifest bytes (cosign sign-blob --bundle). It is pushed with the subject set to the manifest, listed through the registry's referrers API, or through the sha256-<hex> tag on a registry without it; installs from a marketplace added with --signed-by-identity check it.",
  examples: ['<%= config.bin %> plugin attach oci://ghcr.io/acme/kit@sha256:<digest> kit.sigstore.json --json'],
})
