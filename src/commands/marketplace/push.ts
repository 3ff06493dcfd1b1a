import {oclifCommand} from '../../ui/oclif-command.js'
import {marketplacePush} from '../../ui/shared-commands/marketplace-push.js'

export default oclifCommand(marketplacePush, {
  summary: "Publish a marketplace to an OCI registry: its folder's plugins pushed, every entry pinned to a digest",
  description:
    'Plugins in the marketplace folder are pushed to <repo>/<plugin>:<version>; oci entries with a tag are pinned to their digest. Add it with `marketplace add oci://...`.',
  examples: ['<%= config.bin %> marketplace push ./my-marketplace oci://ghcr.io/acme/catalog:latest'],
})
