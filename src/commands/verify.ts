import {Args, Flags} from '@oclif/core'
import {EXIT, LoadoutError} from '../core/errors.js'
import {verifyInstalled, type VerifyResult} from '../core/install/verify.js'
import {resolveScope} from '../core/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {renderVerify} from '../ui/render/install.js'

export default class Verify extends LoadoutCommand {
  static override summary = 'Recompute the hash of every installed file and config entry; report anything missing, changed or added'
  static override examples = ['<%= config.bin %> verify', '<%= config.bin %> verify review@acme --json']
  static override strict = false
  static override args = {plugin: Args.string({description: 'plugins to check (default: all)'})}
  static override flags = {scope: Flags.string({char: 's', description: 'only this scope', options: ['user', 'project']})}

  async run(): Promise<VerifyResult> {
    const {argv, flags} = await this.parse(Verify)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const {pending} = await this.settlePending(env)
    if (pending) {
      throw new LoadoutError('run-pending', EXIT.locked, `cannot verify now: ${pending.label} is ${pending.running ? `in progress (pid ${pending.pid})` : 'pending'}`, {
        details: {pending},
        suggestions: ['run loadout verify again when it has finished'],
      })
    }
    const result = verifyInstalled(env, context.projectRoot, {plugins: argv as string[], ...(flags.scope ? {scope: flags.scope as 'user' | 'project'} : {})})
    if (!result.ok) {
      if (!this.jsonEnabled()) process.stderr.write(`${renderVerify(result)}\n`)
      throw new LoadoutError('verify-failed', EXIT.integrity, 'some installed files or config entries are missing, changed or added', {details: result, suggestions: ['reinstall with: loadout install <plugin> --force']})
    }
    this.log(renderVerify(result))
    return result
  }
}
