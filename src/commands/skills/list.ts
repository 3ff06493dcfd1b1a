import type {SkillsListResult} from '../../core/ops/skills/list.js'
import {LoadoutCommand} from '../../ui/base-command.js'
import {oclifFlags} from '../../ui/oclif-flags.js'
import {skillsList} from '../../ui/shared-commands/skills-list.js'

export type {SkillsListResult} from '../../core/ops/skills/list.js'

export default class SkillsList extends LoadoutCommand {
  static override summary = 'List every skill the selected agents would load, with shadowing, validity and owner'
  static override examples = ['<%= config.bin %> skills list', '<%= config.bin %> skills list --agent cst-agent --scope project --json']
  static override flags = oclifFlags(skillsList.spec.flags)

  async run(): Promise<SkillsListResult> {
    const {flags} = await this.parse(SkillsList)
    return skillsList.run({flags, argv: []}, this.io())
  }
}
