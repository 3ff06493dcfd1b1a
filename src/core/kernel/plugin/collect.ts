/**
 * Turns declared paths (or the conventional folders) into components: skill folders, subagent
 * and command files, hooks and MCP files. Every folder entry is checked to stay inside the plugin
 * root before anything behind it is read, and a name used twice is an error naming both places.
 */
import {basename, dirname, extname, join, normalize} from 'node:path'
import {listFolder, safeRealpath} from '../fs/contain.js'
import {entryPath} from '../fs/entry-path.js'
import {readSkillDir, SKILL_FILE, type SkillOnDisk} from '../skills/read.js'
import {checkSkillName} from '../skills/name.js'
import {stableStringify} from '../fs/json.js'
import type {SkillDialect} from '../targets/types.js'
import {parseHooks, parseMcpServers, readSubagentFile} from './components.js'
import {MAX_MANIFEST_BYTES, parseManifestJson, type DeclaredPath, type DeclaredSource} from './manifest-fields.js'
import {checkResolvesInside, entryKind, followedKind, linksOutside, readContainedText, shownFile, type PathOrigin} from './paths.js'
import type {PluginReport} from './report.js'
import type {CommandComponent, HooksComponent, McpComponent, SkillComponent, SubagentComponent} from '../../model/plugin.js'

/** Where a component came from, to name both places when a name is used twice. */
export interface Origin {
  /** which declaration named it (an index), or -1 for a conventional folder */
  declaration: number
  /** `skills[1] in .claude-plugin/plugin.json`, or `by convention` */
  label: string
  file?: string
  jsonPath?: string
  /** what it is: a real path, or the content of an inline definition */
  identity: string
}

/** A path found under a declared or conventional folder, with the origin to blame for it. */
export interface FoundPath {
  path: string
  origin: Origin
}

export interface CollectContext {
  root: string
  report: PluginReport
}

const shown = shownFile

export const originOfDeclared = (declared: {file: string; jsonPath: string}, declaration: number, root: string, identity: string): Origin => ({
  declaration,
  label: `${declared.jsonPath} in ${shown(root, declared.file)}`,
  file: declared.file,
  jsonPath: declared.jsonPath,
  identity,
})

export const originOfConvention = (path: string, root: string, identity = safeRealpath(path) ?? path): Origin => ({
  declaration: -1,
  label: 'by convention',
  identity,
})

const whereOf = (origin: Origin): PathOrigin => ({file: origin.file ?? origin.identity, ...(origin.jsonPath ? {jsonPath: origin.jsonPath} : {})})

/** True when `path` may be read: not behind an outside link, and really inside the root. */
const staysInside = (path: string, origin: Origin, ctx: CollectContext): boolean => {
  if (ctx.report.leadsThroughOutsideLink(path)) return false
  return ctx.report.attempt(() => checkResolvesInside(path, ctx.root, whereOf(origin))) !== undefined
}

/** The entries of a folder, each checked to stay inside the root; links leading out are skipped. */
const folderEntries = (dir: string, origin: Origin, ctx: CollectContext): string[] => {
  let names: string[]
  try {
    names = listFolder(dir)
      .map((entry) => entry.name)
      .sort()
  } catch (error) {
    ctx.report.error('path-unreadable', `cannot read the folder ${shown(ctx.root, dir)}: ${String(error)}`, whereOf(origin))
    return []
  }
  const from = normalize(dir)
  return names.map((name) => entryPath(from, name)).filter((path) => staysInside(path, origin, ctx))
}

const missing = (declared: DeclaredPath, ctx: CollectContext): void =>
  ctx.report.error('path-missing', `path ${JSON.stringify(declared.raw)} does not exist`, {file: declared.file, path: declared.jsonPath})

const holdsSkillFile = (dir: string): boolean => entryKind(join(dir, SKILL_FILE)) !== 'missing'

// ---------------------------------------------------------------------------------------------
// Skills

/** A folder of skills: each subfolder holding a SKILL.md; one that does not is mentioned. */
const skillsInFolder = (dir: string, origin: Origin, ctx: CollectContext): FoundPath[] =>
  folderEntries(dir, origin, ctx).flatMap((child) => {
    if (followedKind(child) !== 'dir') return []
    if (holdsSkillFile(child)) return [{path: child, origin: {...origin, identity: safeRealpath(child) ?? child}}]
    ctx.report.warn('skill-folder-without-skill-md', `${shown(ctx.root, child)} has no ${SKILL_FILE}; it is not a skill`, {file: child})
    return []
  })

