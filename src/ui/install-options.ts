import type {Environment} from '../core/kernel/env/environment.js'
import type {ConsentSummary} from '../core/ops/install/consent.js'
import type {InstallOptions} from '../core/ops/install/install.js'
import type {ScopeContext} from '../core/kernel/env/scope.js'
import type {AgentTarget} from '../core/kernel/targets/types.js'
import {whilePrompting} from './progress.js'
import {confirmOrFail} from './prompt.js'
import {renderConsent} from './render/install.js'
import {writeStderr} from './safe-text.js'

/** Shows what a plugin may run (on stderr) and asks `question` on the terminal. */
export const askConsent =
  (question: (id: string) => string) =>
  async (summary: ConsentSummary, id: string): Promise<boolean> =>
    whilePrompting(async () => {
      writeStderr(renderConsent(summary, id))
      return confirmOrFail(question(id), {yes: false, interactive: true})
    })

/** Install options for a command that writes one thing, asking for consent on a terminal. */
export const installOptionsFor = (input: {
  env: Environment
  context: ScopeContext
  targets: readonly AgentTarget[]
  yes?: boolean
  dryRun?: boolean
  force?: boolean
  json: boolean
}): InstallOptions => ({
  env: input.env,
  context: input.context,
  targets: input.targets,
  // an absent --dry-run stays absent: the --json result has no `dryRun` then, as it always had
  dryRun: input.dryRun as boolean,
  force: input.force ?? false,
  prefix: false,
  offline: false,
  yes: input.yes === true,
  ...(input.env.interactive && !input.json ? {confirm: askConsent((id) => `Install ${id} and allow it to run this?`)} : {}),
})
