import {oclifCommand} from '../ui/oclif-command.js'
import {enable} from '../ui/shared-commands/enable.js'

export default oclifCommand(enable, {
  summary: "Put a disabled plugin's parts back into the agents' folders and configs",
  description: 'With --skill, --hook, --mcp, --agent-part or --command, turns just those parts back on, written from the installed copy.',
  examples: ['<%= config.bin %> enable review@acme', '<%= config.bin %> enable review@acme --hook Stop'],
})
