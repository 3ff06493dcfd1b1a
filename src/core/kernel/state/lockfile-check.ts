import {lstatSync, readFileSync} from 'node:fs'
import {isAbsolute, join, posix, relative, resolve, sep} from 'node:path'
import {errnoCode, EXIT, LoadoutError} from '../../model/errors.js'
import {isInside} from '../fs/contain.js'
import {jsonEqual} from '../json/equal.js'
import {removeHookEvents} from '../writers/hooks.js'
import {REGISTRY_DIR} from '../env/package-root.js'
import type {HookEvents} from '../../model/plugin.js'

/**
 * loadout.lock is committed, so it is input from whoever committed it. Before any of its records is
 * used, every path in it must name a place inside the project that the record's agent keeps things
 * in (every project-scope location its registry file gives: skills, subagents, commands, MCP and
 * hooks files, plugins folder) or the plugin's own
 * copy under `.loadout/plugins/<plugin>/` (and its native catalog, `.claude-plugin/marketplace.json` there); no `..`, no absolute path, no path through a symbolic
 * link. A recorded undo may only take out what loadout added. One bad record refuses the whole lock:
 * the error names the path, and nothing has been touched.
 */

// a plugin or marketplace name; an MCP server installed on its own is `mcp:<name>`
const ID_PART = /^(mcp:)?[A-Za-z0-9][A-Za-z0-9._-]*$/
const TARGET_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/

export const lockRefused = (path: string, why: string): LoadoutError =>
  new LoadoutError('lock-unsafe', EXIT.validation, `loadout.lock names ${JSON.stringify(path)}, ${why}; refusing to use it (nothing was changed)`, {
    suggestions: [
      'loadout.lock came from whoever committed it: restore it from a commit you trust (git checkout loadout.lock), or delete it and run loadout install again',
    ],
  })

interface TargetAreas {
  /** project-relative folders and files the agent keeps things in */
  places: string[]
  /** its MCP and hooks config files */
  configs: string[]
}

const areaCache = new Map<string, TargetAreas | undefined>()

/** The project-scope places of an agent, read straight from its registry file (the lock is read synchronously). */
const targetAreas = (target: string): TargetAreas | undefined => {
  if (areaCache.has(target)) return areaCache.get(target)
  let areas: TargetAreas | undefined
  if (TARGET_ID.test(target)) {
    try {
      const data = JSON.parse(readFileSync(join(REGISTRY_DIR, 'agents', `${target}.json`), 'utf8')) as Record<string, unknown>
      const of = (section: string): string[] => {
        const locations = (data[section] as {locations?: unknown} | null | undefined)?.locations
        return Array.isArray(locations) ? locations.filter((l) => l?.scope === 'project' && typeof l.path === 'string').map((l) => l.path as string) : []
      }
      // every part kind the registry gives a project location (skills, subagents, commands, ...), not a list kept here
      areas = {places: Object.keys(data).flatMap(of), configs: [...of('mcp'), ...of('hooks'), ...of('pluginForm')]}
    } catch {
      areas = undefined
    }
  }
  areaCache.set(target, areas)
  return areas
}

/** A project-relative path as the lock must spell it: `/`-separated, no `.`/`..` segments, not absolute. */
const checkRelative = (projectRoot: string, value: unknown, what: string): string => {
  if (typeof value !== 'string' || value === '') throw lockRefused(String(value), `${what} is not a path`)
  if (isAbsolute(value) || /^[A-Za-z]:/.test(value)) throw lockRefused(value, `an absolute path (${what} must be relative to the project)`)
  if (value.includes('\\') || value.includes('\0')) throw lockRefused(value, `a path with a backslash or NUL (${what})`)
  if (value.split('/').some((s) => s === '..')) throw lockRefused(value, `a path that climbs out with ".." (${what})`)
  const absolute = resolve(projectRoot, value)
  if (!isInside(projectRoot, absolute) || absolute === resolve(projectRoot)) throw lockRefused(value, `a path outside the project (${what})`)
  return absolute
}

/** Refuses a path when an existing folder on the way to it (or, unless `lastMayLink`, the path itself) is a link. */
const checkNoLinks = (projectRoot: string, absolute: string, shown: string, lastMayLink: boolean): void => {
  const parts = relative(projectRoot, absolute).split(sep)
  let current = projectRoot
  for (const [i, part] of parts.entries()) {
    current = join(current, part)
    let link: boolean
    try {
      link = lstatSync(current).isSymbolicLink()
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return
      throw error
    }
    if (link && !(lastMayLink && i === parts.length - 1)) throw lockRefused(shown, `which goes through the symbolic link ${relative(projectRoot, current)}`)
  }
}

const within = (path: string, area: string): boolean => path === area || path.startsWith(`${area}/`)

const checkPath = (
  projectRoot: string,
  value: unknown,
  what: string,
  allowed: (rel: string) => boolean,
  lastMayLink = false,
  where = `a place its agent keeps ${what}s in`,
): void => {
  const absolute = checkRelative(projectRoot, value, what)
  const rel = relative(projectRoot, absolute).split(sep).join('/')
  if (!allowed(rel)) throw lockRefused(String(value), `which is not ${where}`)
  checkNoLinks(projectRoot, absolute, String(value), lastMayLink)
}

