/**
 * Reads a plugin folder without trusting it: its manifests (or the marketplace entry that defines
 * it), every part they name or the conventional folders hold, every path and link checked to stay
 * inside the plugin root. `readPlugin` refuses a plugin that breaks a rule; `inspectPlugin` returns
 * what it could read together with every problem, for `plugin validate`.
 */
import {lookAlikeIndex} from '../text/name-skeleton.js'
import {statSync} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import {notFound, validationFailed, type LoadoutError} from '../../model/errors.js'
import {safeRealpath, withTreeReadOnce} from '../fs/contain.js'
import {checkPluginName} from '../text/names.js'
import type {PluginEntry} from '../../model/marketplace.js'
import type {Problem} from '../../model/problems.js'
import {SKILL_FILE} from '../skills/read.js'
import type {SkillDialect} from '../targets/types.js'
import {
  ComponentSet,
  commandOf,
  hooksOf,
  jsonSourceByConvention,
  jsonSourceDeclared,
  markdownByConvention,
  markdownDeclared,
  mcpIdentity,
  mcpServersOf,
  originOfDeclared,
  readSkill,
  readSubagent,
  skillDirsByConvention,
  skillDirsDeclared,
  type CollectContext,
  type FoundPath,
  type JsonSource,
} from './collect.js'
import type {Declaration, PluginMetadata} from './manifest-fields.js'
import {MAX_MCP_SERVERS, tooManyMcpServers} from './components.js'
import {readDeclarations} from './manifests.js'
import {entryKind, linksOutside, shownFile} from './paths.js'
import {PluginReport} from './report.js'
import type {
  CommandComponent,
  HooksComponent,
  ManifestKind,
  McpComponent,
  PluginModel,
  SkillComponent,
  SubagentComponent,
  ToolComponent,
} from '../../model/plugin.js'

export interface ReadPluginOptions {
  /** the marketplace entry the plugin was resolved from; with `strict: false` it defines the plugin */
  entry?: PluginEntry
  /** the user's home folder, so a link into it is shown as `~/...` */
  home?: string
}

export interface PluginInspection {
  /** what could be read; `model.problems` holds every problem, the fatal ones included */
  model: PluginModel
  /** the problems that make readPlugin refuse the plugin */
  fatal: Problem[]
  /**
   * Whether the marketplace entry changed what was read: it names the plugin (no manifest does, or
   * `strict: false` sets them aside) or declares parts. Read without it, the same tree gives another
   * model.
   */
  shapedByEntry: boolean
}

interface ReadContext extends CollectContext {
  declarations: Declaration[]
}

/** The plugin root, made absolute; it must exist and be a folder. */
const checkRoot = (root: string): string => {
  const abs = resolve(root)
  const real = safeRealpath(abs)
  if (real === undefined) throw notFound('plugin-not-found', `${abs} does not exist`)
  if (!statSync(real).isDirectory())
    throw validationFailed('plugin-not-folder', `${abs} is not a folder`, {suggestions: ['give the folder that holds the plugin']})
  return abs
}

/** Walks the whole plugin first: each link that leads out is fatal, and never read through later. */
const recordOutsideLinks = (ctx: CollectContext, home?: string): void => {
  for (const found of linksOutside(ctx.root, ctx.root, home ? {home} : {})) {
    ctx.report.addFatal(found)
    if (found.code === 'link-outside-root' && found.file) ctx.report.outsideLinks.add(found.file)
  }
}

type ComponentKey = 'skills' | 'agents' | 'subagents' | 'commands' | 'hooks' | 'mcpServers' | 'mcpComponents' | 'tools'
const COMPONENT_KEYS: readonly ComponentKey[] = ['skills', 'agents', 'subagents', 'commands', 'hooks', 'mcpServers', 'mcpComponents', 'tools']

const declares = (ctx: ReadContext, ...keys: ComponentKey[]): boolean => ctx.declarations.some((d) => keys.some((key) => d[key] !== undefined))

/** Conventional skills follow a manifest's own dialect (cst-agent's) only when every manifest speaks it. */
const conventionDialect = (ctx: ReadContext): SkillDialect => {
  const dialects = new Set(ctx.declarations.filter((d) => d.kind !== 'entry').map((d) => d.skillDialect))
  return dialects.size === 1 ? [...dialects][0]! : 'spec'
}

