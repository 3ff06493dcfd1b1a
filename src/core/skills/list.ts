import {lstatSync, readdirSync, statSync, type Dirent} from 'node:fs'
import {join} from 'node:path'
import type {Environment} from '../environment.js'
import {safeRealpath} from '../fs/contain.js'
import {hasErrors, problem, type Problem} from '../problems.js'
import type {Scope, ScopeContext} from '../scope.js'
import type {Ownership} from '../state/records.js'
import {sectionLocations, type ResolvedLocation} from '../targets/resolve.js'
import type {AgentTarget, SkillDialect} from '../targets/types.js'
import {readSkillDir, type SkillOnDisk} from './read.js'

export interface SkillsFolder {
  agent: string
  scope: Scope
  path: string
  exists: boolean
  /** where the folder points, when it is a symbolic link */
  linkTarget?: string
  problems: Problem[]
}

export interface ListedSkill {
  agent: string
  name: string
  scope: Scope
  folder: string
  path: string
  description?: string
  status: 'active' | 'shadowed'
  /** the path of the skill that wins over this one */
  shadowedBy?: string
  valid: boolean
  problems: Problem[]
  /** "user" for a skill made by hand (or by `skills create`), else the plugin that installed it */
  owner: string
  linkTarget?: string
}

export interface SkillsInventory {
  folders: SkillsFolder[]
  skills: ListedSkill[]
  /** the parsed skill behind each listed path, for info */
  details: Map<string, SkillOnDisk>
}

interface FolderScan {
  exists: boolean
  linkTarget?: string
  problems: Problem[]
  skills: SkillOnDisk[]
}

const scanFolder = (path: string, dialect: SkillDialect): FolderScan => {
  const problems: Problem[] = []
  let linkTarget: string | undefined
  try {
    if (lstatSync(path).isSymbolicLink()) {
      linkTarget = safeRealpath(path) ?? 'a missing target'
      problems.push(problem('warning', 'skills-folder-link', `the skills folder is a symbolic link to ${linkTarget}; loadout reads it but will not write through it`, {file: path}))
    }
  } catch {
    return {exists: false, problems, skills: []}
  }
  let entries: Dirent[]
  try {
    entries = readdirSync(path, {withFileTypes: true})
  } catch (error) {
    problems.push(problem('error', 'skills-folder-unreadable', `cannot read the skills folder: ${(error as Error).message}`, {file: path}))
    return {exists: true, linkTarget, problems, skills: []}
  }
  const skills = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || (e.isSymbolicLink() && !isLinkToFile(join(path, e.name)))))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => readSkillDir(join(path, e.name), dialect))
  return {exists: true, linkTarget, problems, skills}
}

/** A symbolic link to a file in a skills folder is not a skill; a dangling one is listed as broken. */
const isLinkToFile = (path: string): boolean => {
  try {
    return !statSync(path).isDirectory()
  } catch {
    return false
  }
}

export interface InventoryInput {
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  scopes: readonly Scope[]
  ownership: Ownership
}

/**
 * Every skill each target would load, folder by folder in the target's own precedence, with the
 * losers of a name clash marked as shadowed. Shadowing is worked out over both scopes, then the
 * listing is cut to the scopes asked for.
 */
export const inventorySkills = ({targets, env, context, scopes, ownership}: InventoryInput): SkillsInventory => {
  const scans = new Map<string, FolderScan>()
  const folders: SkillsFolder[] = []
  const skills: ListedSkill[] = []
  const details = new Map<string, SkillOnDisk>()
  for (const target of targets) {
    if (!target.skills || target.skills.format !== 'agent-skills') continue
    const dialect = target.skills.dialect ?? 'spec'
    const winners = new Map<string, string>()
    const locations: ResolvedLocation[] = sectionLocations(target, 'skills', env, context, ['user', 'project'])
    const seen = new Set<string>()
    for (const location of locations) {
      if (seen.has(location.absolute)) continue
      seen.add(location.absolute)
      const key = `${dialect}:${location.absolute}`
      let scan = scans.get(key)
      if (!scan) {
        scan = scanFolder(location.absolute, dialect)
        scans.set(key, scan)
      }
      const wanted = scopes.includes(location.scope)
      if (wanted) {
        folders.push({agent: target.id, scope: location.scope, path: location.absolute, exists: scan.exists, ...(scan.linkTarget ? {linkTarget: scan.linkTarget} : {}), problems: scan.problems})
      }
      for (const skill of scan.skills) {
        const name = skill.dir.slice(location.absolute.length + 1)
        const winner = winners.get(name)
        if (!winner) winners.set(name, skill.dir)
        if (!wanted) continue
        details.set(skill.dir, skill)
        skills.push({
          agent: target.id,
          name,
          scope: location.scope,
          folder: location.absolute,
          path: skill.dir,
          ...(skill.description === undefined ? {} : {description: skill.description}),
          status: winner ? 'shadowed' : 'active',
          ...(winner ? {shadowedBy: winner} : {}),
          valid: !hasErrors(skill.problems),
          problems: skill.problems,
          owner: ownership.ownerOf(skill.dir) ?? 'user',
          ...(skill.linkTarget ? {linkTarget: skill.linkTarget} : {}),
        })
      }
    }
  }
  return {folders, skills, details}
}
