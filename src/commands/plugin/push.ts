import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginPush} from '../../ui/shared-commands/plugin-push.js'

export default oclifCommand(pluginPush, {
  summary: 'Publish a plugin to an OCI registry (validated, packed, pushed; prints the digest)',
  description:
    'The plugin must pass `plugin validate`. Credentials come from ~/.docker/config.json and its credential helpers (docker login); loadout stores none.',
  examples: [
    '<%= config.bin %> plugin push ./my-plugin oci://ghcr.io/acme/my-plugin:1.2.0',
    '<%= config.bin %> plugin push . oci://registry.example.com:5000/team/kit:latest --json',
  ],
})
