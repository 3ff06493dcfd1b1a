import {oclifCommand} from '../ui/oclif-command.js'
import {outdated} from '../ui/shared-commands/outdated.js'

export default oclifCommand(outdated, {
  summary: 'Show installed plugins with newer versions or content: current, wanted, latest (read-only)',
  examples: ['<%= config.bin %> outdated', '<%= config.bin %> outdated review@acme --json'],
})
