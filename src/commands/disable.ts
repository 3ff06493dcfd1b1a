import {oclifCommand} from '../ui/oclif-command.js'
import {disable} from '../ui/shared-commands/disable.js'

export default oclifCommand(disable, {
  summary: "Take a plugin's parts out of the agents' folders and configs, keeping it installed and cached",
  description:
    "With --skill, --hook, --mcp, --agent-part or --command, only those parts go: the rest stays, and the records (and loadout.json in a project) remember them as off, through update and a teammate's install.",
  examples: [
    '<%= config.bin %> disable review@acme',
    '<%= config.bin %> disable review@acme --agent codex',
    '<%= config.bin %> disable review@acme --hook Stop --skill formatter',
  ],
})
