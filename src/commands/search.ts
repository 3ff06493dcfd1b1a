import {Args, Flags} from '@oclif/core'
import {searchPlugins, type SearchResult} from '../core/marketplace/browse.js'
import {resolveScope} from '../core/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {renderSearch} from '../ui/render/marketplace.js'

export default class Search extends LoadoutCommand {
  static override summary = 'Search plugins across all added marketplaces by name, description, keywords and category'
  static override examples = ['<%= config.bin %> search review', '<%= config.bin %> search "pdf forms" --marketplace acme --json', '<%= config.bin %> search --category quality']
  static override strict = false
  static override args = {query: Args.string({description: 'words to look for (all must match)'})}
  static override flags = {
    marketplace: Flags.string({char: 'm', description: 'search only this marketplace'}),
    category: Flags.string({char: 'c', description: 'only plugins of this category'}),
  }

  async run(): Promise<SearchResult> {
    const {argv, flags} = await this.parse(Search)
    const env = this.environment()
    const query = (argv as string[]).join(' ')
    const result = searchPlugins(query, env, resolveScope(undefined, env), {...(flags.marketplace ? {marketplace: flags.marketplace} : {}), ...(flags.category ? {category: flags.category} : {})})
    this.log(renderSearch(result))
    return result
  }
}
