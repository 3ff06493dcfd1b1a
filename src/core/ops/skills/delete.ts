import {lstatSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, notFound, usageError} from '../../model/errors.js'
import {assertNoLinksBelow, resolvesInside, unsafePath} from '../../kernel/fs/contain.js'
import {entryExists} from '../../kernel/fs/exists.js'
import {explainWriteError, removeAside} from '../../kernel/fs/write.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import {checkSkillName} from '../../kernel/skills/name.js'

export interface SkillRemoval {
  agents: string[]
  path: string
  /** the folder that bounds the removal */
  root: string
}

export interface SkillDeletePlan {
  name: string
  scope: Scope
  removals: SkillRemoval[]
}

export interface DeletedSkill extends SkillDeletePlan {
  dryRun: boolean
}

export interface DeleteSkillInput {
  name: string
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  ownership: Ownership
}

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

const isDirectory = (path: string): boolean => {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Checks one skill folder is safe to remove; throws naming the problem when it is not. */
const checkRemovable = (removal: SkillRemoval, ownership: Ownership): void => {
  const folder = dirname(removal.path)
  if (isLink(removal.path)) {
    throw unsafePath(`refusing to delete ${removal.path}: it is a symbolic link, not a skill folder`, 'remove the link yourself if you meant to')
  }
  assertNoLinksBelow(removal.root, removal.path)
  if (!isDirectory(removal.path)) {
    throw unsafePath(`refusing to delete ${removal.path}: it is not a folder, so not a skill`, 'remove the file yourself if you meant to')
  }
  if (!resolvesInside(folder, removal.path)) {
    throw unsafePath(`refusing to delete ${removal.path}: it resolves outside the skills folder ${folder}`)
  }
  const owner = ownership.ownerOf(removal.path)
  if (owner) {
    throw conflict('skill-owned', `skill "${basename(removal.path)}" at ${removal.path} was installed by plugin ${owner}`, {
      suggestions: [`remove it with: loadout uninstall ${owner}`],
    })
  }
}

/** Finds every copy of the skill in the chosen agents' folders for the scope and checks each. */
export const planSkillDelete = (input: DeleteSkillInput): SkillDeletePlan => {
  const {name, context} = input
  const broken = checkSkillName(name)
  if (broken) throw usageError(broken.code, `invalid skill name: ${broken.message}`)
  const byPath = new Map<string, SkillRemoval>()
  for (const target of input.targets) {
    for (const location of sectionLocations(target, 'skills', input.env, context)) {
      if (target.skills?.format !== 'agent-skills') continue
      const path = join(location.absolute, name)
      if (!entryExists(path)) continue
      const known = byPath.get(path)
      if (known) known.agents.push(target.id)
      else byPath.set(path, {agents: [target.id], path, root: location.root})
    }
  }
  if (byPath.size === 0) {
    const other: Scope = context.scope === 'user' ? 'project' : 'user'
    throw notFound('skill-not-found', `no ${context.scope}-scope skill named "${name}" for ${input.targets.map((t) => t.id).join(', ')}`, {
      suggestions: [`look in the other scope: loadout skills delete ${name} --scope ${other}`, 'see what is there: loadout skills list'],
    })
  }
  const removals = [...byPath.values()]
  for (const removal of removals) checkRemovable(removal, input.ownership)
  return {name, scope: context.scope, removals}
}

/** Removes the planned folders, re-checking each just before it goes. */
export const applySkillDelete = (plan: SkillDeletePlan, ownership: Ownership): void => {
  for (const removal of plan.removals) {
    if (!entryExists(removal.path)) continue
    checkRemovable(removal, ownership)
    try {
      removeAside(removal.path)
    } catch (error) {
      throw explainWriteError(error)
    }
  }
}