/** A declared skills path: a skill folder, its SKILL.md, or a folder of skill folders. */
export const skillDirsDeclared = (declared: DeclaredPath, declaration: number, ctx: CollectContext): FoundPath[] => {
  const kind = followedKind(declared.path)
  const origin = originOfDeclared(declared, declaration, ctx.root, safeRealpath(declared.path) ?? declared.path)
  if (kind === 'missing') return (missing(declared, ctx), [])
  if (kind === 'file' && basename(declared.path) === SKILL_FILE) {
    const dir = dirname(declared.path)
    return [{path: dir, origin: {...origin, identity: safeRealpath(dir) ?? dir}}]
  }
  if (kind !== 'dir') {
    ctx.report.error('skill-path-invalid', `path ${JSON.stringify(declared.raw)} is neither a skill folder nor a ${SKILL_FILE}`, {
      file: declared.file,
      path: declared.jsonPath,
    })
    return []
  }
  if (holdsSkillFile(declared.path)) return [{path: declared.path, origin}]
  return skillsInFolder(declared.path, origin, ctx)
}

/** `skills/*` with a SKILL.md each. */
export const skillDirsByConvention = (ctx: CollectContext): FoundPath[] => {
  const dir = join(ctx.root, 'skills')
  const origin = originOfConvention(dir, ctx.root)
  if (entryKind(dir) === 'missing' || !staysInside(dir, origin, ctx) || followedKind(dir) !== 'dir') return []
  return skillsInFolder(dir, origin, ctx)
}

/** Reads a skill folder with the Agent Skills reader; its problems are carried, not fatal. */
export const readSkill = (dir: string, dialect: SkillDialect, report: PluginReport, dropCodes: readonly string[] = []): SkillComponent => {
  const onDisk = readSkillDir(dir, dialect)
  report.carry(onDisk.problems.filter((p) => !dropCodes.includes(p.code)))
  // A skill folder is copied alone into each agent's skills folder: a link in it must stay in it,
  // or the copy would point at whatever sits beside it there. Validate and install share this rule.
  for (const found of linksOutside(dir, dir, {what: 'its skill folder', hardLinks: false})) {
    if (found.file && !report.leadsThroughOutsideLink(found.file)) report.addFatal({...found, code: 'link-outside-skill'})
  }
  const usable = onDisk.name !== undefined && checkSkillName(onDisk.name) === undefined
  const skill: SkillComponent = {kind: 'skill', name: usable ? onDisk.name! : basename(dir), dir}
  asRead.set(skill, asReadOf(onDisk))
  return skill
}

/** A SKILL.md's frontmatter and its description by the specification's rules (no dialect's fallback). */
export interface SkillAsRead {
  frontmatter?: Record<string, unknown>
  description?: string
}

/** The part of a reading kept: a dialect's fallback description (cst-agent's first line) is not the specification's. */
const asReadOf = (onDisk: SkillOnDisk): SkillAsRead => ({
  ...(onDisk.frontmatter ? {frontmatter: onDisk.frontmatter} : {}),
  ...(onDisk.fallback ? {} : {description: onDisk.description}),
})

/** What readSkill read for each skill it made: consent and the budget then need not read and parse SKILL.md again (the same bytes). */
const asRead = new WeakMap<SkillComponent, SkillAsRead>()

/** `copy` holds the same SKILL.md as `skill` (a copy of its folder this run made and checked): what was read of one is the other's. */
export const sameSkillAsRead = (skill: SkillComponent, copy: SkillComponent): void => {
  const kept = asRead.get(skill)
  if (kept) asRead.set(copy, kept)
}

/** The frontmatter and description of `skill`: as its reading kept them, else read from its folder now. */
export const skillAsRead = (skill: SkillComponent): SkillAsRead => asRead.get(skill) ?? asReadOf(readSkillDir(skill.dir))

// ---------------------------------------------------------------------------------------------
// Subagents and commands: Markdown files, named one by one or as a folder of *.md

const isMarkdown = (path: string): boolean => extname(path).toLowerCase() === '.md'

const markdownIn = (dir: string, origin: Origin, ctx: CollectContext): FoundPath[] =>
  folderEntries(dir, origin, ctx)
    .filter((path) => isMarkdown(path) && followedKind(path) === 'file')
    .map((path) => ({path, origin: {...origin, identity: safeRealpath(path) ?? path}}))

export const markdownDeclared = (declared: DeclaredPath, declaration: number, what: string, ctx: CollectContext): FoundPath[] => {
  const kind = followedKind(declared.path)
  const origin = originOfDeclared(declared, declaration, ctx.root, safeRealpath(declared.path) ?? declared.path)
  if (kind === 'missing') return (missing(declared, ctx), [])
  if (kind === 'dir') return markdownIn(declared.path, origin, ctx)
  if (kind === 'file' && isMarkdown(declared.path)) return [{path: declared.path, origin}]
  ctx.report.error(`${what}-path-invalid`, `path ${JSON.stringify(declared.raw)} is neither a .md file nor a folder of them`, {
    file: declared.file,
    path: declared.jsonPath,
  })
  return []
}