// ---------------------------------------------------------------------------------------------
// Components

interface SkillsRead {
  skills: SkillComponent[]
  /** the name of a root SKILL.md's skill, which names a single-skill plugin */
  rootSkillName?: string
}

/** A root SKILL.md: the plugin is one skill, named by its frontmatter or else the folder. */
const readRootSkill = (ctx: ReadContext): SkillsRead => {
  const skill = readSkill(ctx.root, conventionDialect(ctx), ctx.report, ['name-folder-mismatch'])
  return {skills: [skill], rootSkillName: skill.name}
}

const collectSkills = (ctx: ReadContext): SkillsRead => {
  const set = new ComponentSet<SkillComponent>('skill', 'skill', ctx)
  const add = (found: FoundPath, dialect: SkillDialect) => set.add(readSkill(found.path, dialect, ctx.report), found.origin, found.path)
  if (declares(ctx, 'skills')) {
    ctx.declarations.forEach((d, i) => {
      for (const declared of d.skills ?? []) for (const found of skillDirsDeclared(declared, i, ctx)) add(found, d.skillDialect)
    })
    // A manifest naming a skills path that is not there (a Codex manifest beside a sound Claude
    // one) must not hide the conventional skills/ folder the other agents read.
    const missing = ctx.declarations.some((d) => (d.skills ?? []).some((declared) => entryKind(declared.path) === 'missing'))
    if (set.list().length > 0 || !missing) return {skills: set.list()}
  }
  if (entryKind(join(ctx.root, 'skills')) === 'missing' && entryKind(join(ctx.root, SKILL_FILE)) !== 'missing') return readRootSkill(ctx)
  for (const found of skillDirsByConvention(ctx)) add(found, conventionDialect(ctx))
  return {skills: set.list()}
}

const inlineOrigin = (d: Declaration, index: number, jsonPath: string, identity: string, ctx: ReadContext) =>
  originOfDeclared({file: d.file, jsonPath}, index, ctx.root, identity)

const collectSubagents = (ctx: ReadContext): SubagentComponent[] => {
  const set = new ComponentSet<SubagentComponent>('subagent', 'subagent', ctx)
  const add = (found: FoundPath) => {
    const subagent = readSubagent(found, ctx)
    if (subagent) set.add(subagent, found.origin, found.path)
  }
  if (!declares(ctx, 'agents', 'subagents')) {
    markdownByConvention('agents', ctx).forEach(add)
    return set.list()
  }
  ctx.declarations.forEach((d, i) => {
    for (const declared of d.agents ?? []) markdownDeclared(declared, i, 'agent', ctx).forEach(add)
    for (const inline of d.subagents ?? []) set.add(inline, inlineOrigin(d, i, d.subagentsAt ?? 'subagents', `${d.file}#${inline.name}`, ctx), d.file)
  })
  return set.list()
}

const collectCommands = (ctx: ReadContext): CommandComponent[] => {
  const set = new ComponentSet<CommandComponent>('command', 'command', ctx)
  const found = declares(ctx, 'commands')
    ? ctx.declarations.flatMap((d, i) => (d.commands ?? []).flatMap((declared) => markdownDeclared(declared, i, 'command', ctx)))
    : markdownByConvention('commands', ctx)
  for (const f of found) set.add(commandOf(f), f.origin, f.path)
  return set.list()
}

const jsonSources = (ctx: ReadContext, key: 'hooks' | 'mcpServers', conventional: string): JsonSource[] => {
  if (!declares(ctx, key, ...(key === 'mcpServers' ? (['mcpComponents'] as const) : []))) {
    const found = jsonSourceByConvention(conventional, ctx)
    return found ? [found] : []
  }
  return ctx.declarations.flatMap((d, i) => (d[key] ?? []).flatMap((source) => jsonSourceDeclared(source, i, ctx) ?? []))
}

/** A hook set's name: its file's name (`hooks`), or `inline`; a second one with the same name gets `-2`. */
const uniqueName = (stem: string, taken: Set<string>): string => {
  let name = stem
  for (let n = 2; taken.has(name); n++) name = `${stem}-${n}`
  taken.add(name)
  return name
}

