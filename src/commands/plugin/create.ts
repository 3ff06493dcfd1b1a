import {oclifCommand} from '../../ui/oclif-command.js'
import {pluginCreate} from '../../ui/shared-commands/plugin-create.js'

export default oclifCommand(pluginCreate, {
  summary: 'Scaffold a plugin folder: manifests for the chosen formats, a README and one example of each part',
  examples: [
    '<%= config.bin %> plugin create code-review --with skills,agents --description "Review diffs before they land"',
    '<%= config.bin %> plugin create toolkit --with skills,agents,hooks,mcp --format all',
    '<%= config.bin %> plugin create word-count --with tools --format cst-agent --dir plugins/word-count --no-git',
  ],
})
