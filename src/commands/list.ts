import {oclifCommand} from '../ui/oclif-command.js'
import {list} from '../ui/shared-commands/list.js'

export type {InstalledList} from '../ui/shared-commands/list.js'

export default oclifCommand(list, {
  summary: 'List installed plugins per scope and agent: version, commit, enabled state, problems',
  examples: ['<%= config.bin %> list', '<%= config.bin %> list --scope user --json'],
})
