import type {SearchResult} from '../core/kernel/marketplace/browse.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {oclifArgs, oclifFlags} from '../ui/oclif-flags.js'
import {search} from '../ui/shared-commands/search.js'

export default class Search extends LoadoutCommand {
  static override summary = 'Search plugins across all added marketplaces by name, description, keywords and category'
  static override examples = [
    '<%= config.bin %> search review',
    '<%= config.bin %> search "pdf forms" --marketplace acme --json',
    '<%= config.bin %> search --category quality',
  ]
  static override strict = false
  static override args = oclifArgs(search.spec.args)
  static override flags = oclifFlags(search.spec.flags)

  async run(): Promise<SearchResult> {
    const {argv, flags} = await this.parse(Search)
    return search.run({flags, argv: argv as string[]}, this.io())
  }
}
