import type {TargetsResult} from '../core/kernel/targets/describe.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {oclifFlags} from '../ui/oclif-flags.js'
import {targets} from '../ui/shared-commands/targets.js'

export type {TargetsResult} from '../core/kernel/targets/describe.js'

export default class Targets extends LoadoutCommand {
  static override summary = 'List the agents loadout can write to, which are detected here, and their paths'
  static override examples = ['<%= config.bin %> targets', '<%= config.bin %> targets --scope user --agent claude-code,codex --json']
  static override flags = oclifFlags(targets.spec.flags)

  async run(): Promise<TargetsResult> {
    const {flags} = await this.parse(Targets)
    return targets.run({flags, argv: []}, this.io())
  }
}
