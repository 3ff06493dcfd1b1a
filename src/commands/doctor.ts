import {oclifCommand} from '../ui/oclif-command.js'
import {doctor} from '../ui/shared-commands/doctor.js'

export default oclifCommand(doctor, {
  summary: 'Check the setup: git and Node, each detected agent’s folders and config files, interrupted installs, records, caches',
  examples: ['<%= config.bin %> doctor', '<%= config.bin %> doctor --fix --json'],
})
