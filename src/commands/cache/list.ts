import {listCache, type CacheListing} from '../../core/ops/maintenance/cache.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {renderCacheList} from '../../ui/render/maintenance.js'

export default class CacheList extends LoadoutCommand {
  static override summary = 'List what is in loadout’s cache and its installed plugin copies, with sizes and what uses each'
  static override examples = ['<%= config.bin %> cache list', '<%= config.bin %> cache list --json']

  async run(): Promise<CacheListing> {
    await this.parse(CacheList)
    const env = this.environment()
    await this.settlePending(env)
    const listing = listCache(env, resolveScope(undefined, env))
    this.log(renderCacheList(listing))
    return listing
  }
}
