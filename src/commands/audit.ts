import {oclifCommand} from '../ui/oclif-command.js'
import {audit} from '../ui/shared-commands/audit.js'

export default oclifCommand(audit, {
  summary:
    'Look for hidden characters (Unicode tags, bidi controls, zero-width) in every installed file and every skill and subagent in the agent folders, verify, and check what is installed against the policy',
  examples: ['<%= config.bin %> audit', '<%= config.bin %> audit --scope user --json', '<%= config.bin %> audit --format sarif > loadout.sarif'],
})
