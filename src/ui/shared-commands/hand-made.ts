/**
 * What `skills create|delete` and `agents create|delete` share: files made by hand (not by an
 * install) written or deleted in the chosen agents, under the state lock, judged on the records as
 * they are then.
 */
import {EXIT, LoadoutError} from '../../core/model/errors.js'
import type {Environment} from '../../core/kernel/env/environment.js'
import {resolveScope, type ScopeContext} from '../../core/kernel/env/scope.js'
import {loadOwnership, type Ownership} from '../../core/kernel/state/records.js'
import {withStateLock} from '../../core/kernel/state/transaction.js'
import type {AgentTarget, SectionName} from '../../core/kernel/targets/types.js'
import type {CommandIo} from '../command-io.js'
import {WRITER_FLAGS} from '../command-spec.js'
import {askText, confirmOrFail} from '../prompt.js'
import {targetsForWrite} from '../select-targets.js'
import type {FlagValues} from './types.js'

type WriterFlags = FlagValues<typeof WRITER_FLAGS>

interface Chosen {
  env: Environment
  context: ScopeContext
  targets: AgentTarget[]
}

/** The scope and the agents a writer works on (asked on a terminal without --agent or --yes). */
export const chooseWhere = async (flags: WriterFlags, env: Environment, section: SectionName): Promise<Chosen> => ({
  env,
  context: resolveScope(flags.scope, env),
  targets: await targetsForWrite({agent: flags.agent, yes: flags.yes, env, section}),
})

/** The description given, or on a terminal (without --yes or --json) the one typed in answer to `question`. */
export const descriptionOf = async (
  given: string | undefined,
  flags: WriterFlags,
  io: CommandIo,
  question: string,
  fallback: string,
): Promise<string | undefined> => {
  if (given !== undefined || !io.env.interactive || flags.yes || io.json) return given
  return askText(question, fallback)
}

/** Makes what `create` makes: under the state lock, on the records as they are then (a dry run takes no lock). */
export const createUnderLock = async <T>(where: Chosen, dryRun: boolean, create: (ownership: Ownership) => T): Promise<T> => {
  const made = () => create(loadOwnership(where.env, where.context.projectRoot))
  return dryRun ? made() : withStateLock(where.env, made, {optional: true})
}

interface DeletePlan {
  name: string
  removals: ReadonlyArray<{path: string}>
}

interface HandMadeDelete<P extends DeletePlan> {
  /** `skill`, `subagent`: as the question names it */
  noun: string
  section: SectionName
  plan(input: Chosen & {name: string; ownership: Ownership}): P
  apply(plan: P, ownership: Ownership): void
  render(deleted: P & {dryRun: boolean}): string
}

/** Deletes one hand-made thing from the chosen agents, asking first (--yes answers). */
export const deleteHandMade = async <P extends DeletePlan>(
  what: HandMadeDelete<P>,
  name: string,
  flags: WriterFlags,
  io: CommandIo,
): Promise<P & {dryRun: boolean}> => {
  const where = await chooseWhere(flags, io.env, what.section)
  const {env, context} = where
  const plan = what.plan({...where, name, ownership: loadOwnership(env, context.projectRoot)})
  if (flags['dry-run']) {
    const result = {...plan, dryRun: true}
    io.log(what.render(result))
    return result
  }
  const paths = plan.removals.map((r) => r.path).join(', ')
  const yes = await confirmOrFail(`Delete ${what.noun} "${plan.name}" (${paths})?`, {yes: flags.yes === true, interactive: env.interactive})
  if (!yes) throw new LoadoutError('cancelled', EXIT.needsConsent, 'cancelled: nothing was deleted')
  await withStateLock(env, () => what.apply(plan, loadOwnership(env, context.projectRoot)), {optional: true})
  const result = {...plan, dryRun: false}
  io.log(what.render(result))
  return result
}

/** The flags and the one argument of `skills delete` and `agents delete`. */
export const deleteSpec = <D extends string>(description: D) => ({flags: WRITER_FLAGS, args: {name: 'name', description, required: true}}) as const
