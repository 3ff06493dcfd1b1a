import {oclifCommand} from '../ui/oclif-command.js'
import {targets} from '../ui/shared-commands/targets.js'

export type {TargetsResult} from '../core/kernel/targets/describe.js'

export default oclifCommand(targets, {
  summary: 'List the agents loadout can write to, which are detected here, and their paths',
  examples: ['<%= config.bin %> targets', '<%= config.bin %> targets --scope user --agent claude-code,codex --json'],
})
