import {oclifCommand} from '../../ui/oclif-command.js'
import {policyShow} from '../../ui/shared-commands/policy-show.js'

export default oclifCommand(policyShow, {
  summary: 'Show the effective policy (system, user, project files merged, each only tightening) and the file of each rule',
  examples: ['<%= config.bin %> policy show', '<%= config.bin %> policy show --json'],
})
