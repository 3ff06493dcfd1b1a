import {oclifCommand} from '../ui/oclif-command.js'
import {search} from '../ui/shared-commands/search.js'

export default oclifCommand(search, {
  summary: 'Search plugins across all added marketplaces by name, description, keywords and category',
  examples: [
    '<%= config.bin %> search review',
    '<%= config.bin %> search "pdf forms" --marketplace acme --json',
    '<%= config.bin %> search --category quality',
  ],
})
