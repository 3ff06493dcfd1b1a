import {LoadoutCommand} from '../ui/base-command.js'
import {oclifFlags} from '../ui/oclif-flags.js'
import {list, type InstalledList} from '../ui/shared-commands/list.js'

export type {InstalledList} from '../ui/shared-commands/list.js'

export default class List extends LoadoutCommand {
  static override summary = 'List installed plugins per scope and agent: version, commit, enabled state, problems'
  static override examples = ['<%= config.bin %> list', '<%= config.bin %> list --scope user --json']
  static override flags = oclifFlags(list.spec.flags)

  async run(): Promise<InstalledList> {
    const {flags} = await this.parse(List)
    return list.run({flags, argv: []}, this.io())
  }
}
