import {LoadoutCommand} from '../ui/base-command.js'
import {oclifArgs, oclifFlags} from '../ui/oclif-flags.js'
import {install, type InstallOutput} from '../ui/shared-commands/install.js'

export default class Install extends LoadoutCommand {
  static override summary = "Install a plugin's skills, subagents, MCP servers and hooks into the chosen agents"
  static override description = 'With no argument in a project, installs everything loadout.json declares at the versions in loadout.lock.'
  static override examples = [
    '<%= config.bin %> install loadout-guide@loadout --agent universal',
    '<%= config.bin %> install review@acme --agent claude-code,codex --scope user',
    '<%= config.bin %> install ./my-plugin --agent claude-code --dry-run',
    '<%= config.bin %> install review@acme lint@acme docs@acme --agent claude-code,codex',
    '<%= config.bin %> install acme/tools --skill pdf-tools --agent cursor',
  ]
  // several plugins are one transaction: all of them or none
  static override strict = false
  static override args = oclifArgs(install.spec.args)
  static override flags = oclifFlags(install.spec.flags)

  async run(): Promise<InstallOutput> {
    const {argv, flags} = await this.parse(Install)
    return install.run({flags, argv: argv as string[]}, this.io())
  }
}
