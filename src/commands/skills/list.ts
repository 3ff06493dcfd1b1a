import {oclifCommand} from '../../ui/oclif-command.js'
import {skillsList} from '../../ui/shared-commands/skills-list.js'

export type {SkillsListResult} from '../../core/ops/skills/list.js'

export default oclifCommand(skillsList, {
  summary: 'List every skill the selected agents would load, with shadowing, validity and owner',
  examples: ['<%= config.bin %> skills list', '<%= config.bin %> skills list --agent cst-agent --scope project --json'],
})
