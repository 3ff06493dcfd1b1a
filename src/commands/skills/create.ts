import {oclifCommand} from '../../ui/oclif-command.js'
import {skillsCreate} from '../../ui/shared-commands/skills-create.js'

export default oclifCommand(skillsCreate, {
  summary: 'Scaffold a new skill (SKILL.md folder) into the chosen agents',
  examples: [
    '<%= config.bin %> skills create pdf-tools --description "Fill and merge PDF forms" --agent claude-code,codex',
    '<%= config.bin %> skills create release-notes --with scripts,references --scope user --yes',
  ],
})
