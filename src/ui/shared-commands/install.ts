import type {TreeInstallResult} from '../../core/ops/install/tree.js'
import type {DeclaredInstall} from '../../core/ops/project/declared.js'
import type {InstallResult} from '../../core/ops/install/install.js'
import {resolveScope, type ScopeContext} from '../../core/kernel/env/scope.js'
import {environmentWith, type Environment} from '../../core/kernel/env/environment.js'
import {note, type CommandIo} from '../command-io.js'
import {usageError} from '../../core/model/errors.js'
import {splitList} from '../../core/kernel/targets/registry.js'
import {ALLOW_HIDDEN_TEXT_FLAG, isOffline, OFFLINE_FLAG, WRITER_FLAGS} from '../command-spec.js'
import {withProgress} from '../progress.js'
import {renderInstalled} from '../render/install.js'
import {targetsForWrite} from '../select-targets.js'
import {sharedCommand} from './types.js'

const spec = {
  flags: {
    ...WRITER_FLAGS,
    force: {type: 'boolean', char: 'f', description: 'reinstall even when the same content is installed'},
    prefix: {
      type: 'boolean',
      description: 'install a skill, subagent or command whose name is your own file as <plugin>-<name> (one another plugin holds is renamed so anyway)',
    },
    loose: {
      type: 'boolean',
      description: "write the plugin's parts as loose files even where the agent takes it as its own plugin (Claude Code); kept for update and teammates",
    },
    native: {
      type: 'boolean',
      description:
        "install as the agent's own plugin where loadout can (Claude Code by default; Copilot CLI only with it; switches a plugin installed with --loose back)",
    },
    skill: {type: 'string', description: 'install only these skills of the plugin', multiple: true},
    frozen: {type: 'boolean', description: 'with no argument: fail if loadout.lock would change'},
    offline: OFFLINE_FLAG,
    'allow-hidden-text': ALLOW_HIDDEN_TEXT_FLAG,
    'allow-downgrade': {
      type: 'boolean',
      description: 'install an older version, or a commit that does not descend from the installed one, despite policy noDowngrade',
    },
  },
  args: {
    name: 'plugin',
    description: 'plugin[@marketplace][@version or semver range], or a source: owner/repo, git URL, folder, archive URL; several install together, all or none',
    variadic: true,
  },
} as const

export type InstallOutput = (InstallResult | TreeInstallResult | DeclaredInstall | {results: TreeInstallResult[]}) & OverBudget

interface OverBudget {
  /** the agents this install left over their start-up description budget (`loadout budget`) */
  overBudget?: Array<{agent: string; scope: string; tokens: number; budget: number; dropped: string[]}>
}

/** After writing: each agent written to whose start-up descriptions are now over its budget is named, on stderr and in --json. */
const warnOverBudget = async (
  results: readonly InstallResult[],
  options: {env: Environment; context: ScopeContext; dryRun: boolean},
  io: CommandIo,
): Promise<OverBudget> => {
  const written = [
    ...new Set(results.filter((r) => r.status === 'installed').flatMap((r) => r.plans.filter((p) => p.operations.length > 0).map((p) => p.target))),
  ]
  if (written.length === 0 || options.dryRun) return {}
  const [{budgetReport, hasBudget}, {loadTargets, pickTargets}, {loadOwnership}, {renderOverBudget}] = await Promise.all([
    import('../../core/ops/budget/budget.js'),
    import('../../core/kernel/targets/registry.js'),
    import('../../core/kernel/state/records.js'),
    import('../render/budget.js'),
  ])
  const {env, context} = options
  // an agent that documents no budget is never over it: its folders are not read
  const targets = pickTargets(written, await loadTargets()).filter((t) => hasBudget(t, env))
  if (targets.length === 0) return {}
  const report = await budgetReport({
    targets,
    env,
    context,
    scopes: [context.scope],
    ownership: loadOwnership(env, context.projectRoot),
  })
  const over = report.agents.filter((a) => a.over)
  for (const line of renderOverBudget(over)) note(io, line)
  if (over.length === 0) return {}
  return {
    overBudget: over.map((a) => ({
      agent: a.agent,
      scope: a.scope,
      tokens: a.budgetedTokens,
      budget: a.budget!,
      dropped: a.items.filter((i) => i.dropped).map((i) => i.name),
    })),
  }
}

