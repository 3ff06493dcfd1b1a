import {oclifCommand} from '../ui/oclif-command.js'
import {update} from '../ui/shared-commands/update.js'

export default oclifCommand(update, {
  summary: 'Install newer versions of installed plugins, asking again when what they run changed',
  examples: [
    '<%= config.bin %> update',
    '<%= config.bin %> update review@acme --yes',
    '<%= config.bin %> update --review',
    '<%= config.bin %> update --dry-run --json',
  ],
})
