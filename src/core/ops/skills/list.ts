import {statSync} from 'node:fs'
import {basename, extname, join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {cachedScan, openLoadFolder, placeByPrecedence} from '../../kernel/targets/inventory.js'
import {hasErrors, type Problem} from '../../model/problems.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget, SkillDialect} from '../../kernel/targets/types.js'
import {openSkillMemo, readSkillDir, readSkillSummary, type SkillOnDisk, type SkillSummary} from '../../kernel/skills/read.js'
import {isYamlName} from '../../kernel/skills/read.js'
import {MEMO_MIN_FILES} from '../../kernel/fs/stat-memo.js'
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

export interface SkillsInventory<S extends SkillSummary = SkillOnDisk> {
  folders: SkillsFolder[]
  skills: ListedSkill[]
  /** the skill read behind each listed path, for info */
  details: Map<string, S>
}

interface FolderScan<S extends SkillSummary> {
  exists: boolean
  linkTarget?: string
  problems: Problem[]
  skills: S[]
}

/**
 * How an inventory reads: `folder` one skill folder of a folder of `count` entries (`link` when readdir
 * saw a symbolic link); `whole`, a skill read whole (a YAML skill) as what the inventory holds.
 */
interface ReadSkill<S extends SkillSummary> {
  folder: (dir: string, dialect: SkillDialect, link: boolean, count: number) => S
  whole: (skill: SkillOnDisk) => S
}

/** CHARACTOID keeps a skill as one YAML file: each `*.yaml` / `*.yml` is listed, its path standing for the folder. */
const scanYamlFolder = <S extends SkillSummary>(path: string, readYaml: typeof readYamlSkill, whole: (skill: SkillOnDisk) => S): FolderScan<S> => {
  const {entries, ...folder} = openLoadFolder(path, 'skills', 'loadout reads it but will not write through it')
  const skills = entries
    .filter((e) => !e.name.startsWith('.') && (e.isFile() || e.isSymbolicLink()) && isYamlName(e.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => {
      const file = join(path, e.name)
      const read = readYaml(file)
      return whole({
        dir: file,
        file,
        body: '',
        fallback: false,
        problems: read.problems,
        ...(read.name ? {name: read.name} : {}),
        ...(read.description ? {description: read.description} : {}),
      })
    })
  return {...folder, skills}
}

const scanFolder = <S extends SkillSummary>(path: string, dialect: SkillDialect, read: ReadSkill<S>): FolderScan<S> => {
  const {entries, ...folder} = openLoadFolder(path, 'skills', 'loadout reads it but will not write through it')
  const skills = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || (e.isSymbolicLink() && !isLinkToFile(join(path, e.name)))))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e, _, all) => read.folder(join(path, e.name), dialect, e.isSymbolicLink(), all.length))
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

/** What `skills list` reports: the inventory, with the agents and scopes it covers. */
export interface SkillsListResult {
  agents: string[]
  scopes: Scope[]
  folders: SkillsFolder[]
  skills: ListedSkill[]
}

/** Every skill each target would load, each SKILL.md read whole (`skills info` shows its text). */
export const inventorySkills = (input: InventoryInput): Promise<SkillsInventory> =>
  inventory(input, {folder: (dir, dialect, link) => readSkillDir(dir, dialect, {link}), whole: (skill) => skill})

/**
 * The same, for a listing: what each SKILL.md holds without its text, and in a folder of many skills
 * a SKILL.md whose metadata is as when it was last read is not read again (kernel/fs/stat-memo.ts).
 */
export const listSkills = async (input: InventoryInput): Promise<SkillsInventory<SkillSummary>> => {
  let memo: ReturnType<typeof openSkillMemo> | undefined
  const listed = await inventory<SkillSummary>(input, {
    folder: (dir, dialect, link, count) => {
      if (count < MEMO_MIN_FILES) return readSkillDir(dir, dialect, {link})
      memo ??= openSkillMemo(input.env)
      return readSkillSummary(dir, dialect, {link}, memo)
    },
    whole: (skill) => skill,
  })
  memo?.save()
  return listed
}

/**
 * Every skill each target would load, folder by folder in the target's own precedence, with the
 * losers of a name clash marked as shadowed. Shadowing is worked out over both scopes, then the
 * listing is cut to the scopes asked for.
 */
const inventory = async <S extends SkillSummary>(
  {targets, env, context, scopes, ownership}: InventoryInput,
  read: ReadSkill<S>,
): Promise<SkillsInventory<S>> => {
  // the YAML parser only for agents whose skills are YAML files
  const readYaml = targets.some((t) => t.skills?.format === 'characteroid-yaml') ? (await import('../../kernel/plugin/yaml-skill.js')).readYamlSkill : undefined
  const scans = new Map<string, FolderScan<S>>()
  const folders: SkillsFolder[] = []
  const skills: ListedSkill[] = []
  const details = new Map<string, S>()
  for (const target of targets) {
    if (!target.skills) continue
    const yaml = target.skills.format === 'characteroid-yaml'
    const dialect = target.skills.dialect ?? 'spec'
    const placement = placeByPrecedence({
      locations: sectionLocations(target, 'skills', env, context, ['user', 'project']),
      scopes,
      scan: (location) =>
        cachedScan(scans, `${yaml ? 'yaml' : dialect}:${location.absolute}`, () =>
          yaml ? scanYamlFolder(location.absolute, readYaml!, read.whole) : scanFolder(location.absolute, dialect, read),
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
