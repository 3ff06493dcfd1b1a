import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginPack} from '../../ui/shared-commands/plugin-pack.js'

export default oclifCommand(pluginPack, {
  summary: 'Write the package archive of a plugin for an agent that installs packages itself (Lexora)',
  description: "The plugin must pass `plugin validate`; the archive keeps every file's bytes and relative path under package/.",
  examples: ['<%= config.bin %> plugin pack ./my-plugin --format lexora', '<%= config.bin %> plugin pack . --format lexora --out dist --json'],
})
