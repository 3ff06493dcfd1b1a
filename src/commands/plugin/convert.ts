import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginConvert} from '../../ui/shared-commands/plugin-convert.js'

export default oclifCommand(pluginConvert, {
  summary: 'Write the manifest another agent needs from what a plugin has, and list what that format cannot carry',
  examples: [
    '<%= config.bin %> plugin convert ./my-plugin --to codex',
    '<%= config.bin %> plugin convert ./my-plugin --to lexora --out dist/lexora',
    '<%= config.bin %> plugin convert . --to cst-agent --dry-run --json',
  ],
})
