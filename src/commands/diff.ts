import {oclifCommand} from '../ui/oclif-command.js'
import {diff} from '../ui/shared-commands/diff.js'

export default oclifCommand(diff, {
  summary:
    'Read-only: what `update` would change in an installed plugin — descriptions and text the model reads, hooks, MCP servers and permissions that run, sources and hosts',
  examples: ['<%= config.bin %> diff review@acme', '<%= config.bin %> diff review@acme --json'],
})
