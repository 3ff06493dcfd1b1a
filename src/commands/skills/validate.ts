import {oclifCommand} from '../../ui/oclif-command.js'
import {skillsValidate} from '../../ui/shared-commands/skills-validate.js'

export default oclifCommand(skillsValidate, {
  summary: 'Check skills against the Agent Skills specification; the exit status says whether they pass',
  examples: ['<%= config.bin %> skills validate ./skills/pdf-tools', '<%= config.bin %> skills validate .claude/skills --strict --json'],
})