export const markdownByConvention = (folder: string, ctx: CollectContext): FoundPath[] => {
  const dir = join(ctx.root, folder)
  const origin = originOfConvention(dir, ctx.root)
  if (entryKind(dir) === 'missing' || !staysInside(dir, origin, ctx) || followedKind(dir) !== 'dir') return []
  return markdownIn(dir, origin, ctx)
}

export const readSubagent = (found: FoundPath, ctx: CollectContext): SubagentComponent | undefined =>
  readSubagentFile(found.path, ctx.root, {
    file: found.origin.file ?? found.path,
    report: ctx.report,
    ...(found.origin.jsonPath ? {jsonPath: found.origin.jsonPath} : {}),
  })

export const commandOf = (found: FoundPath): CommandComponent => ({kind: 'command', name: basename(found.path, extname(found.path)), file: found.path})

// ---------------------------------------------------------------------------------------------
// Hooks and MCP servers: JSON files, or objects inline in a manifest

export interface JsonSource {
  value: unknown
  /** the file the value is in, and where inside it */
  file: string
  jsonPath: string
  origin: Origin
  /** a name for the hook set: the file's name, or `inline` */
  stem: string
}

const readJsonFile = (path: string, origin: Origin, ctx: CollectContext): unknown =>
  ctx.report.attempt(() => parseManifestJson(readContainedText(path, {root: ctx.root, ...whereOf(origin), maxBytes: MAX_MANIFEST_BYTES}), path))

export const jsonSourceDeclared = (source: DeclaredSource, declaration: number, ctx: CollectContext): JsonSource | undefined => {
  if (source.kind === 'inline') {
    const origin = originOfDeclared(source, declaration, ctx.root, `${source.file}#${source.jsonPath}`)
    return {value: source.value, file: source.file, jsonPath: source.jsonPath, origin, stem: 'inline'}
  }
  const origin = originOfDeclared(source, declaration, ctx.root, safeRealpath(source.path) ?? source.path)
  if (followedKind(source.path) === 'missing') return (missing(source, ctx), undefined)
  const value = readJsonFile(source.path, origin, ctx)
  return value === undefined ? undefined : {value, file: source.path, jsonPath: '', origin, stem: basename(source.path, extname(source.path))}
}

export const jsonSourceByConvention = (rel: string, ctx: CollectContext): JsonSource | undefined => {
  const path = join(ctx.root, rel)
  const origin = originOfConvention(path, ctx.root)
  if (entryKind(path) === 'missing' || !staysInside(path, origin, ctx)) return undefined
  const value = readJsonFile(path, {...origin, file: path}, ctx)
  return value === undefined ? undefined : {value, file: path, jsonPath: '', origin, stem: basename(path, extname(path)).replace(/^\./, '')}
}

export const hooksOf = (source: JsonSource, ctx: CollectContext): HooksComponent | undefined => {
  const events = parseHooks(source.value, source.jsonPath, {file: source.file, report: ctx.report})
  return Object.keys(events).length > 0 ? {kind: 'hooks', name: source.stem, events} : undefined
}

export const mcpServersOf = (source: JsonSource, ctx: CollectContext): McpComponent[] =>
  parseMcpServers(source.value, source.jsonPath, {file: source.file, report: ctx.report})

/** An inline server's identity is its configuration, so two manifests declaring the same one agree. */
export const mcpIdentity = (server: McpComponent): string => stableStringify(server.config)

// ---------------------------------------------------------------------------------------------
// Names used twice

/**
 * Components of one kind by name. The same thing (same folder, file or configuration) named by
 * two different declarations is kept once; anything else under a name already taken is an error
 * naming both places.
 */
export class ComponentSet<C extends {name: string}> {
  private readonly byName = new Map<string, {component: C; origin: Origin; path: string}>()

  /** `code` prefixes the error code (`skill` -> `skill-duplicate`); `noun` names the kind in messages */
  constructor(
    private readonly code: string,
    private readonly noun: string,
    private readonly ctx: CollectContext,
  ) {}

  /** `path` is where the component is: its folder or file (the manifest, for an inline one). */
  add(component: C, origin: Origin, path: string): void {
    const taken = this.byName.get(component.name)
    if (!taken) {
      this.byName.set(component.name, {component, origin, path})
      return
    }
    if (taken.origin.identity === origin.identity && taken.origin.declaration !== origin.declaration) return
    const place = (at: string, from: Origin) => `${shown(this.ctx.root, at)} (${from.label})`
    this.ctx.report.error(
      `${this.code}-duplicate`,
      `${this.noun} "${component.name}" is named twice: ${place(taken.path, taken.origin)} and ${place(path, origin)}`,
      {
        file: origin.file ?? path,
        ...(origin.jsonPath ? {path: origin.jsonPath} : {}),
      },
    )
  }

  list(): C[] {
    return [...this.byName.values()].map((entry) => entry.component)
  }
}
