import type {VerifyResult} from '../core/ops/install/verify.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {oclifArgs, oclifFlags} from '../ui/oclif-flags.js'
import {verify} from '../ui/shared-commands/verify.js'

export default class Verify extends LoadoutCommand {
  static override summary = 'Recompute the hash of every installed file, config entry and installed plugin copy; report anything missing, changed or added'
  static override examples = ['<%= config.bin %> verify', '<%= config.bin %> verify review@acme --json']
  static override strict = false
  static override args = oclifArgs(verify.spec.args)
  static override flags = oclifFlags(verify.spec.flags)

  async run(): Promise<VerifyResult> {
    const {argv, flags} = await this.parse(Verify)
    return verify.run({flags, argv: argv as string[]}, this.io())
  }
}