/** An undo that would write something back is allowed only when it writes back the value minus what loadout added. */
const checkUndo = (edit: Record<string, unknown>, file: string): void => {
  const undo = edit.undo as {previous?: unknown} | undefined
  if (undo === undefined || undo.previous === undefined) return
  const shown = `${file} ${String(edit.key ?? '')}`.trim()
  if (typeof undo.previous !== 'string' || edit.format !== 'json' || !edit.addedHooks)
    throw lockRefused(shown, 'whose recorded undo would write a value back into the file')
  let previous: unknown
  try {
    previous = JSON.parse(undo.previous)
  } catch {
    throw lockRefused(shown, 'whose recorded undo is not JSON')
  }
  const rest = removeHookEvents(edit.value as HookEvents, edit.addedHooks as HookEvents, edit.createdEvents as string[] | undefined).events
  if (!jsonEqual(previous, rest)) throw lockRefused(shown, 'whose recorded undo would put back hooks loadout did not take out')
}

/** Checks one record of loadout.lock as read from disk (paths still project-relative). */
export const checkLockRecord = (projectRoot: string, record: Record<string, unknown>): void => {
  const plugin = record.plugin
  const [name, market, ...more] = typeof plugin === 'string' ? plugin.split('@') : []
  if (!name || !market || more.length > 0 || !ID_PART.test(name) || !ID_PART.test(market))
    throw lockRefused(String(plugin), 'which is not a plugin@marketplace id')
  const areas = typeof record.target === 'string' ? targetAreas(record.target) : undefined
  if (!areas) throw lockRefused(String(record.target), `which is not an agent loadout knows (record of ${plugin})`)
  // a native plugin's catalog sits beside its copies: `.loadout/plugins/<plugin>/.claude-plugin/marketplace.json`
  const catalog = `.loadout/plugins/${String(plugin)}/.claude-plugin`
  // and the copy without the parts turned off that Claude Code is offered: `<revision>-without-<hash>` beside the record's copy
  const revision = typeof record.pluginRoot === 'string' ? posix.basename(record.pluginRoot) : ''
  const filtered = `.loadout/plugins/${String(plugin)}/${revision}-without-`
  const isFiltered = (rel: string) => revision !== '' && rel.startsWith(filtered) && /^[0-9a-f]{12}(\/|$)/.test(rel.slice(filtered.length))
  const inPlaces = (rel: string) => areas.places.some((a) => within(rel, a)) || rel === catalog || rel === `${catalog}/marketplace.json` || isFiltered(rel)
  const array = (value: unknown, what: string): unknown[] => {
    if (value === undefined) return []
    if (!Array.isArray(value)) throw lockRefused(String(value), `${what} of ${plugin} is not a list`)
    return value
  }
  for (const file of array(record.files, 'files')) {
    const entry = file as {path?: unknown; sha256?: unknown}
    checkPath(projectRoot, entry?.path, 'file', inPlaces, entry?.sha256 === 'link')
  }
  for (const tree of array(record.trees, 'trees')) checkPath(projectRoot, tree, 'folder', inPlaces)
  // A created folder may also be a parent of an agent's place (`.claude` above `.claude/skills`): only an empty one is ever removed.
  for (const dir of array(record.dirs, 'dirs'))
    checkPath(projectRoot, dir, 'folder', (rel) => inPlaces(rel) || areas.places.some((a) => a.startsWith(`${rel}/`)))
  for (const edit of array(record.config, 'config')) {
    const e = (edit ?? {}) as Record<string, unknown>
    checkPath(projectRoot, e.file, 'config file', (rel) => areas.configs.includes(rel))
    if ((e.format !== 'json' && e.format !== 'toml') || !Array.isArray(e.path) || !e.path.every((p) => typeof p === 'string') || typeof e.key !== 'string') {
      throw lockRefused(String(e.file), `whose config edit of ${plugin} is malformed`)
    }
    checkUndo(e, String(e.file))
  }
  // the name a native plugin's marketplace is registered under: loadout's own shape, or the lock is not loadout's
  if (record.marketplace !== undefined && (typeof record.marketplace !== 'string' || !/^loadout-[a-z0-9-]+-[0-9a-f]{8}$/.test(record.marketplace)))
    throw lockRefused(String(record.marketplace), `which is not a marketplace name loadout registers (record of ${plugin})`)
  if (record.pluginRoot !== undefined) {
    const own = `.loadout/plugins/${String(plugin)}`
    checkPath(
      projectRoot,
      record.pluginRoot,
      'plugin copy',
      (rel) => rel.startsWith(`${own}/`) && !rel.slice(own.length + 1).includes('/'),
      false,
      `the plugin copy's own folder (${own}/<revision>)`,
    )
  }
}

/** Checks every record of loadout.lock; throws on the first one that names a place it must not. */
export const checkLockRecords = (projectRoot: string, records: readonly unknown[]): void => {
  const root = resolve(projectRoot)
  for (const record of records) {
    if (record === null || typeof record !== 'object') throw lockRefused(String(record), 'which is not an install record')
    checkLockRecord(root, record as Record<string, unknown>)
  }
}
