import {oclifCommand} from '../ui/oclif-command.js'
import {verify} from '../ui/shared-commands/verify.js'

export default oclifCommand(verify, {
  summary: 'Recompute the hash of every installed file, config entry and installed plugin copy; report anything missing, changed or added',
  examples: ['<%= config.bin %> verify', '<%= config.bin %> verify review@acme --json'],
})
