import {cleanCache, type CacheCleaned} from '../../core/ops/maintenance/cache.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {dryRunFlag} from '../../ui/flags.js'
import {renderCacheClean} from '../../ui/render/maintenance.js'

export default class CacheClean extends LoadoutCommand {
  static override summary = 'Remove cached checkouts, downloads and old plugin copies that nothing uses'
  static override examples = ['<%= config.bin %> cache clean', '<%= config.bin %> cache clean --dry-run --json']
  static override flags = {'dry-run': dryRunFlag}

  async run(): Promise<CacheCleaned> {
    const {flags} = await this.parse(CacheClean)
    const env = this.environment()
    const cleaned = await cleanCache(env, resolveScope(undefined, env), {dryRun: flags['dry-run']})
    this.log(renderCacheClean(cleaned))
    return cleaned
  }
}
