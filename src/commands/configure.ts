import {Args, Flags} from '@oclif/core'
import {configurePlugin, type ConfigureResult} from '../core/ops/configure/configure.js'
import {resolveScope} from '../core/kernel/env/scope.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {scopeFlag} from '../ui/flags.js'
import {askUserConfig} from '../ui/prompt-user-config.js'

export default class Configure extends LoadoutCommand {
  static override summary = "Set an installed plugin's userConfig options (asks on a terminal, or --set KEY=VALUE)"
  static override description =
    "Plain values are stored in user-config.json under loadout's config folder; sensitive ones in secrets.json there (mode 0600) and never in an agent's files: agents that expand environment variables get ${LOADOUT_<PLUGIN>_<KEY>}, which --export prints for your shell."
  static override examples = [
    '<%= config.bin %> configure review@acme',
    '<%= config.bin %> configure review@acme --set API_URL=https://api.acme.dev --set TOKEN=...',
    '<%= config.bin %> configure review@acme --json',
  ]
  static override args = {plugin: Args.string({required: true, description: 'plugin@marketplace (or plugin)'})}
  static override flags = {
    scope: scopeFlag,
    set: Flags.string({description: 'KEY=VALUE (repeatable)', multiple: true}),
    export: Flags.boolean({description: 'print `export VAR=...` lines for the sensitive values (eval them in the shell that starts your agent)'}),
  }

  async run(): Promise<ConfigureResult> {
    const {args, flags} = await this.parse(Configure)
    const env = this.environment()
    const context = resolveScope(flags.scope, env)
    const interactive = env.interactive && !this.jsonEnabled() && !flags.export
    const result = await configurePlugin(args.plugin, {
      env,
      context,
      sets: flags.set ?? [],
      export: flags.export,
      ...(interactive ? {ask: askUserConfig(env)} : {}),
    })
    if (result.exports) {
      for (const line of result.exports) this.log(line)
      return result
    }
    if (result.options.length === 0) this.log(`${result.plugin} has no userConfig options`)
    for (const o of result.options) {
      const value = o.sensitive ? (o.set ? `(set; agents read \${${o.env}})` : '(not set)') : o.set ? JSON.stringify(o.value) : '(not set)'
      this.log(`${o.key} [${o.type}${o.sensitive ? ', sensitive' : ''}${o.required ? ', required' : ''}]: ${value}`)
    }
    if (result.reapplied) this.log(`rewrote ${result.plugin} with the new values`)
    return result
  }
}
