import {oclifCommand} from '../ui/oclif-command.js'
import {install} from '../ui/shared-commands/install.js'

export default oclifCommand(install, {
  summary: "Install a plugin's skills, subagents, MCP servers and hooks into the chosen agents",
  description: 'With no argument in a project, installs everything loadout.json declares at the versions in loadout.lock.',
  examples: [
    '<%= config.bin %> install loadout-guide@loadout --agent universal',
    '<%= config.bin %> install review@acme --agent claude-code,codex --scope user',
    '<%= config.bin %> install ./my-plugin --agent claude-code --dry-run',
    '<%= config.bin %> install review@acme lint@acme docs@acme --agent claude-code,codex',
    '<%= config.bin %> install acme/tools --skill pdf-tools --agent cursor',
  ],
})
