import {oclifCommand} from '../../ui/oclif-command.js'
import {skillsInfo} from '../../ui/shared-commands/skills-info.js'

export default oclifCommand(skillsInfo, {
  summary: 'Show a skill: frontmatter, size, files, where it lives for each agent, problems',
  examples: ['<%= config.bin %> skills info pdf-tools', '<%= config.bin %> skills info pdf-tools --agent codex --json'],
})
