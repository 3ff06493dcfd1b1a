import {oclifCommand} from '../../ui/oclif-command.js'
import {cacheClean} from '../../ui/shared-commands/cache.js'

export default oclifCommand(cacheClean, {
  summary: 'Remove cached checkouts, downloads and old plugin copies that nothing uses',
  examples: ['<%= config.bin %> cache clean', '<%= config.bin %> cache clean --dry-run --json'],
})
