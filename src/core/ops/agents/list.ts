import {statSync, type Dirent} from 'node:fs'
import {join} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {cachedScan, openLoadFolder, placeByPrecedence} from '../../kernel/targets/inventory.js'
import {hasErrors, type Problem} from '../../model/problems.js'
import type {Scope, ScopeContext} from '../../kernel/env/scope.js'
import type {Ownership} from '../../kernel/state/records.js'
import {sectionLocations} from '../../kernel/targets/resolve.js'
import type {AgentTarget, SubagentFormat} from '../../kernel/targets/types.js'
import {layoutOf, nameOfEntry, type SubagentLayout} from '../../kernel/subagents/layout.js'
import {readSubagent, type SubagentOnDisk} from '../../kernel/subagents/read.js'

export interface SubagentsFolder {
  agent: string
  scope: Scope
  format: SubagentFormat
  path: string
  exists: boolean
  /** where the folder points, when it is a symbolic link */
  linkTarget?: string
  problems: Problem[]
}

export interface ListedSubagent {
  agent: string
  name: string
  scope: Scope
  format: SubagentFormat
  /** the subagents folder it sits in */
  folder: string
  /** its file, or its folder (deepagents) */
  path: string
  description?: string
  status: 'active' | 'shadowed'
  /** the path of the subagent that wins over this one */
  shadowedBy?: string
  valid: boolean
  problems: Problem[]
  /** "user" for a subagent made by hand (or by `agents create`), else the plugin that installed it */
  owner: string
  linkTarget?: string
}

export interface SkippedTarget {
  agent: string
  reason: string
}

export interface SubagentsInventory {
  folders: SubagentsFolder[]
  subagents: ListedSubagent[]
  /** chosen agents with no subagents folder in the scopes asked for */
  skipped: SkippedTarget[]
  /** the parsed subagent behind each listed path, for info */
  details: Map<string, SubagentOnDisk>
}

/** What `agents list` prints, and returns under --json. */
export interface SubagentsListResult {
  agents: string[]
  scopes: Scope[]
  folders: SubagentsFolder[]
  subagents: ListedSubagent[]
  skipped: SkippedTarget[]
}

interface FolderScan {
  exists: boolean
  linkTarget?: string
  problems: Problem[]
  subagents: SubagentOnDisk[]
}

/** Whether a folder entry has the shape of a subagent of this layout (links are followed to decide). */
const fitsLayout = (entry: Dirent, full: string, layout: SubagentLayout): boolean => {
  if (entry.isSymbolicLink()) {
    try {
      const target = statSync(full)
      return layout.kind === 'folder' ? target.isDirectory() : !target.isDirectory()
    } catch {
      return true // a dangling link: listed, as broken
    }
  }
  return layout.kind === 'folder' ? entry.isDirectory() : !entry.isDirectory()
}

const byName = (a: {name: string}, b: {name: string}) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

const scanFolder = (path: string, format: SubagentFormat): FolderScan => {
  const {entries, ...folder} = openLoadFolder(path, 'subagents', 'loadout reads it but will not write or delete through it')
  const layout = layoutOf(format)
  const subagents = entries
    .map((entry) => ({entry, name: nameOfEntry(entry.name, layout)}))
    .filter((e): e is {entry: Dirent; name: string} => e.name !== undefined && fitsLayout(e.entry, join(path, e.entry.name), layout))
    .sort(byName)
    .map(({entry, name}) => readSubagent(join(path, entry.name), name, format))
  return {...folder, subagents}
}

export interface InventoryInput {
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  scopes: readonly Scope[]
  ownership: Ownership
}

/**
 * Every subagent each target would load, folder by folder in the target's order (project before
 * user), with the losers of a name clash marked as shadowed. Shadowing is worked out over both
 * scopes, then the listing is cut to the scopes asked for.
 */
export const inventorySubagents = ({targets, env, context, scopes, ownership}: InventoryInput): SubagentsInventory => {
  const scans = new Map<string, FolderScan>()
  const folders: SubagentsFolder[] = []
  const subagents: ListedSubagent[] = []
  const skipped: SkippedTarget[] = []
  const details = new Map<string, SubagentOnDisk>()
  for (const target of targets) {
    const section = target.subagents
    const locations = sectionLocations(target, 'subagents', env, context, ['user', 'project'])
    if (!section || !locations.some((l) => scopes.includes(l.scope))) {
      const which = scopes.length === 1 ? `${scopes[0]}-scope ` : ''
      skipped.push({agent: target.id, reason: `${target.name} has no ${which}subagents folder`})
      continue
    }
    const format = section.format
    const placement = placeByPrecedence({
      locations,
      scopes,
      scan: (location) => cachedScan(scans, `${format}:${location.absolute}`, () => scanFolder(location.absolute, format)),
      itemsOf: (scan) => scan.subagents,
      nameOf: (found) => found.name,
      pathOf: (found) => found.path,
    })
    for (const {location, scan} of placement.folders) {
      folders.push({
        agent: target.id,
        scope: location.scope,
        format,
        path: location.absolute,
        exists: scan.exists,
        ...(scan.linkTarget ? {linkTarget: scan.linkTarget} : {}),
        problems: scan.problems,
      })
    }
    for (const {item: found, location, shadowedBy} of placement.items) {
      details.set(found.path, found)
      subagents.push({
        agent: target.id,
        name: found.name,
        scope: location.scope,
        format,
        folder: location.absolute,
        path: found.path,
        ...(found.description === undefined ? {} : {description: found.description}),
        status: shadowedBy ? 'shadowed' : 'active',
        ...(shadowedBy ? {shadowedBy} : {}),
        valid: !hasErrors(found.problems),
        problems: found.problems,
        owner: ownership.ownerOf(found.path) ?? 'user',
        ...(found.linkTarget ? {linkTarget: found.linkTarget} : {}),
      })
    }
  }
  return {folders, subagents, skipped, details}
}
