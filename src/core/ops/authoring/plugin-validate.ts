/**
 * `loadout plugin validate`: every problem of a plugin folder, in every format it ships, with the
 * file, the JSON path, a rule code and a message. The plugin reader (the one `install` trusts) is
 * the base: what it refuses, validate reports. On top come the JSON Schema of each manifest
 * (registry/schemas, compiled at build time), the cross-field rules in code, and the text-level
 * defects of every JSON file (a byte-order mark, duplicate keys).
 */
import {readdirSync} from 'node:fs'
import {isAbsolute, join, relative, resolve, sep} from 'node:path'
import {isInside} from '../../kernel/fs/contain.js'
import {allChecks, formatOf, MANIFEST_FILES, type FormatChecks, type ManifestFormat} from '../../kernel/plugin/manifest-formats/index.js'
import {parseHooks, parseMcpServers} from '../../kernel/plugin/components.js'
import {entryKind} from '../../kernel/plugin/paths.js'
import {inspectPlugin} from '../../kernel/plugin/read.js'
import {PluginReport} from '../../kernel/plugin/report.js'
import type {ManifestKind, PluginModel} from '../../model/plugin.js'
import {hasErrors, type Problem} from '../../model/problems.js'
import {fixPlugin, type PluginFix} from './plugin-fix.js'
import {readJsonForChecks, schemaProblems, type JsonFileRead} from '../../kernel/plugin/plugin-json.js'
import {commandRules, hookEventRules, subagentRules, type RuleContext} from '../../kernel/plugin/manifest-formats/plugin-rules.js'

export interface ValidatePluginOptions {
  /** warnings fail too */
  strict?: boolean
  /** apply the mechanical repairs first, and report them */
  fix?: boolean
  /** the user's home, so a link into it is shown as `~/...` */
  home?: string
}

export interface PluginValidation {
  /** the plugin root, absolute */
  path: string
  name: string
  formats: ManifestKind[]
  strict: boolean
  valid: boolean
  errors: number
  warnings: number
  /** the names of what the plugin holds, by kind */
  components: {skills: string[]; subagents: string[]; mcpServers: string[]; hooks: string[]; commands: string[]; tools: string[]}
  /** files relative to the plugin root */
  problems: Problem[]
  /** what --fix changed (empty without --fix) */
  fixes: PluginFix[]
}

interface Found {
  /** symbolic links the reader found leading out of the plugin: nothing behind them is read again */
  outside: string[]
  code: Problem[]
  schema: Problem[]
  manifests: Array<JsonFileRead & {format: ManifestFormat}>
  checks: Map<string, FormatChecks>
}

const behindOutsideLink = (file: string, found: Found): boolean => found.outside.some((link) => isInside(link, file))

/** A shared file (npm's package.json) is only looked at when it carries a format's mark. */
const markedFormat = (file: string, root: string, claimed: (typeof MANIFEST_FILES)[number]): ManifestFormat | undefined => {
  const scratch: Problem[] = []
  return formatOf(claimed, readJsonForChecks(file, root, scratch)?.json)
}

const checkManifests = async (root: string, found: Found): Promise<void> => {
  for (const claimed of MANIFEST_FILES) {
    const file = join(root, claimed.path)
    if (entryKind(file) === 'missing' || behindOutsideLink(file, found)) continue
    if (claimed.shared && !markedFormat(file, root, claimed)) continue
    const read = readJsonForChecks(file, root, found.code)
    if (!read) continue
    const format = formatOf(claimed, read.json)
    if (!format) continue
    found.manifests.push({...read, format})
    found.schema.push(...(await schemaProblems(format.schema, read.json, file, format.name)))
    const ctx: RuleContext = {root, file, problems: found.code}
    await found.checks.get(format.id)!.rules(read.json, ctx)
  }
}

/** Hooks and MCP files: the conventional ones and those the manifests name (Claude's, Codex's). */
const checkDataFiles = (root: string, found: Found): void => {
  const files = {hooks: new Set([join(root, 'hooks', 'hooks.json')]), mcp: new Set([join(root, '.mcp.json')])}
  for (const manifest of found.manifests) {
    const named = found.checks.get(manifest.format.id)!.dataFiles?.(manifest.json)
    for (const raw of named?.hooks ?? []) files.hooks.add(resolve(root, raw))
    for (const raw of named?.mcp ?? []) files.mcp.add(resolve(root, raw))
  }
  for (const [kind, set] of Object.entries(files)) {
    for (const file of set) {
      if (!isInside(root, file) || entryKind(file) !== 'file' || behindOutsideLink(file, found)) continue
      const read = readJsonForChecks(file, root, found.code)
      if (!read) continue
      // the reader skips a conventional file when a manifest declares its own: check its shape anyway
      const report = new PluginReport()
      if (kind === 'hooks') {
        parseHooks(read.json, '', {file, report})
        hookEventRules(read.json, file, found.code)
      } else parseMcpServers(read.json, '', {file, report})
      found.code.push(...report.problems)
    }
  }
}