const collectHooks = (ctx: ReadContext): HooksComponent[] => {
  const seen = new Map<string, number>()
  const names = new Set<string>()
  const hooks: HooksComponent[] = []
  for (const source of jsonSources(ctx, 'hooks', join('hooks', 'hooks.json'))) {
    const {identity, declaration} = source.origin
    const before = seen.get(identity)
    if (before !== undefined && before !== declaration) continue
    if (before !== undefined) {
      ctx.report.error('hooks-duplicate', `the hooks in ${shownFile(ctx.root, source.file)} are named twice (${source.origin.label})`, {
        file: source.origin.file ?? source.file,
        ...(source.origin.jsonPath ? {path: source.origin.jsonPath} : {}),
      })
      continue
    }
    seen.set(identity, declaration)
    const component = hooksOf(source, ctx)
    if (component) hooks.push({...component, name: uniqueName(component.name, names)})
  }
  return hooks
}

const collectMcpServers = (ctx: ReadContext): McpComponent[] => {
  const set = new ComponentSet<McpComponent>('mcp', 'MCP server', ctx)
  for (const source of jsonSources(ctx, 'mcpServers', '.mcp.json')) {
    for (const server of mcpServersOf(source, ctx)) set.add(server, {...source.origin, identity: mcpIdentity(server)}, source.file)
  }
  ctx.declarations.forEach((d, i) => {
    for (const server of d.mcpComponents ?? []) set.add(server, inlineOrigin(d, i, d.mcpComponentsAt ?? 'mcpServers', mcpIdentity(server), ctx), d.file)
  })
  return set.list()
}

const collectTools = (ctx: ReadContext): ToolComponent[] => {
  const set = new ComponentSet<ToolComponent>('tool', 'tool', ctx)
  ctx.declarations.forEach((d, i) => {
    for (const tool of d.tools ?? []) set.add(tool, inlineOrigin(d, i, 'tools', `${d.file}#tools#${tool.name}`, ctx), d.file)
  })
  return set.list()
}

// ---------------------------------------------------------------------------------------------
// Metadata

const METADATA_COMPARED = ['name', 'version', 'description'] as const

/** Two declarations that both give a name, version or description and disagree: a warning each. */
const warnDisagreements = (ctx: ReadContext): void => {
  for (const key of METADATA_COMPARED) {
    const [first, ...others] = ctx.declarations.filter((d) => d[key] !== undefined)
    for (const other of others) {
      if (!first || other[key] === first[key]) continue
      const value = JSON.stringify(first[key])
      ctx.report.warn(
        'manifest-disagreement',
        `"${key}" is ${value} in ${shownFile(ctx.root, first.file)} but ${JSON.stringify(other[key])} in ${shownFile(ctx.root, other.file)}; using ${value}`,
        {file: other.file, path: key},
      )
    }
  }
}

const firstDefined = <K extends keyof PluginMetadata>(ctx: ReadContext, key: K): Declaration | undefined => ctx.declarations.find((d) => d[key] !== undefined)

/** The manifest's name, else the entry's, else a root skill's, else the folder's; kebab-case. */
const pluginName = (ctx: ReadContext, rootSkillName: string | undefined): string => {
  const from = firstDefined(ctx, 'name')
  const name = from?.name ?? rootSkillName ?? basename(ctx.root)
  const broken = checkPluginName(name)
  if (broken) {
    const source = from ? `(from ${shownFile(ctx.root, from.file)})` : '(the folder name)'
    ctx.report.error(
      'plugin-name-invalid',
      `plugin name ${JSON.stringify(name)} ${source} ${broken}`,
      from ? {file: from.file, path: 'name'} : {file: ctx.root},
    )
  }
  return name
}

const manifestKinds = (ctx: ReadContext): ManifestKind[] => {
  const kinds = [...new Set(ctx.declarations.flatMap((d) => (d.kind === 'entry' ? [] : [d.kind])))]
  return kinds.length > 0 ? kinds : ['none']
}

