import {statSync} from 'node:fs'
import {basename, extname, join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {cachedScan, openLoadFolder, placeByPrecedence} from '../../kernel/targets/inventory.js'
import {hasErrors, type Problem} from '../../model/problems.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget, SkillDialect} from '../../kernel/targets/types.js'
import {readSkillDir, type SkillOnDisk} from '../../kernel/skills/read.js'
import {isYamlName} from '../../kernel/skills/read.js'
import type {readYamlSkill} from '../../kernel/plugin/yaml-skill.js'

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

/** CHARACTOID keeps a skill as one YAML file: each `*.yaml` / `*.yml` is listed, its path standing for the folder. */
const scanYamlFolder = (path: string, readYaml: typeof readYamlSkill): FolderScan => {
  const {entries, ...folder} = openLoadFolder(path, 'skills', 'loadout reads it but will not write through it')
  const skills = entries
    .filter((e) => !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()) && isYamlName(e.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e): SkillOnDisk => {
      const file = join(path, e.name)
      const read = readYaml(file)
      return {
        dir: file,
        file,
        body: '',
        fallback: false,
        problems: read.problems,
        ...(read.name ? {name: read.name} : {}),
        ...(read.description ? {description: read.description} : {}),
      }
    })
  return {...folder, skills}
}

const scanFolder = (path: string, dialect: SkillDialect): FolderScan => {
  const {entries, ...folder} = openLoadFolder(path, 'skills', 'loadout reads it but will not write through it')
  const skills = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || (e.isSymbolicLink() && !isLinkToFile(join(path, e.name)))))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => readSkillDir(join(path, e.name), dialect, {link: e.isSymbolicLink()}))
  return {...folder, skills}
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
/** What `skills list` reports: the inventory, with the agents and scopes it covers. */
export interface SkillsListResult {
  agents: string[]
  scopes: Scope[]
  folders: SkillsFolder[]
  skills: ListedSkill[]
}

export const inventorySkills = async ({targets, env, context, scopes, ownership}: InventoryInput): Promise<SkillsInventory> => {
  // the YAML parser only for agents whose skills are YAML files
  const readYaml = targets.some((t) => t.skills?.format === 'characteroid-yaml') ? (await import('../../kernel/plugin/yaml-skill.js')).readYamlSkill : undefined
  const scans = new Map<string, FolderScan>()
  const folders: SkillsFolder[] = []
  const skills: ListedSkill[] = []
  const details = new Map<string, SkillOnDisk>()
  for (const target of targets) {
    if (!target.skills) continue
    const yaml = target.skills.format === 'characteroid-yaml'
    const dialect = target.skills.dialect ?? 'spec'
    const placement = placeByPrecedence({
      locations: sectionLocations(target, 'skills', env, context, ['user', 'project']),
      scopes,
      scan: (location) =>
        cachedScan(scans, `${yaml ? 'yaml' : dialect}:${location.absolute}`, () =>
          yaml ? scanYamlFolder(location.absolute, readYaml!) : scanFolder(location.absolute, dialect),
        ),
      itemsOf: (scan) => scan.skills,
      nameOf: (skill, location) => (yaml ? (skill.name ?? basename(skill.dir, extname(skill.dir))) : skill.dir.slice(location.absolute.length + 1)),
      pathOf: (skill) => skill.dir,
    })
    for (const {location, scan} of placement.folders) {
      folders.push({
        agent: target.id,
        scope: location.scope,
        path: location.absolute,
        exists: scan.exists,
        ...(scan.linkTarget ? {linkTarget: scan.linkTarget} : {}),
        problems: scan.problems,
      })
    }
    for (const {item: skill, name, location, shadowedBy} of placement.items) {
      details.set(skill.dir, skill)
      skills.push({
        agent: target.id,
        name,
        scope: location.scope,
        folder: location.absolute,
        path: skill.dir,
        ...(skill.description === undefined ? {} : {description: skill.description}),
        status: shadowedBy ? 'shadowed' : 'active',
        ...(shadowedBy ? {shadowedBy} : {}),
        valid: !hasErrors(skill.problems),
        problems: skill.problems,
        owner: ownership.ownerOf(skill.dir) ?? 'user',
        ...(skill.linkTarget ? {linkTarget: skill.linkTarget} : {}),
      })
    }
  }
  return {folders, skills, details}
}
