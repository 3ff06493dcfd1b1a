/**
 * The cross-field rules of the Claude, Codex and cst-agent manifests, and of the files a plugin
 * ships beside them (subagents, commands, hooks), that neither the JSON Schemas nor the plugin
 * reader check: names per manifest, files that must exist, URL and path forms, tool parameter
 * schemas compiled for real.
 */
import {statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {readCatalog} from '../marketplace/catalog.js'
import {parseJsonBounded} from '../marketplace/json-depth.js'
import {isRecord, type Json} from '../plugin/components.js'
import {checkPluginName} from '../marketplace/names.js'
import {checkManifestPath, followedKind, jsonPathJoin, problemsOf, readContainedText, typeName} from '../plugin/paths.js'
import type {CommandComponent, SubagentComponent} from '../plugin/types.js'
import {problem, type Problem} from '../problems.js'
import {parseYamlMapping, splitFrontmatter} from '../skills/frontmatter.js'

export type ManifestFormat = 'claude' | 'codex' | 'cst-agent' | 'lexora'

export interface RuleContext {
  root: string
  file: string
  problems: Problem[]
}

const add = (ctx: RuleContext, severity: 'error' | 'warning', code: string, message: string, path?: string) =>
  ctx.problems.push(problem(severity, code, message, {file: ctx.file, ...(path ? {path} : {})}))

/** A semantic version: 1.2.3, with an optional pre-release and build. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/

/** `name` is kebab-case and `version` semver, in whichever manifest they appear. */
export const checkIdentity = (json: Json, ctx: RuleContext): void => {
  if (typeof json.name === 'string' && json.name !== '') {
    const broken = checkPluginName(json.name)
    if (broken) add(ctx, 'error', 'manifest-name-invalid', `plugin name ${JSON.stringify(json.name)} ${broken}`, 'name')
  }
  if (typeof json.version === 'string' && json.version !== '' && !SEMVER.test(json.version)) {
    add(ctx, 'warning', 'manifest-version-not-semver', `"version" is ${JSON.stringify(json.version)}, not a semantic version such as "1.0.0"; updates compare versions`, 'version')
  }
}

/** The string paths under `key`: a string, or the strings of a list, each with its JSON path. */
export const pathsAt = (json: Json, key: string, base = ''): Array<{raw: string; at: string}> => {
  const value = json[key]
  const at = jsonPathJoin(base, key)
  if (typeof value === 'string') return [{raw: value, at}]
  if (Array.isArray(value)) return value.flatMap((raw, i) => (typeof raw === 'string' ? [{raw, at: jsonPathJoin(at, i)}] : []))
  return []
}

const isUrl = (raw: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)

/**
 * A path the plugin reader does not read (Codex `hooks` and `apps`, Claude `outputStyles` and
 * `lspServers`, interface assets): the same path rules, and it must exist.
 */
export const checkPathExists = (raw: string, at: string, requireDotSlash: boolean, ctx: RuleContext, alsoPathRules = true): void => {
  let abs: string
  try {
    abs = checkManifestPath(raw, {root: ctx.root, file: ctx.file, jsonPath: at, requireDotSlash})
  } catch (error) {
    const found = problemsOf(error)
    if (!found) throw error
    if (alsoPathRules) ctx.problems.push(...found)
    return
  }
  if (followedKind(abs) === 'missing') add(ctx, 'error', 'path-missing', `path ${JSON.stringify(raw)} does not exist`, at)
}

/** A trailing `/` on a path that names a file: Claude Code and Codex look for a folder there. */
export const checkTrailingSlash = (raw: string, at: string, ctx: RuleContext): void => {
  if (!/[\\/]$/.test(raw) || /^\.?[\\/]*$/.test(raw) || isUrl(raw)) return
  let abs: string
  try {
    abs = checkManifestPath(raw.replace(/[\\/]+$/, ''), {root: ctx.root, file: ctx.file, jsonPath: at, requireDotSlash: false})
  } catch {
    return
  }
  if (followedKind(abs) === 'file') add(ctx, 'warning', 'path-trailing-slash', `path ${JSON.stringify(raw)} ends with "/" but names a file (--fix removes it)`, at)
}

export const CLAUDE_PATH_FIELDS = ['skills', 'agents', 'commands', 'outputStyles', 'hooks', 'mcpServers', 'lspServers'] as const
/** Claude fields the plugin reader does not read, whose files must still exist. */
const CLAUDE_UNREAD = new Set(['outputStyles', 'lspServers'])

export const claudeRules = (json: Json, ctx: RuleContext): void => {
  checkIdentity(json, ctx)
  for (const key of CLAUDE_PATH_FIELDS) {
    for (const {raw, at} of pathsAt(json, key)) {
      checkTrailingSlash(raw, at, ctx)
      if (CLAUDE_UNREAD.has(key)) checkPathExists(raw, at, true, ctx)
    }
  }
}

export const CODEX_ASSET_FIELDS = ['composerIcon', 'logo', 'logoDark'] as const
const CODEX_URL_FIELDS = ['websiteURL', 'privacyPolicyURL', 'termsOfServiceURL'] as const

export const codexRules = (json: Json, ctx: RuleContext): void => {
  checkIdentity(json, ctx)
  for (const key of ['skills', 'mcpServers']) for (const {raw, at} of pathsAt(json, key)) checkTrailingSlash(raw, at, ctx)
  for (const key of ['hooks', 'apps']) {
    for (const {raw, at} of pathsAt(json, key)) {
      checkTrailingSlash(raw, at, ctx)
      checkPathExists(raw, at, true, ctx)
    }
  }
  const ui = json.interface
  if (!isRecord(ui)) return
  for (const key of CODEX_ASSET_FIELDS) {
    // the reader checks composerIcon and logo for ./ and containment; only their existence is left
    for (const {raw, at} of pathsAt(ui, key, 'interface')) if (!isUrl(raw)) checkPathExists(raw, at, true, ctx, key === 'logoDark')
  }
  for (const {raw, at} of pathsAt(ui, 'screenshots', 'interface')) if (!isUrl(raw)) checkPathExists(raw, at, true, ctx, false)
  for (const key of CODEX_URL_FIELDS) {
    const value = ui[key]
    if (typeof value !== 'string') continue
    let url: URL | undefined
    try {
      url = new URL(value)
    } catch {
      url = undefined
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      add(ctx, 'error', 'codex-interface-url', `"${key}" is ${JSON.stringify(value)}, not an http(s) URL`, jsonPathJoin('interface', key))
    }
  }
  if (typeof ui.defaultPrompt === 'string' && ui.defaultPrompt.trim() === '') add(ctx, 'error', 'manifest-field-empty', '"defaultPrompt" is empty', 'interface.defaultPrompt')
}

/** A Codex marketplace beside the plugin, found by walking up at most this many folders. */
const MARKETPLACE_DEPTH = 6
const CODEX_MARKETPLACE = join('.agents', 'plugins', 'marketplace.json')
const catalogs = new Map<string, {stamp: string; entries: Array<{name: string; path: string}>}>()

/** The local entries of the Codex marketplace at `file` (cached while its size and mtime stay). */
const codexEntries = (file: string, root: string): Array<{name: string; path: string}> => {
  let entries: Array<{name: string; path: string}> = []
  let stamp = ''
  try {
    const stat = statSync(file)
    stamp = `${stat.size}:${stat.mtimeMs}`
    const cached = catalogs.get(file)
    if (cached?.stamp === stamp) return cached.entries
    const text = readContainedText(file, {root, file, maxBytes: 10 * 1024 * 1024})
    const {catalog} = readCatalog(parseJsonBounded(text, file), {file, origin: 'local', format: 'codex'})
    entries = catalog.plugins.flatMap((e) => (e.source.kind === 'relative' || e.source.kind === 'local' ? [{name: e.name, path: resolve(root, e.source.path)}] : []))
  } catch {
    // a broken catalog is `marketplace validate`'s to report; here it names no plugin
  }
  catalogs.set(file, {stamp, entries})
  return entries
}

/**
 * Codex lists a plugin under its marketplace entry's name, so the manifest's name must be the
 * same. The entry is looked for in the nearest `.agents/plugins/marketplace.json` above the plugin.
 */
export const codexMarketplaceRule = (json: Json, ctx: RuleContext): void => {
  if (typeof json.name !== 'string') return
  let dir = dirname(ctx.root)
  for (let depth = 0; depth < MARKETPLACE_DEPTH; depth++) {
    const file = join(dir, CODEX_MARKETPLACE)
    if (followedKind(file) === 'file') {
      const entry = codexEntries(file, dir).find((e) => e.path === ctx.root)
      if (entry && entry.name !== json.name) {
        add(ctx, 'error', 'codex-name-mismatch', `name ${JSON.stringify(json.name)} differs from the plugin's entry ${JSON.stringify(entry.name)} in ${relative(ctx.root, file)}; Codex knows the plugin by its entry's name, so the two must be equal`, 'name')
      }
      return
    }
    const up = dirname(dir)
    if (up === dir) return
    dir = up
  }
}

// ---------------------------------------------------------------------------------------------
// cst-agent

const MAX_TOOL_NAME_BYTES = 63

/** A word of a tool command that names a plugin file: `scripts/run.sh`, `tools/x.mjs`. */
const PLUGIN_FILE = /^[\w.@+-]+(\/[\w.@+-]+)+$/

interface SchemaCompiler {
  compile(schema: object): unknown
}

/** ajv is CommonJS: seen from ESM, its class is the module's `default.default`. Loaded on first use only. */
const newAjv = async (): Promise<SchemaCompiler> => {
  const mod = await import('ajv')
  return new mod.default.default({strict: false, allErrors: true})
}

let sharedAjv: Promise<SchemaCompiler> | undefined
const compiled = new Map<string, string | undefined>()

/**
 * Why `schema` is not a JSON Schema ajv can compile, or undefined. One ajv instance serves every
 * schema (making one costs more than compiling); a schema with its own `$id` gets a fresh one,
 * since an instance refuses a second schema under an id it has seen.
 */
const compileSchema = async (schema: Json): Promise<string | undefined> => {
  const key = JSON.stringify(schema)
  if (compiled.has(key)) return compiled.get(key)
  sharedAjv ??= newAjv()
  const ajv = key.includes('"$id"') ? await newAjv() : await sharedAjv
  let broken: string | undefined
  try {
    ajv.compile(schema)
  } catch (error) {
    broken = error instanceof Error ? error.message.split('\n')[0] : String(error)
  }
  compiled.set(key, broken)
  return broken
}

const checkToolFiles = (tool: Json, at: string, ctx: RuleContext): void => {
  const words = Array.isArray(tool.command) ? tool.command.filter((w): w is string => typeof w === 'string') : typeof tool.command === 'string' ? tool.command.trim().split(/\s+/) : []
  words.forEach((word, i) => {
    if (!PLUGIN_FILE.test(word) || word.split('/').includes('..')) return
    const where = Array.isArray(tool.command) ? jsonPathJoin(jsonPathJoin(at, 'command'), i) : jsonPathJoin(at, 'command')
    if (followedKind(join(ctx.root, word)) !== 'missing') return
    if (i === 0) add(ctx, 'error', 'path-missing', `the tool's program ${JSON.stringify(word)} does not exist in the plugin`, where)
    else add(ctx, 'warning', 'tool-file-missing', `the tool's command names ${JSON.stringify(word)}, which does not exist in the plugin`, where)
  })
}

export const cstAgentRules = async (json: Json, ctx: RuleContext): Promise<void> => {
  checkIdentity(json, ctx)
  if (!Array.isArray(json.tools)) return
  for (const [i, tool] of json.tools.entries()) {
    if (!isRecord(tool)) continue
    const at = jsonPathJoin('tools', i)
    if (typeof tool.name === 'string') {
      const bytes = Buffer.byteLength(tool.name, 'utf8')
      if (bytes > MAX_TOOL_NAME_BYTES) {
        add(ctx, 'error', 'tool-name-too-long', `tool name is ${bytes} bytes; cst-agent allows at most ${MAX_TOOL_NAME_BYTES} (a longer one is cut, and two cut names can collide)`, jsonPathJoin(at, 'name'))
      }
    }
    if ('parameters' in tool && 'inputSchema' in tool) {
      add(ctx, 'error', 'tool-parameters-both', 'the tool has both "parameters" and "inputSchema"; give one', jsonPathJoin(at, 'inputSchema'))
    }
    const key = 'parameters' in tool ? 'parameters' : 'inputSchema'
    const schema = tool[key]
    if (isRecord(schema)) {
      const broken = await compileSchema(schema)
      if (broken) add(ctx, 'error', 'tool-parameters-not-schema', `"${key}" is not a valid JSON Schema: ${broken}`, jsonPathJoin(at, key))
      else if (schema.type !== undefined && schema.type !== 'object') {
        add(ctx, 'warning', 'tool-parameters-not-object', `"${key}" describes ${JSON.stringify(schema.type)}, but a tool's arguments are a JSON object ("type": "object")`, jsonPathJoin(jsonPathJoin(at, key), 'type'))
      }
    }
    checkToolFiles(tool, at, ctx)
  }
}

// ---------------------------------------------------------------------------------------------
// Subagents, commands, hooks

/**
 * A subagent's frontmatter, beyond what the reader checks: a description (Claude Code requires
 * one to decide when to call it), `tools` a comma list or a list, `model` text, and cst-agent's
 * `readonly` and `max_steps` of the right types.
 */
export const subagentRules = (subagent: SubagentComponent, problems: Problem[]): void => {
  const fm = subagent.frontmatter
  const file = subagent.file
  const fail = (code: string, message: string) => problems.push(problem('error', code, message, {file}))
  if (typeof fm.description !== 'string' || fm.description.trim() === '') {
    fail('subagent-description-missing', `subagent "${subagent.name}" needs a "description" in its frontmatter; agents use it to decide when to call the subagent`)
  }
  if ('tools' in fm && fm.tools !== null) {
    const ok = typeof fm.tools === 'string' || (Array.isArray(fm.tools) && fm.tools.every((t) => typeof t === 'string'))
    if (!ok) fail('subagent-tools-invalid', `"tools" must be a comma-separated string or a list of tool names, not ${typeName(fm.tools)}`)
  }
  if ('model' in fm && fm.model !== null && typeof fm.model !== 'string') fail('subagent-model-invalid', `"model" must be a model name (a string), not ${typeName(fm.model)}`)
  if ('readonly' in fm && typeof fm.readonly !== 'boolean') fail('subagent-readonly-invalid', `"readonly" must be true or false, not ${typeName(fm.readonly)}`)
  if ('max_steps' in fm && !(Number.isInteger(fm.max_steps) && (fm.max_steps as number) > 0)) {
    fail('subagent-max-steps-invalid', `"max_steps" must be a positive whole number, not ${JSON.stringify(fm.max_steps)}`)
  }
}

/** A command's optional frontmatter must parse when it is there. */
export const commandRules = (command: CommandComponent, root: string, problems: Problem[]): void => {
  let text: string
  try {
    text = readContainedText(command.file, {root, file: command.file, maxBytes: 10 * 1024 * 1024})
  } catch (error) {
    const found = problemsOf(error)
    if (!found) throw error
    problems.push(...found)
    return
  }
  const split = splitFrontmatter(text)
  const file = command.file
  if (split.kind === 'missing') return
  if (split.kind !== 'ok') {
    problems.push(problem('error', `frontmatter-${split.kind}`, split.kind === 'unclosed' ? 'the frontmatter opens with --- but never closes' : 'the frontmatter must open with --- on the very first line', {file}))
    return
  }
  const parsed = parseYamlMapping(split.yaml)
  if (!parsed.ok) problems.push(problem('error', parsed.code, parsed.message, {file}))
  else if ('description' in parsed.value && typeof parsed.value.description !== 'string') {
    problems.push(problem('error', 'command-description-invalid', `"description" must be a string, not ${typeName(parsed.value.description)}`, {file}))
  }
}

/** The events Claude Code fires (and Codex, Gemini CLI and Deep Agents Code take in Claude's names). */
export const HOOK_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
  'Notification',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'SessionStart',
  'SessionEnd',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'ConfigChange',
  'CwdChanged',
  'FileChanged',
  'InstructionsLoaded',
  'WorktreeCreate',
  'WorktreeRemove',
  'Elicitation',
  'ElicitationResult',
])

/** Event names no agent fires (a typo such as `PreToolUSe`) are warnings: the hook would never run. */
export const hookEventRules = (value: unknown, file: string, problems: Problem[]): void => {
  if (!isRecord(value)) return
  const wrapped = isRecord(value.hooks)
  const events = wrapped ? (value.hooks as Json) : value
  for (const event of Object.keys(events)) {
    if (HOOK_EVENTS.has(event)) continue
    if (!wrapped && event === 'description') continue
    const near = [...HOOK_EVENTS].find((known) => known.toLowerCase() === event.toLowerCase())
    problems.push(
      problem('warning', 'hook-event-unknown', `"${event}" is not a hook event any agent fires, so its hooks never run${near ? `; did you mean "${near}"?` : ''}`, {
        file,
        path: jsonPathJoin(wrapped ? 'hooks' : '', event),
      }),
    )
  }
}
