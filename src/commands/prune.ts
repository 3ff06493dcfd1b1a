import {oclifCommand} from '../ui/oclif-command.js'
import {prune} from '../ui/shared-commands/prune.js'

export default oclifCommand(prune, {
  summary: 'Remove plugins installed only as dependencies that nothing needs any more',
  examples: ['<%= config.bin %> prune --yes', '<%= config.bin %> prune --dry-run --json'],
})
