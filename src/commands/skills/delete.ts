import {oclifCommand} from '../../ui/oclif-command.js'
import {skillsDelete} from '../../ui/shared-commands/skills-delete.js'

export default oclifCommand(skillsDelete, {
  summary: 'Delete a skill made by hand from the chosen agents (installed ones: loadout uninstall)',
  examples: ['<%= config.bin %> skills delete pdf-tools --agent claude-code --dry-run', '<%= config.bin %> skills delete pdf-tools --scope user --yes'],
})
