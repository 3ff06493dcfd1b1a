/**
 * The cross-field rules every manifest format shares (a kebab-case name, a semver version, path
 * forms, files that must exist), and those of the files a plugin ships beside its manifests
 * (subagents, commands, hooks), that neither the JSON Schemas nor the plugin reader check. Each
 * format's own rules live in its folder under src/core/manifest-formats/.
 */
import {isRecord, type Json} from '../components.js'
import {checkPluginName} from '../../text/names.js'
import {checkManifestPath, followedKind, problemsOf, readContainedText, typeName} from '../paths.js'
import {jsonPathJoin} from '../../json/path.js'
import type {CommandComponent, SubagentComponent} from '../../../model/plugin.js'
import {problem, type Problem} from '../../../model/problems.js'
import {parseYamlMapping, splitFrontmatter} from '../../text/frontmatter.js'

export interface RuleContext {
  root: string
  file: string
  problems: Problem[]
}

export const add = (ctx: RuleContext, severity: 'error' | 'warning', code: string, message: string, path?: string) =>
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
    add(
      ctx,
      'warning',
      'manifest-version-not-semver',
      `"version" is ${JSON.stringify(json.version)}, not a semantic version such as "1.0.0"; updates compare versions`,
      'version',
    )
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

export const isUrl = (raw: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)

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
  if (followedKind(abs) === 'file')
    add(ctx, 'warning', 'path-trailing-slash', `path ${JSON.stringify(raw)} ends with "/" but names a file (--fix removes it)`, at)
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
    fail(
      'subagent-description-missing',
      `subagent "${subagent.name}" needs a "description" in its frontmatter; agents use it to decide when to call the subagent`,
    )
  }
  if ('tools' in fm && fm.tools !== null) {
    const ok = typeof fm.tools === 'string' || (Array.isArray(fm.tools) && fm.tools.every((t) => typeof t === 'string'))
    if (!ok) fail('subagent-tools-invalid', `"tools" must be a comma-separated string or a list of tool names, not ${typeName(fm.tools)}`)
  }
  if ('model' in fm && fm.model !== null && typeof fm.model !== 'string')
    fail('subagent-model-invalid', `"model" must be a model name (a string), not ${typeName(fm.model)}`)
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
    problems.push(
      problem(
        'error',
        `frontmatter-${split.kind}`,
        split.kind === 'unclosed' ? 'the frontmatter opens with --- but never closes' : 'the frontmatter must open with --- on the very first line',
        {file},
      ),
    )
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
      problem(
        'warning',
        'hook-event-unknown',
        `"${event}" is not a hook event any agent fires, so its hooks never run${near ? `; did you mean "${near}"?` : ''}`,
        {
          file,
          path: jsonPathJoin(wrapped ? 'hooks' : '', event),
        },
      ),
    )
  }
}
