/**
 * The fast path (bin/run.js): the hot read-only commands answered without loading oclif, by the
 * same code the oclif commands call (src/ui/shared-commands), with argv read by parseArgs from the same flag
 * specs. Anything it is not sure of goes to oclif: `runFast` then returns false having printed
 * nothing. LOADOUT_NO_FAST=1 always takes the oclif path.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {format} from 'node:util'
import {environmentFromProcess} from '../../core/kernel/env/environment.js'
import type {CommandIo} from '../command-io.js'
import type {CommandSpec} from '../command-spec.js'
import type {SharedCommand, SharedInput} from '../shared-commands/types.js'
import {asLoadoutError, reportCommandFailure, writeJson} from '../report.js'
import {fastParse} from './parse.js'
import {terminalText} from '../safe-text.js'
import {writeOut, writeStraight} from '../output.js'

type Loader = () => Promise<SharedCommand<CommandSpec, unknown>>

/** Command words → the shared command. */
export const FAST_COMMANDS: Readonly<Record<string, Loader>> = {
  list: async () => (await import('../shared-commands/list.js')).list as SharedCommand<CommandSpec, unknown>,
  verify: async () => (await import('../shared-commands/verify.js')).verify as SharedCommand<CommandSpec, unknown>,
  search: async () => (await import('../shared-commands/search.js')).search as SharedCommand<CommandSpec, unknown>,
  targets: async () => (await import('../shared-commands/targets.js')).targets as SharedCommand<CommandSpec, unknown>,
  'skills list': async () => (await import('../shared-commands/skills-list.js')).skillsList as SharedCommand<CommandSpec, unknown>,
  'agents list': async () => (await import('../shared-commands/agents-list.js')).agentsList as SharedCommand<CommandSpec, unknown>,
  install: async () => (await import('../shared-commands/install.js')).install as SharedCommand<CommandSpec, unknown>,
  'marketplace add': async () => (await import('../shared-commands/marketplace-add.js')).marketplaceAdd as SharedCommand<CommandSpec, unknown>,
  uninstall: async () => (await import('../shared-commands/uninstall.js')).uninstall as SharedCommand<CommandSpec, unknown>,
  // mcp, skills and agents parts
  'mcp add': async () => (await import('../shared-commands/mcp-add.js')).mcpAdd as SharedCommand<CommandSpec, unknown>,
  'mcp install': async () => (await import('../shared-commands/mcp-install.js')).mcpInstall as SharedCommand<CommandSpec, unknown>,
  'mcp list': async () => (await import('../shared-commands/mcp-list.js')).mcpList as SharedCommand<CommandSpec, unknown>,
  'mcp remove': async () => (await import('../shared-commands/mcp-remove.js')).mcpRemove as SharedCommand<CommandSpec, unknown>,
  'mcp search': async () => (await import('../shared-commands/mcp-search.js')).mcpSearch as SharedCommand<CommandSpec, unknown>,
  'skills info': async () => (await import('../shared-commands/skills-info.js')).skillsInfo as SharedCommand<CommandSpec, unknown>,
  'skills validate': async () => (await import('../shared-commands/skills-validate.js')).skillsValidate as SharedCommand<CommandSpec, unknown>,
  'skills delete': async () => (await import('../shared-commands/skills-delete.js')).skillsDelete as SharedCommand<CommandSpec, unknown>,
  'skills create': async () => (await import('../shared-commands/skills-create.js')).skillsCreate as SharedCommand<CommandSpec, unknown>,
  'agents info': async () => (await import('../shared-commands/agents-info.js')).agentsInfo as SharedCommand<CommandSpec, unknown>,
  'agents delete': async () => (await import('../shared-commands/agents-delete.js')).agentsDelete as SharedCommand<CommandSpec, unknown>,
  'agents create': async () => (await import('../shared-commands/agents-create.js')).agentsCreate as SharedCommand<CommandSpec, unknown>,
  // the lifecycle of what is installed: update, enable, disable, outdated, prune, and its maintenance
  update: async () => (await import('../shared-commands/update.js')).update as SharedCommand<CommandSpec, unknown>,
  enable: async () => (await import('../shared-commands/enable.js')).enable as SharedCommand<CommandSpec, unknown>,
  disable: async () => (await import('../shared-commands/disable.js')).disable as SharedCommand<CommandSpec, unknown>,
  outdated: async () => (await import('../shared-commands/outdated.js')).outdated as SharedCommand<CommandSpec, unknown>,
  prune: async () => (await import('../shared-commands/prune.js')).prune as SharedCommand<CommandSpec, unknown>,
  doctor: async () => (await import('../shared-commands/doctor.js')).doctor as SharedCommand<CommandSpec, unknown>,
  diff: async () => (await import('../shared-commands/diff.js')).diff as SharedCommand<CommandSpec, unknown>,
  audit: async () => (await import('../shared-commands/audit.js')).audit as SharedCommand<CommandSpec, unknown>,
  sbom: async () => (await import('../shared-commands/sbom.js')).sbom as SharedCommand<CommandSpec, unknown>,
  budget: async () => (await import('../shared-commands/budget.js')).budget as SharedCommand<CommandSpec, unknown>,
  configure: async () => (await import('../shared-commands/configure.js')).configure as SharedCommand<CommandSpec, unknown>,
  'cache list': async () => (await import('../shared-commands/cache.js')).cacheList as SharedCommand<CommandSpec, unknown>,
  'cache clean': async () => (await import('../shared-commands/cache.js')).cacheClean as SharedCommand<CommandSpec, unknown>,
  'policy show': async () => (await import('../shared-commands/policy-show.js')).policyShow as SharedCommand<CommandSpec, unknown>,
  // marketplaces and authoring
  'marketplace update': async () => (await import('../shared-commands/marketplace-update.js')).marketplaceUpdate as SharedCommand<CommandSpec, unknown>,
  'marketplace remove': async () => (await import('../shared-commands/marketplace-remove.js')).marketplaceRemove as SharedCommand<CommandSpec, unknown>,
  'marketplace list': async () => (await import('../shared-commands/marketplace-list.js')).marketplaceList as SharedCommand<CommandSpec, unknown>,
  'marketplace info': async () => (await import('../shared-commands/marketplace-info.js')).marketplaceInfo as SharedCommand<CommandSpec, unknown>,
  'marketplace create': async () => (await import('../shared-commands/marketplace-create.js')).marketplaceCreate as SharedCommand<CommandSpec, unknown>,
  'marketplace validate': async () => (await import('../shared-commands/marketplace-validate.js')).marketplaceValidate as SharedCommand<CommandSpec, unknown>,
  'marketplace add-plugin': async () =>
    (await import('../shared-commands/marketplace-add-plugin.js')).marketplaceAddPlugin as SharedCommand<CommandSpec, unknown>,
  'plugin create': async () => (await import('../shared-commands/plugin-create.js')).pluginCreate as SharedCommand<CommandSpec, unknown>,
  'plugin validate': async () => (await import('../shared-commands/plugin-validate.js')).pluginValidate as SharedCommand<CommandSpec, unknown>,
  'plugin convert': async () => (await import('../shared-commands/plugin-convert.js')).pluginConvert as SharedCommand<CommandSpec, unknown>,
  'plugin tag': async () => (await import('../shared-commands/plugin-tag.js')).pluginTag as SharedCommand<CommandSpec, unknown>,
  'plugin pack': async () => (await import('../shared-commands/plugin-pack.js')).pluginPack as SharedCommand<CommandSpec, unknown>,
  'marketplace push': async () => (await import('../shared-commands/marketplace-push.js')).marketplacePush as SharedCommand<CommandSpec, unknown>,
  'plugin push': async () => (await import('../shared-commands/plugin-push.js')).pluginPush as SharedCommand<CommandSpec, unknown>,
  'plugin attach': async () => (await import('../shared-commands/plugin-attach.js')).pluginAttach as SharedCommand<CommandSpec, unknown>,
}

