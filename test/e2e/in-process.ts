/**
 * Loadout's commands run inside the test process, against a sandbox: each does what the command's
 * body does (the shared body where there is one, else the core call the oclif command makes), so a
 * test that checks core behaviour many times pays no process start each time. Where the CLI itself
 * (exit statuses, stdout, signals, the fast path) is what is tested, spawn `bin/run.js` instead.
 * A failure throws the command's LoadoutError, as the command would exit with its status.
 */
import type {Sandbox} from '../support/cli.js'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import type {CommandIo} from '../../src/ui/command-io.js'
import {resolveScope} from '../../src/core/kernel/env/scope.js'
import {install as installCommand} from '../../src/ui/shared-commands/install.js'
import {verify as verifyCommand} from '../../src/ui/shared-commands/verify.js'
import {list as listCommand} from '../../src/ui/shared-commands/list.js'
import {search as searchCommand} from '../../src/ui/shared-commands/search.js'
import {settlePending} from '../../src/ui/settle.js'
import {removeInstalled} from '../../src/core/ops/install/remove.js'
import {enablePlugin} from '../../src/core/ops/install/enable.js'
import {updatePlugins} from '../../src/core/ops/update/update.js'
import {installServer} from '../../src/core/ops/mcp/install.js'
import {removeServer} from '../../src/core/ops/mcp/remove.js'
import {localServerSpec} from '../../src/core/kernel/mcp/spec.js'
import {installOptionsFor} from '../../src/ui/install-options.js'
import {targetsForWrite} from '../../src/ui/select-targets.js'
import {addMarketplace} from '../../src/core/ops/marketplace/add.js'
import {updateMarketplaces} from '../../src/core/ops/marketplace/update.js'
import {planMarketplaceRemoval, removeMarketplace} from '../../src/core/ops/marketplace/remove.js'
import {listMarketplaces} from '../../src/core/kernel/marketplace/browse.js'

/** The environment `loadout` would see run in the sandbox project with the sandbox's variables (plus `vars`), off a terminal. */
export const sandboxEnv = (sb: Sandbox, vars: NodeJS.ProcessEnv = {}): Environment => ({
  vars: {...sb.env, ...vars},
  home: sb.home,
  cwd: sb.project,
  platform: process.platform,
  interactive: false,
})

/** As under --json: nothing printed, the result returned. */
const quiet = (env: Environment): CommandIo => ({env, json: true, log: () => {}})

const user = (env: Environment) => resolveScope('user', env)

/** A run of the installed plugins' checks, as `loadout verify`: recovers a killed run first, and throws if anything is not whole. */
export const verify = (env: Environment) => verifyCommand.run({flags: {}, argv: []}, quiet(env))

/** `loadout install <sources> --agent <agents> --scope <scope> --yes` (user scope unless told; `--loose` when asked) */
export const install = (
  env: Environment,
  sources: string[],
  agents: string,
  options: 'user' | 'project' | {scope?: 'user' | 'project'; loose?: boolean} = {},
) => {
  const {scope = 'user', ...extra} = typeof options === 'string' ? {scope: options} : options
  return installCommand.run({flags: {agent: agents, scope, yes: true, ...extra}, argv: sources}, quiet(env))
}

/** `loadout uninstall <id> [--agent <agents>] --scope <scope> --yes` (a plugin without dependencies; user scope unless told) */
export const uninstall = (env: Environment, id: string, options: {agents?: string[]; scope?: 'user' | 'project'} = {}) =>
  removeInstalled(id, env, resolveScope(options.scope ?? 'user', env), {force: false, dryRun: false, ...(options.agents ? {agents: options.agents} : {})})

/** `loadout list --json` */
export const list = (env: Environment) => listCommand.run({flags: {}, argv: []}, quiet(env))

/** `loadout disable <id> --scope user` */
export const disable = (env: Environment, id: string) => removeInstalled(id, env, user(env), {force: false, dryRun: false, keepRecord: true})

/** `loadout enable <id> --scope user --yes` */
export const enable = (env: Environment, id: string) => enablePlugin(id, {env, context: user(env), yes: true, dryRun: false})

/** `loadout update --scope user --yes`; a plugin that failed to update throws, as the command exits non-zero. */
export const update = async (env: Environment) => {
  const result = await updatePlugins([], {env, context: user(env), dryRun: false, prefix: true, offline: false, yes: true, allowHiddenText: false})
  const failed = result.updates.filter((u) => u.status === 'failed')
  if (failed.length > 0) throw new Error(`update failed: ${JSON.stringify(failed)}`)
  return result
}

/** `loadout mcp add <name> --agent <agents> --scope user --yes [--env NAME...] -- <command...>` */
export const mcpAdd = async (env: Environment, name: string, agents: string, command: string[], vars: string[] = []) => {
  const targets = await targetsForWrite({agent: agents, yes: true, env, section: 'mcp'})
  const spec = localServerSpec({name, command, env: vars, headers: []})
  return installServer(spec, installOptionsFor({env, context: user(env), targets, yes: true, dryRun: false, json: true}))
}

/** `loadout mcp remove <name> --scope user --yes` */
export const mcpRemove = (env: Environment, name: string) => removeServer(name, env, user(env), {force: false, dryRun: false})

/** `loadout marketplace add <source> --scope user [--name <name>]` */
export const marketplaceAdd = (env: Environment, source: string, options: {name?: string} = {}) =>
  addMarketplace({input: source, env, context: user(env), offline: false, ...options})

/** `loadout marketplace update <name>`; a failure throws, as the command exits non-zero. */
export const marketplaceUpdate = async (env: Environment, name: string) => {
  const result = await updateMarketplaces([name], env, resolveScope(undefined, env), {offline: false})
  const failed = result.results.filter((r) => r.status === 'failed')
  if (failed.length > 0) throw new Error(`marketplace update failed: ${JSON.stringify(failed)}`)
  return result
}

/** `loadout marketplace remove <name> --yes` */
export const marketplaceRemove = (env: Environment, name: string) => {
  const context = resolveScope(undefined, env)
  return removeMarketplace(planMarketplaceRemoval(name, env, context, false), env, context)
}

/** `loadout marketplace list --json`: settles what a killed run left, then the rows. */
export const marketplaceList = async (env: Environment) => {
  await settlePending(quiet(env))
  return {marketplaces: listMarketplaces(env, resolveScope(undefined, env))}
}

/** `loadout search <words> --json` */
export const search = (env: Environment, words: string[]) => searchCommand.run({flags: {}, argv: words}, quiet(env))
