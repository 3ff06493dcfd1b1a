import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginValidate} from '../../ui/shared-commands/plugin-validate.js'

export default oclifCommand(pluginValidate, {
  summary: 'Check a plugin in every format it ships (Claude, Codex, cst-agent, Lexora, Gemini CLI extensions); the exit status says whether it passes',
  description: "A folder whose subfolders are plugins (a marketplace's plugins/) is validated plugin by plugin.",
  examples: [
    '<%= config.bin %> plugin validate ./my-plugin',
    '<%= config.bin %> plugin validate ./plugins --json',
    '<%= config.bin %> plugin validate . --strict --json',
    '<%= config.bin %> plugin validate ./my-plugin --fix',
  ],
})
