import {oclifCommand} from '../ui/oclif-command.js'
import {uninstall} from '../ui/shared-commands/uninstall.js'

export default oclifCommand(uninstall, {
  summary: 'Remove exactly the files and config entries an install wrote, then its record',
  examples: ['<%= config.bin %> uninstall review@acme --yes', '<%= config.bin %> uninstall review@acme --agent codex --dry-run'],
})
