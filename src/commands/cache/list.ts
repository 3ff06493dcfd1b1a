import {oclifCommand} from '../../ui/oclif-command.js'
import {cacheList} from '../../ui/shared-commands/cache.js'

export default oclifCommand(cacheList, {
  summary: 'List what is in loadout’s cache and its installed plugin copies, with sizes and what uses each',
  examples: ['<%= config.bin %> cache list', '<%= config.bin %> cache list --json'],
})
