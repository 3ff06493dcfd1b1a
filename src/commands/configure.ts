import {oclifCommand} from '../ui/oclif-command.js'
import {configure} from '../ui/shared-commands/configure.js'

export default oclifCommand(configure, {
  summary: "Set an installed plugin's userConfig options (asks on a terminal, or --set KEY=VALUE)",
  description:
    "Plain values are stored in user-config.json under loadout's config folder; sensitive ones in secrets.json there (mode 0600) and never in an agent's files: agents that expand environment variables get ${LOADOUT_<PLUGIN>_<KEY>}, which --export prints for your shell.",
  examples: [
    '<%= config.bin %> configure review@acme',
    '<%= config.bin %> configure review@acme --set API_URL=https://api.acme.dev --set TOKEN=...',
    '<%= config.bin %> configure review@acme --json',
  ],
})
