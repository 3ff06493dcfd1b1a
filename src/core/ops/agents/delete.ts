import {lstatSync, unlinkSync} from 'node:fs'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, notFound} from '../../model/errors.js'
import {assertNoLinksBelow, resolvesInside, unsafePath} from '../../kernel/fs/contain.js'
import {explainWriteError, removeAside} from '../../kernel/fs/write.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget, SubagentFormat} from '../../kernel/targets/types.js'
import {entryPath, layoutOf} from '../../kernel/subagents/layout.js'
import type {SkippedTarget} from './list.js'
import {assertSubagentName} from '../../kernel/subagents/name.js'

export interface SubagentRemoval {
  agents: string[]
  format: SubagentFormat
  /** the subagent's file, or its folder (deepagents) */
  path: string
  kind: 'file' | 'folder'
  /** the subagents folder it must stay inside */
  folder: string
  /** the folder that bounds the removal: nothing below it may be a link */
  root: string
}

export interface SubagentDeletePlan {
  name: string
  scope: Scope
  removals: SubagentRemoval[]
  skipped: SkippedTarget[]
}

export interface DeletedSubagent extends SubagentDeletePlan {
  dryRun: boolean
}

export interface DeleteSubagentInput {
  name: string
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  ownership: Ownership
}

const lstatOrUndefined = (path: string) => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** Checks one subagent is safe to remove; throws naming the problem when it is not. */
const checkRemovable = (removal: SubagentRemoval, ownership: Ownership): void => {
  const what = removal.kind === 'file' ? 'a subagent file' : 'a subagent folder'
  const stat = lstatOrUndefined(removal.path)
  if (stat?.isSymbolicLink()) {
    throw unsafePath(`refusing to delete ${removal.path}: it is a symbolic link, not ${what}`, 'remove the link yourself if you meant to')
  }
  assertNoLinksBelow(removal.root, removal.path)
  if (removal.kind === 'file' ? !stat?.isFile() : !stat?.isDirectory()) {
    throw unsafePath(
      `refusing to delete ${removal.path}: it is not ${removal.kind === 'file' ? 'a regular file' : 'a folder'}, so not ${what}`,
      'remove it yourself if you meant to',
    )
  }
  if (!resolvesInside(removal.folder, removal.path)) {
    throw unsafePath(`refusing to delete ${removal.path}: it resolves outside the subagents folder ${removal.folder}`)
  }
  const owner = ownership.ownerOf(removal.path)
  if (owner) {
    throw conflict('subagent-owned', `subagent at ${removal.path} was installed by plugin ${owner}`, {
      suggestions: [`remove it with: loadout uninstall ${owner}`],
    })
  }
}

/** Finds the subagent in each chosen agent's folders for the scope, and checks every copy. */
export const planSubagentDelete = (input: DeleteSubagentInput): SubagentDeletePlan => {
  const {name, context} = input
  assertSubagentName(name)
  const byPath = new Map<string, SubagentRemoval>()
  const skipped: SkippedTarget[] = []
  for (const target of input.targets) {
    const section = target.subagents
    const locations = section ? sectionLocations(target, 'subagents', input.env, context) : []
    if (!section || locations.length === 0) {
      skipped.push({agent: target.id, reason: `${target.name} has no ${context.scope}-scope subagents folder`})
      continue
    }
    const layout = layoutOf(section.format)
    for (const location of locations) {
      const path = entryPath(location.absolute, name, layout)
      if (!lstatOrUndefined(path)) continue
      const known = byPath.get(path)
      if (known) known.agents.push(target.id)
      else byPath.set(path, {agents: [target.id], format: section.format, path, kind: layout.kind, folder: location.absolute, root: location.root})
    }
  }
  if (byPath.size === 0) {
    const other: Scope = context.scope === 'user' ? 'project' : 'user'
    throw notFound('subagent-not-found', `no ${context.scope}-scope subagent named "${name}" for ${input.targets.map((t) => t.id).join(', ')}`, {
      suggestions: [`look in the other scope: loadout agents delete ${name} --scope ${other}`, 'see what is there: loadout agents list'],
    })
  }
  const removals = [...byPath.values()]
  for (const removal of removals) checkRemovable(removal, input.ownership)
  return {name, scope: context.scope, removals, skipped}
}

/** Removes the planned subagents, re-checking each just before it goes. */
export const applySubagentDelete = (plan: SubagentDeletePlan, ownership: Ownership): void => {
  for (const removal of plan.removals) {
    if (!lstatOrUndefined(removal.path)) continue
    checkRemovable(removal, ownership)
    try {
      if (removal.kind === 'folder') removeAside(removal.path)
      else unlinkSync(removal.path)
    } catch (error) {
      throw explainWriteError(error)
    }
  }
}
