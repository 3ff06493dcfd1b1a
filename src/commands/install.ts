import {Args, Flags} from '@oclif/core'
import type {InstallResult} from '../core/install/install.js'
import {installManyWithDependencies, type TreeInstallResult} from '../core/deps/tree.js'
import type {DeclaredInstall} from '../core/install/declared.js'
import {resolveScope} from '../core/scope.js'
import {splitList} from '../core/targets/registry.js'
import {LoadoutCommand} from '../ui/base-command.js'
import {agentFlag, allowHiddenTextFlag, dryRunFlag, isOffline, offlineFlag, scopeFlag, yesFlag} from '../ui/flags.js'
import {withProgress} from '../ui/progress.js'
import {confirmOrFail} from '../ui/prompt.js'
import {askUserConfig} from '../ui/prompt-user-config.js'
import {renderConsent, renderInstalled} from '../ui/render/install.js'
import {targetsForWrite} from '../ui/select-targets.js'

export default class Install extends LoadoutCommand {
  static override summary = "Install a plugin's skills, subagents, MCP servers and hooks into the chosen agents"
  static override description = 'With no argument in a project, installs everything loadout.json declares at the versions in loadout.lock.'
  static override examples = [
    '<%= config.bin %> install loadout-guide@loadout --agent universal',
    '<%= config.bin %> install review@acme --agent claude-code,codex --scope user',
    '<%= config.bin %> install ./my-plugin --agent claude-code --dry-run',
    '<%= config.bin %> install review@acme lint@acme docs@acme --agent claude-code,codex',
    '<%= config.bin %> install acme/tools --skill pdf-tools --agent cursor',
  ]
  // several plugins are one transaction: all of them or none
  static override strict = false
  static override args = {plugin: Args.string({description: 'plugin[@marketplace][@version or semver range], or a source: owner/repo, git URL, folder, archive URL; several install together, all or none'})}
  static override flags = {
    agent: agentFlag,
    scope: scopeFlag,
    yes: yesFlag,
    'dry-run': dryRunFlag,
    force: Flags.boolean({char: 'f', description: 'reinstall even when the same content is installed'}),
    prefix: Flags.boolean({description: 'install skills whose names are taken as <plugin>-<name>'}),
    skill: Flags.string({description: 'install only these skills of the plugin', multiple: true}),
    frozen: Flags.boolean({description: 'with no argument: fail if loadout.lock would change'}),
    offline: offlineFlag,
    'allow-hidden-text': allowHiddenTextFlag,
  }

  async run(): Promise<InstallResult | TreeInstallResult | DeclaredInstall | {results: TreeInstallResult[]}> {
    const {args, argv, flags} = await this.parse(Install)
    const specs = argv as string[]
    const env = this.environment()
    const context = resolveScope(args.plugin === undefined ? 'project' : flags.scope, env)
    const chooseTargets = () => targetsForWrite({agent: flags.agent, yes: flags.yes, env, section: 'skills'})
    // `loadout install` in a project writes each locked plugin to the agents its lock records, unless agents are named
    const fromLock = args.plugin === undefined && flags.agent === undefined
    const targets = fromLock ? [] : await chooseTargets()
    const interactive = env.interactive && !this.jsonEnabled()
    const options = {
      env,
      context,
      targets,
      dryRun: flags['dry-run'],
      force: flags.force,
      prefix: flags.prefix,
      offline: isOffline(flags.offline),
      yes: flags.yes,
      allowHiddenText: flags['allow-hidden-text'],
      ...(flags.skill ? {skills: flags.skill.flatMap((s) => splitList(s))} : {}),
      ...(interactive
        ? {
            askUserConfig: askUserConfig(env),
            confirm: async (summary: Parameters<typeof renderConsent>[0], id: string) => {
              process.stderr.write(`${renderConsent(summary, id)}\n`)
              return confirmOrFail(`Install ${id} and allow it to run these?`, {yes: false, interactive: true})
            },
          }
        : {}),
    }
    if (args.plugin === undefined) {
      // loadout.json's installs (marketplaces to register, MCP servers from a registry) load only here
      const {installDeclared} = await import('../core/install/declared.js')
      const result = await withProgress(!this.jsonEnabled(), (onProgress) => installDeclared({...options, frozen: flags.frozen, ...(fromLock ? {chooseTargets} : {}), onProgress}))
      for (const r of result.results) this.log(renderInstalled(r))
      if (result.results.length === 0) this.log('loadout.json declares no plugins')
      for (const m of result.registered) this.log(`registered marketplace ${m.name} (${m.source}) from loadout.json`)
      if (result.ignore.length > 0) this.log(`commit loadout.json and loadout.lock; add to .gitignore (machine-local copies):\n${result.ignore.map((l) => `  ${l}`).join('\n')}`)
      return result
    }
    const results = await withProgress(!this.jsonEnabled(), (onProgress) => installManyWithDependencies(specs, {...options, onProgress}))
    for (const result of results) {
      for (const dep of result.dependencies) this.log(`${renderInstalled(dep)} (dependency of ${dep.dependents.join(', ')})`)
      this.log(renderInstalled(result))
    }
    return results.length === 1 ? results[0]! : {results}
  }
}