/** `loadout install`: one plugin, several (one transaction), or with none what loadout.json declares. */
export const install = sharedCommand(
  spec,
  async ({flags, argv}, io): Promise<InstallOutput> => {
    // a few records among many are read whole: the others are held as their lines
    const env = environmentWith(io.env, {holdRecordLines: true})
    if (flags.loose && flags.native) throw usageError('flags-exclusive', '--loose and --native ask for two different forms: pass one of them')
    const first = argv[0]
    const context = resolveScope(first === undefined ? 'project' : flags.scope, env)
    const chooseTargets = () => targetsForWrite({agent: flags.agent, yes: flags.yes ?? false, env, section: 'skills'})
    // `loadout install` in a project writes each locked plugin to the agents its lock records, unless agents are named
    const fromLock = first === undefined && flags.agent === undefined
    const targets = fromLock ? [] : await chooseTargets()
    const interactive = env.interactive && !io.json
    const options = {
      env,
      context,
      targets,
      dryRun: flags['dry-run'] ?? false,
      force: flags.force ?? false,
      prefix: flags.prefix ?? false,
      ...(flags.loose ? {form: 'loose' as const} : flags.native ? {form: 'native' as const} : {}),
      offline: isOffline(flags.offline),
      yes: flags.yes ?? false,
      allowHiddenText: flags['allow-hidden-text'] ?? false,
      allowDowngrade: flags['allow-downgrade'] ?? false,
      ...(flags.skill ? {skills: flags.skill.flatMap((s) => splitList(s))} : {}),
      ...(interactive
        ? {
            askUserConfig: (await import('../prompt-user-config.js')).askUserConfig(env),
            confirm: (await import('../install-options.js')).askConsent((id) => `Install ${id} and allow it to run these?`),
          }
        : {}),
    }
    if (first === undefined) {
      // loadout.json's installs (marketplaces to register, MCP servers from a registry) load only here
      const {installDeclared} = await import('../../core/ops/project/declared.js')
      const result = await withProgress(!io.json, (onProgress) =>
        installDeclared({...options, frozen: flags.frozen ?? false, ...(fromLock ? {chooseTargets} : {}), onProgress}),
      )
      for (const r of result.results) io.log(renderInstalled(r))
      const overBudget = await warnOverBudget(result.results, options, io)
      if (result.results.length === 0) io.log('loadout.json declares no plugins')
      for (const m of result.registered) io.log(`registered marketplace ${m.name} (${m.source}) from loadout.json`)
      if (result.ignore.length > 0)
        io.log(`commit loadout.json and loadout.lock; add to .gitignore (machine-local copies):\n${result.ignore.map((l) => `  ${l}`).join('\n')}`)
      return {...result, ...overBudget}
    }
    const {installManyWithDependencies} = await import('../../core/ops/install/tree.js')
    const results = await withProgress(!io.json, (onProgress) => installManyWithDependencies(argv, {...options, onProgress}))
    for (const result of results) {
      for (const dep of result.dependencies) io.log(`${renderInstalled(dep)} (dependency of ${dep.dependents.join(', ')})`)
      io.log(renderInstalled(result))
    }
    const overBudget = await warnOverBudget(
      results.flatMap((r) => [r, ...r.dependencies]),
      options,
      io,
    )
    return results.length === 1 ? {...results[0]!, ...overBudget} : {results, ...overBudget}
  },
  // on a terminal install may ask (agents, consent, userConfig values): that stays with oclif
  {requests: true, fastWhen: (io) => !io.env.interactive},
)
