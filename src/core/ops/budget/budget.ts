import type {Environment} from '../../kernel/env/environment.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import type {AgentTarget, StartupBudget} from '../../kernel/targets/types.js'
import {estimateTokens} from '../skills/info.js'
import {listSkills} from '../skills/list.js'
import {inventorySubagents} from '../agents/list.js'
import {scanCommands} from './commands.js'
import {nativeParts} from './native.js'
import {readInstallRecords} from '../../kernel/state/records.js'

/** One description an agent loads at start-up. */
export interface BudgetItem {
  kind: 'skill' | 'subagent' | 'command'
  name: string
  scope: Scope
  path: string
  /** "user" for a hand-made one, else the plugin that installed it */
  owner: string
  /** characters of name and description */
  chars: number
  /** the estimate: chars / 4, rounded up */
  tokens: number
  /** counted against the agent's budget (its kind is one the budget covers) */
  counted: boolean
  /** past the budget, in the order the agent reads its folders: the agent would drop its description */
  dropped: boolean
}

/** One agent as it starts in one scope: outside a project (user), or in this project (user and project parts). */
export interface AgentBudget {
  agent: string
  scope: Scope
  /** every description listed, estimated */
  tokens: number
  /** the budget in tokens (its characters / 4); null when the agent documents none */
  budget: number | null
  /** the tokens of the items the budget counts */
  budgetedTokens: number
  budgetChars: number | null
  /** the environment variable that set the budget, when it did */
  budgetFrom?: string
  budgetSource: string | null
  budgetNote: string
  over: boolean
  items: BudgetItem[]
}

export interface BudgetReport {
  agents: AgentBudget[]
}

const KIND_SECTION = {skill: 'skills', subagent: 'subagents', command: 'commands'} as const

/** The budget in characters, from the agent's variable when it is set to a whole number, else its documented one. */
const budgetChars = (budget: StartupBudget, env: Environment): {chars: number | null; from?: string} => {
  const value = budget.env ? env.vars[budget.env] : undefined
  if (budget.env && value !== undefined && /^\d{1,9}$/.test(value.trim())) return {chars: Number(value.trim()), from: budget.env}
  return {chars: budget.chars}
}

/** Whether the agent, in this environment, has a budget its start-up descriptions can go over. */
export const hasBudget = (target: AgentTarget, env: Environment): boolean => budgetChars(target.startupBudget, env).chars !== null

type Found = Omit<BudgetItem, 'chars' | 'tokens' | 'counted' | 'dropped'> & {description?: string}

const measured = (found: Found, budget: StartupBudget): BudgetItem => {
  const {description, ...item} = found
  const text = `${found.name}${description ?? ''}`
  return {...item, chars: text.length, tokens: estimateTokens(text), counted: budget.covers.includes(KIND_SECTION[found.kind]), dropped: false}
}

/** Marks the counted items past the budget as dropped, in order: the first that does not fit and every one after it. */
const markDropped = (items: BudgetItem[], chars: number | null): void => {
  if (chars === null) return
  let used = 0
  let full = false
  for (const item of items) {
    if (!item.counted) continue
    used += item.chars
    if (used > chars) full = true
    item.dropped = full
  }
}

interface Listed {
  agent: string
  name: string
  scope: Scope
  path: string
  owner: string
  status: 'active' | 'shadowed'
  description?: string
}

/** The copies an agent loads (a shadowed one is not listed), from `skills list`'s or `agents list`'s inventory. */
const activeOf = (listed: readonly Listed[], target: AgentTarget, kind: Found['kind']): Found[] =>
  listed
    .filter((s) => s.agent === target.id && s.status === 'active')
    .map((s) => ({kind, name: s.name, scope: s.scope, path: s.path, owner: s.owner, ...(s.description ? {description: s.description} : {})}))

export interface BudgetInput {
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  /** the starts to report: `user` (outside a project), `project` (in this project: user and project parts) */
  scopes: readonly Scope[]
  ownership: Ownership
}

/**
 * Per agent and scope, every skill, subagent and command description the agent lists at start-up
 * (installed or hand-made, shadowed copies left out, in the order the agent reads its folders), its
 * estimate, and the total against the agent's documented budget (registry/agents: `startupBudget`).
 */
export const budgetReport = async ({targets, env, context, scopes, ownership}: BudgetInput): Promise<BudgetReport> => {
  const both: Scope[] = ['user', 'project']
  const skills = (await listSkills({targets, env, context, scopes: both, ownership})).skills
  const subagents = inventorySubagents({targets, env, context, scopes: both, ownership}).subagents
  const records = readInstallRecords(env, context.projectRoot)
  const agents: AgentBudget[] = []
  for (const target of targets) {
    const found: Found[] = [
      ...activeOf(skills, target, 'skill'),
      ...scanCommands(target, env, context, both).map((c): Found => ({...c, kind: 'command', owner: ownership.ownerOf(c.path) ?? 'user'})),
      ...activeOf(subagents, target, 'subagent'),
      ...nativeParts(records, target, env),
    ]
    const {chars, from} = budgetChars(target.startupBudget, env)
    for (const scope of scopes) {
      // outside a project an agent loads its user parts only; in a project, both
      const items = found.filter((f) => scope === 'project' || f.scope === 'user').map((f) => measured(f, target.startupBudget))
      markDropped(items, chars)
      const budgeted = items.filter((i) => i.counted)
      agents.push({
        agent: target.id,
        scope,
        tokens: items.reduce((n, i) => n + i.tokens, 0),
        budget: chars === null ? null : Math.ceil(chars / 4),
        budgetedTokens: budgeted.reduce((n, i) => n + i.tokens, 0),
        budgetChars: chars,
        ...(from ? {budgetFrom: from} : {}),
        budgetSource: target.startupBudget.source,
        budgetNote: target.startupBudget.note,
        over: chars !== null && budgeted.reduce((n, i) => n + i.chars, 0) > chars,
        items,
      })
    }
  }
  return {agents}
}

/** One skill's part of each agent's start-up descriptions (`skills info`). */
export interface SkillShare {
  agent: string
  scope: Scope
  tokens: number
  /** the agent's budget in tokens, null when it documents none */
  budget: number | null
  /** tokens / budget, in percent to one decimal; null without a budget */
  percent: number | null
  dropped: boolean
}

export const skillShares = (report: BudgetReport, name: string): SkillShare[] =>
  report.agents.flatMap((a) =>
    a.items
      .filter((i) => i.kind === 'skill' && i.name === name)
      .map((i) => ({
        agent: a.agent,
        scope: a.scope,
        tokens: i.tokens,
        budget: a.budget,
        percent: a.budget === null ? null : Math.round((i.tokens / a.budget) * 1000) / 10,
        dropped: i.dropped,
      })),
  )