const optionalMetadata = (ctx: ReadContext): Partial<PluginModel> => {
  const model: Partial<PluginModel> = {}
  const version = firstDefined(ctx, 'version')?.version
  const description = firstDefined(ctx, 'description')?.description
  const author = firstDefined(ctx, 'author')?.author
  const keywords = firstDefined(ctx, 'keywords')?.keywords
  const whole = ctx.declarations.find((d) => d.installsWhole === true)
  if (version !== undefined) model.version = version
  if (description !== undefined) model.description = description
  if (author !== undefined) model.author = author
  if (keywords !== undefined) model.keywords = keywords
  if (whole) model.cstAgentManifest = whole.file
  return model
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** Reads everything it can and reports every problem; throws only when the root is not a folder. */
export const inspectPlugin = (root: string, options: ReadPluginOptions = {}): PluginInspection => withTreeReadOnce(() => inspectTree(root, options))

const inspectTree = (root: string, options: ReadPluginOptions): PluginInspection => {
  const report = new PluginReport()
  const base: CollectContext = {root: checkRoot(root), report}
  recordOutsideLinks(base, options.home)
  const ctx: ReadContext = {...base, declarations: readDeclarations(base.root, options.entry ? {entry: options.entry} : {}, report)}
  warnDisagreements(ctx)
  const {skills, rootSkillName} = collectSkills(ctx)
  const model: PluginModel = {
    name: pluginName(ctx, rootSkillName),
    ...optionalMetadata(ctx),
    root: ctx.root,
    manifests: manifestKinds(ctx),
    skills,
    subagents: collectSubagents(ctx),
    mcpServers: collectMcpServers(ctx),
    hooks: collectHooks(ctx),
    commands: collectCommands(ctx),
    tools: collectTools(ctx),
    problems: report.problems,
  }
  if (model.mcpServers.length > MAX_MCP_SERVERS) report.error('too-many-mcp-servers', tooManyMcpServers(model.mcpServers.length), {file: model.root})
  refuseConfusableNames(model, report)
  return {model, fatal: report.fatal, shapedByEntry: shapedByEntry(ctx)}
}

const shapedByEntry = (ctx: ReadContext): boolean => {
  const entry = ctx.declarations.find((d) => d.kind === 'entry')
  return entry !== undefined && (firstDefined(ctx, 'name') === entry || COMPONENT_KEYS.some((key) => entry[key] !== undefined))
}

/** Two skills, subagents or MCP servers of one plugin whose names a reader could take for each other. */
const refuseConfusableNames = (model: PluginModel, report: PluginReport): void => {
  const lists: Array<[string, ReadonlyArray<{name: string}>]> = [
    ['skill', model.skills],
    ['subagent', model.subagents],
    ['MCP server', model.mcpServers],
  ]
  for (const [kind, parts] of lists) {
    const seen = lookAlikeIndex()
    for (const {name} of parts) {
      const other = seen.confusable(name)
      if (other !== undefined)
        report.error('name-confusable', `${kind} names ${JSON.stringify(other)} and ${JSON.stringify(name)} look alike; rename one`, {file: model.root})
      seen.add(name)
    }
  }
}

export const describeProblem = (p: Problem, root: string): string => {
  const where = [p.file ? shownFile(root, p.file) : undefined, p.path].filter(Boolean).join(' ')
  return where ? `${where}: ${p.message}` : p.message
}

/** One error for every fatal problem: its code is the first one's, `details.problems` holds them all. */
export const pluginRefused = (model: PluginModel, fatal: readonly Problem[]): LoadoutError => {
  const lines = fatal.map((p) => describeProblem(p, model.root))
  const message =
    lines.length === 1
      ? `cannot read the plugin at ${model.root}: ${lines[0]}`
      : `cannot read the plugin at ${model.root}; it breaks ${lines.length} rules:\n  ${lines.join('\n  ')}`
  return validationFailed(fatal[0]!.code, message, {
    suggestions: ['fix the plugin (or ask its author to); `loadout plugin validate <path>` lists every problem'],
    details: {problems: model.problems},
  })
}

/**
 * Reads a plugin folder without trusting it. Throws a LoadoutError (exit status 4) when a path or
 * link leads out of the plugin, a manifest is broken, or a name is used twice; problems in a
 * skill's or subagent's own text are returned in `problems` for the caller to weigh.
 */
export const readPlugin = (root: string, options: ReadPluginOptions = {}): PluginModel => {
  const {model, fatal} = inspectPlugin(root, options)
  if (fatal.length > 0) throw pluginRefused(model, fatal)
  return model
}
