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
      if (!parsed.json) console.log(terminalText(format(text)))
    },
  }
  if (command.fastWhen && !command.fastWhen(io)) return false
  // as oclif does: a closed stdout (`| head`) is not a failure
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error?.code !== 'EPIPE') throw error
  })
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