const checkParts = (model: PluginModel, manifests: ReadonlySet<string>, found: Found): void => {
  for (const subagent of model.subagents) if (!manifests.has(subagent.file)) subagentRules(subagent, found.code)
  for (const command of model.commands) commandRules(command, model.root, found.code)
}

/** `skills/*` folders holding a SKILL.md, whether or not a manifest names them. */
const conventionalSkillDirs = (root: string): string[] => {
  const dir = join(root, 'skills')
  if (entryKind(dir) !== 'dir') return []
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => entryKind(path) === 'dir' && entryKind(join(path, 'SKILL.md')) === 'file')
}

const at = (p: Problem) => `${p.file ?? ''}\u0000${p.path ?? ''}`

/**
 * One list, without repeats: the reader's problems first, then the code rules', then the schema's.
 * A later error at a path where the reader already found one says the same thing in other words
 * and is dropped; so is a schema problem where any error already stands. Text-level problems
 * (a duplicate key, a byte-order mark) are always kept.
 */
const merge = (reader: readonly Problem[], code: readonly Problem[], schema: readonly Problem[]): Problem[] => {
  const out: Problem[] = []
  const seen = new Set<string>()
  const readerErrors = new Set(reader.filter((p) => p.severity === 'error' && p.path).map(at))
  const errors = new Set<string>()
  const push = (p: Problem) => {
    const exact = `${at(p)}\u0000${p.code}\u0000${p.message}`
    if (seen.has(exact)) return
    seen.add(exact)
    out.push(p)
    if (p.severity === 'error' && p.path) errors.add(at(p))
  }
  reader.forEach(push)
  for (const p of code) if (p.code.startsWith('json-') || p.severity !== 'error' || !readerErrors.has(at(p))) push(p)
  for (const p of schema) if (!p.path || !errors.has(at(p))) push(p)
  return out
}

const shownFile = (root: string, file: string | undefined): string | undefined => {
  if (file === undefined || !isAbsolute(file) || !isInside(root, file)) return file
  return relative(root, file).split(sep).join('/') || '.'
}

/** Every problem of the plugin at `path`; with `fix`, the mechanical repairs are made first. */
export const validatePlugin = async (path: string, options: ValidatePluginOptions = {}): Promise<PluginValidation> => {
  const root = resolve(path)
  const readOptions = options.home ? {home: options.home} : {}
  const checks = await allChecks()
  let fixes: PluginFix[] = []
  if (options.fix) fixes = fixPlugin(root, checks, () => [...inspectPlugin(root, readOptions).model.skills.map((s) => s.dir), ...conventionalSkillDirs(root)])
  const {model} = inspectPlugin(root, readOptions)
  const outside = model.problems.flatMap((p) => (p.code === 'link-outside-root' && p.file ? [p.file] : []))
  const found: Found = {outside, code: [], schema: [], manifests: [], checks}
  await checkManifests(model.root, found)
  checkDataFiles(model.root, found)
  checkParts(model, new Set(found.manifests.map((m) => m.file)), found)
  if (found.manifests.length === 0) {
    found.code.push({
      severity: 'warning',
      code: 'manifest-missing',
      message: 'the plugin has no manifest: agents name it after its folder and find its parts by convention; `loadout plugin create` shows one',
      file: model.root,
    })
  }
  const parts = [model.skills, model.subagents, model.mcpServers, model.hooks, model.commands, model.tools]
  if (parts.every((list) => list.length === 0)) {
    found.code.push({
      severity: 'warning',
      code: 'plugin-empty',
      message: 'the plugin holds no skill, subagent, command, hook, MCP server or tool',
      file: model.root,
    })
  }
  // the reader only warns about a subagent without a description; validate says it is an error
  const reader = model.problems.filter((p) => p.code !== 'subagent-description-missing')
  const problems = merge(reader, found.code, found.schema).map((p) => {
    const file = shownFile(model.root, p.file)
    return file === undefined ? p : {...p, file}
  })
  const strict = options.strict === true
  const errors = problems.filter((p) => p.severity === 'error').length
  const names = (list: ReadonlyArray<{name: string}>) => list.map((c) => c.name)
  return {
    path: model.root,
    name: model.name,
    formats: model.manifests,
    strict,
    valid: !hasErrors(problems, strict),
    errors,
    warnings: problems.length - errors,
    components: {
      skills: names(model.skills),
      subagents: names(model.subagents),
      mcpServers: names(model.mcpServers),
      hooks: names(model.hooks),
      commands: names(model.commands),
      tools: names(model.tools),
    },
    problems,
    fixes,
  }
}
