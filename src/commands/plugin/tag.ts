import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginTag} from '../../ui/shared-commands/plugin-tag.js'

export default oclifCommand(pluginTag, {
  summary: 'Tag the current commit as {name}--v{version} from the plugin manifest, for version ranges and dependencies',
  description: 'Refuses a dirty work tree and a tag that exists already. Push the tag with git push origin <tag>.',
  examples: ['<%= config.bin %> plugin tag ./plugins/review', '<%= config.bin %> plugin tag --dry-run --json'],
})