/** What would make oclif behave otherwise than the fast path: its debug output, a JSON theme, JSON by variable. */
const oclifWouldDiffer = (env: NodeJS.ProcessEnv): boolean => {
  if (process.platform === 'win32' || env.LOADOUT_NO_FAST || env.DEBUG || env.LOADOUT_DEBUG || env.LOADOUT_CONTENT_TYPE || env.LOADOUT_CONFIG_DIR) return true
  const home = env.HOME
  const xdg = env.XDG_CONFIG_HOME
  const configDir = xdg ? join(xdg, 'loadout') : home ? join(home, '.config', 'loadout') : undefined
  return configDir === undefined || existsSync(join(configDir, 'theme.json'))
}

const matchCommand = (argv: readonly string[]): {loader: Loader; rest: string[]} | undefined => {
  const two = FAST_COMMANDS[`${argv[0]} ${argv[1]}`]
  if (two) return {loader: two, rest: argv.slice(2)}
  const one = FAST_COMMANDS[argv[0] ?? '']
  return one ? {loader: one, rest: argv.slice(1)} : undefined
}

/** Runs argv on the fast path when it can; false (nothing printed) means: run it through oclif. */
export const runFast = async (argv: readonly string[]): Promise<boolean> => {
  if (oclifWouldDiffer(process.env)) return false
  const match = matchCommand(argv)
  if (!match) return false
  const command = await match.loader()
  const parsed = fastParse(command.spec, match.rest)
  if (!parsed) return false
  const env = environmentFromProcess()
  const io: CommandIo = {
    env: command.requests ? (await import('../../core/kernel/policy/requests.js')).withRequestPolicy(env) : env,
    json: parsed.json,
    log: (text) => {
      if (!parsed.json) writeOut(`${terminalText(format(text))}\n`)
    },
  }
  if (command.fastWhen && !command.fastWhen(io)) return false
  // as oclif does, a closed stdout (`| head`) is not a failure (src/ui/output.ts)
  writeStraight()
  try {
    const input = {
      flags: parsed.flags as SharedInput<CommandSpec>['flags'],
      argv: parsed.argv,
      ...(parsed.passthrough ? {passthrough: parsed.passthrough} : {}),
    }
    const result = await command.run(input, io)
    if (result && parsed.json) writeJson(result)
  } catch (error) {
    reportCommandFailure(error, asLoadoutError(error), parsed.json ? writeJson : undefined)
  }
  return true
}
