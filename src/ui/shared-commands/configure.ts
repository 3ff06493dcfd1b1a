import {configurePlugin, type ConfigureResult} from '../../core/ops/configure/configure.js'
import {resolveScope} from '../../core/kernel/env/scope.js'
import {SCOPE_FLAG} from '../command-spec.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    scope: SCOPE_FLAG,
    set: {type: 'string', description: 'KEY=VALUE (repeatable)', multiple: true},
    export: {type: 'boolean', description: 'print `export VAR=...` lines for the sensitive values (eval them in the shell that starts your agent)'},
  },
  args: {name: 'plugin', description: 'plugin@marketplace (or plugin)', required: true},
} as const

export const configure = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<ConfigureResult> => {
    const {env} = io
    const context = resolveScope(flags.scope, env)
    const interactive = env.interactive && !io.json && !flags.export
    const result = await configurePlugin(argv[0]!, {
      env,
      context,
      sets: flags.set ?? [],
      export: flags.export as boolean,
      ...(interactive ? {ask: (await import('../prompt-user-config.js')).askUserConfig(env)} : {}),
    })
    if (result.exports) {
      for (const line of result.exports) io.log(line)
      return result
    }
    if (result.options.length === 0) io.log(`${result.plugin} has no userConfig options`)
    for (const o of result.options) {
      const value = o.sensitive ? (o.set ? `(set; agents read \${${o.env}})` : '(not set)') : o.set ? JSON.stringify(o.value) : '(not set)'
      io.log(`${o.key} [${o.type}${o.sensitive ? ', sensitive' : ''}${o.required ? ', required' : ''}]: ${value}`)
    }
    if (result.reapplied) io.log(`rewrote ${result.plugin} with the new values`)
    return result
  },
  // on a terminal configure asks for the values: that stays with oclif
  {requests: true, fastWhen: (io) => !io.env.interactive},
)
