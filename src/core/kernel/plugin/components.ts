/**
 * Shape checks for the parts of a plugin that are data: MCP servers, hooks, subagent files and
 * cst-agent exec tools. Each takes the untrusted value and the JSON path it sits at, records every
 * broken rule in the report, and returns only what it could read whole.
 */
import {nfkcRule} from '../text/name-skeleton.js'
import {basename, extname} from 'node:path'
import {splitFrontmatter, parseYamlLeniently, type YamlMapping} from '../text/frontmatter.js'
import {lenientMessage} from '../skills/validate.js'
import {checkSkillName} from '../skills/name.js'
import {problem} from '../../model/problems.js'
import {readContainedText, typeName} from './paths.js'
import {jsonPathJoin} from '../json/path.js'
import type {PluginReport} from './report.js'
import type {HookCommand, HookEvents, HookMatcher, McpComponent, McpServerConfig, SubagentComponent, ToolComponent} from '../../model/plugin.js'

export type Json = Record<string, unknown>

export const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

export interface ParseContext {
  file: string
  report: PluginReport
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')
const isStringMap = (value: unknown): value is Record<string, string> => isRecord(value) && Object.values(value).every((v) => typeof v === 'string')

// ---------------------------------------------------------------------------------------------
// MCP servers

const USER_CONFIG_TOKEN = /\$\{user_config\.[A-Za-z_][A-Za-z0-9_]*\}/

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** Why an MCP server URL is refused, as [code, rule], or undefined when it is https or loopback http. */
export const mcpUrlRule = (url: string): [string, string] | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return ['mcp-url-invalid', `url ${JSON.stringify(url)} is not an absolute URL`]
  }
  if (parsed.username || parsed.password)
    return ['mcp-url-credentials', 'url has a user name or password in it; pass credentials through headers or the environment']
  if (parsed.protocol === 'https:') return undefined
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return undefined
  if (parsed.protocol === 'http:')
    return ['mcp-url-insecure', `url ${JSON.stringify(url)} is plain http; use https (http is allowed only for 127.0.0.1 or localhost)`]
  return ['mcp-url-scheme', `url ${JSON.stringify(url)} must be https (or http on 127.0.0.1 or localhost), not ${parsed.protocol.replace(/:$/, '')}`]
}

export interface McpParseOptions extends ParseContext {
  /** the agent that runs stdio servers only (cst-agent): an entry with `url` is an error that names it */
  stdioOnly?: string
}

/** Reads the optional fields every transport may carry; records wrong types. */
const mcpCommonFields = (raw: Json, at: string, options: McpParseOptions, config: McpServerConfig): boolean => {
  let ok = true
  const wrong = (key: string, rule: string) => {
    ok = false
    options.report.error('mcp-field-invalid', `"${key}" ${rule}`, {file: options.file, path: jsonPathJoin(at, key)})
  }
  if ('disabled' in raw) {
    if (typeof raw.disabled === 'boolean') config.disabled = raw.disabled
    else wrong('disabled', 'must be true or false')
  }
  if ('autoApprove' in raw) {
    if (raw.autoApprove === true || isStringList(raw.autoApprove)) config.autoApprove = raw.autoApprove
    else wrong('autoApprove', 'must be true or a list of tool names')
  }
  nativeFields(raw, at, options, config)
  return ok
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Codex's own fields and Claude's `oauth`: kept when well formed, otherwise dropped with a warning. */
const nativeFields = (raw: Json, at: string, options: McpParseOptions, config: McpServerConfig): void => {
  const drop = (key: string, rule: string) =>
    options.report.warn('mcp-field-dropped', `"${key}" ${rule}; the field is left out`, {file: options.file, path: jsonPathJoin(at, key)})
  if ('bearer_token_env_var' in raw) {
    if (typeof raw.bearer_token_env_var === 'string' && ENV_NAME.test(raw.bearer_token_env_var)) config.bearerTokenEnvVar = raw.bearer_token_env_var
    else drop('bearer_token_env_var', 'must name an environment variable')
  }
  if ('env_http_headers' in raw) {
    if (isStringMap(raw.env_http_headers) && Object.values(raw.env_http_headers).every((v) => ENV_NAME.test(v))) config.envHttpHeaders = raw.env_http_headers
    else drop('env_http_headers', 'must map header names to environment variable names')
  }
  if ('env_vars' in raw) {
    if (isStringList(raw.env_vars) && raw.env_vars.every((v) => ENV_NAME.test(v))) config.envVars = raw.env_vars
    else drop('env_vars', 'must be a list of environment variable names')
  }
  for (const [key, field] of [
    ['tool_timeout_sec', 'toolTimeoutSec'],
    ['startup_timeout_sec', 'startupTimeoutSec'],
  ] as const) {
    if (!(key in raw)) continue
    const value = raw[key]
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) config[field] = value
    else drop(key, 'must be a positive number of seconds')
  }
  if ('oauth' in raw) {
    if (isRecord(raw.oauth)) config.oauth = raw.oauth
    else drop('oauth', 'must be an object')
  }
  // never dropped: without them the server would offer more than its author allowed
  const narrowing = NARROWING_FIELDS.filter((key) => key in raw)
  if (narrowing.length > 0) config.narrowing = narrowing
}

const NARROWING_FIELDS = ['allowedTools', 'disabledTools', 'auth'] as const

const stdioServer = (raw: Json, at: string, options: McpParseOptions): McpServerConfig | undefined => {
  const {report, file} = options
  const config: McpServerConfig = {}
  let ok = true
  const wrong = (key: string, rule: string) => {
    ok = false
    report.error('mcp-field-invalid', `"${key}" ${rule}`, {file, path: jsonPathJoin(at, key)})
  }
  if (raw.type !== undefined && raw.type !== 'stdio') wrong('type', `is ${JSON.stringify(raw.type)}, but a server with "command" runs over stdio`)
  if (typeof raw.command !== 'string' || raw.command.trim() === '') wrong('command', 'must be a non-empty string')
  else config.command = raw.command
  if (raw.type === 'stdio') config.type = 'stdio'
  if ('args' in raw) {
    if (isStringList(raw.args)) config.args = raw.args
    else wrong('args', 'must be a list of strings')
  }
  if ('env' in raw) {
    if (isStringMap(raw.env)) config.env = raw.env
    else wrong('env', 'must map names to string values')
  }
  if ('cwd' in raw) {
    if (typeof raw.cwd === 'string') config.cwd = raw.cwd
    else wrong('cwd', 'must be a string')
  }
  return mcpCommonFields(raw, at, options, config) && ok ? config : undefined
}

const remoteServer = (raw: Json, at: string, options: McpParseOptions): McpServerConfig | undefined => {
  const {report, file} = options
  const config: McpServerConfig = {}
  let ok = true
  const wrong = (key: string, code: string, rule: string) => {
    ok = false
    report.error(code, rule, {file, path: jsonPathJoin(at, key)})
  }
  if (raw.type === undefined) config.type = 'http'
  else if (raw.type === 'http' || raw.type === 'sse') config.type = raw.type
  else wrong('type', 'mcp-type-invalid', `"type" is ${JSON.stringify(raw.type)}; a server with "url" is "http" or "sse"`)
  if (typeof raw.url !== 'string') wrong('url', 'mcp-url-invalid', '"url" must be a string')
  else {
    // a url built from the plugin's options is checked once they are filled in, when the install is planned
    const broken = USER_CONFIG_TOKEN.test(raw.url) ? undefined : mcpUrlRule(raw.url)
    if (broken) wrong('url', broken[0], broken[1])
    else config.url = raw.url
  }
  if ('headers' in raw) {
    if (isStringMap(raw.headers)) config.headers = raw.headers
    else wrong('headers', 'mcp-field-invalid', '"headers" must map names to string values')
  }
  return mcpCommonFields(raw, at, options, config) && ok ? config : undefined
}

/** One server entry: stdio (`command`) or remote (`url`); exactly one of them. */
export const parseMcpServer = (name: string, raw: unknown, at: string, options: McpParseOptions): McpComponent | undefined => {
  const {report, file} = options
  if (!isRecord(raw)) {
    report.error('mcp-server-not-object', `MCP server "${name}" must be an object, not ${typeName(raw)}`, {file, path: at})
    return undefined
  }
  if (name.trim() === '') {
    report.error('mcp-server-name-empty', 'an MCP server has an empty name', {file, path: at})
    return undefined
  }
  const notNormal = nfkcRule(name)
  if (notNormal) {
    report.error('mcp-server-name-not-normalized', `MCP server name ${JSON.stringify(name)} ${notNormal}`, {file, path: at})
    return undefined
  }
  const hasUrl = 'url' in raw
  const hasCommand = 'command' in raw
  if (hasUrl && options.stdioOnly) {
    report.error('mcp-stdio-only', `MCP server "${name}" has a "url", but ${options.stdioOnly} runs MCP servers over stdio only (give "command" instead)`, {
      file,
      path: jsonPathJoin(at, 'url'),
    })
    return undefined
  }
  if (hasUrl && hasCommand) {
    report.error('mcp-server-ambiguous', `MCP server "${name}" has both "command" and "url"; give one`, {file, path: at})
    return undefined
  }
  if (!hasUrl && !hasCommand) {
    report.error('mcp-server-no-transport', `MCP server "${name}" needs "command" (stdio) or "url" (http or sse)`, {file, path: at})
    return undefined
  }
  const config = hasCommand ? stdioServer(raw, at, options) : remoteServer(raw, at, options)
  return config ? {kind: 'mcp', name, config} : undefined
}

/** `{"mcpServers": {...}}` or a bare map of servers, found at `at`. */
/**
 * The most MCP servers one plugin may hold (all its files together). Real plugins hold a handful; each
 * server is a program the agent starts, shown one by one for consent.
 */
export const MAX_MCP_SERVERS = 256

export const tooManyMcpServers = (count: number): string => `the plugin defines ${count} MCP servers; the limit is ${MAX_MCP_SERVERS}`

export const parseMcpServers = (value: unknown, at: string, options: McpParseOptions): McpComponent[] => {
  if (!isRecord(value)) {
    options.report.error('mcp-config-not-object', `MCP servers must be an object of named servers, not ${typeName(value)}`, {
      file: options.file,
      ...(at ? {path: at} : {}),
    })
    return []
  }
  const wrapped = isRecord(value.mcpServers)
  const servers = wrapped ? (value.mcpServers as Json) : value
  const base = wrapped ? jsonPathJoin(at, 'mcpServers') : at
  const count = Object.keys(servers).length
  if (count > MAX_MCP_SERVERS) {
    options.report.error('too-many-mcp-servers', tooManyMcpServers(count), {file: options.file, ...(base ? {path: base} : {})})
    return []
  }
  return Object.entries(servers).flatMap(([name, raw]) => parseMcpServer(name, raw, jsonPathJoin(base, name), options) ?? [])
}

// ---------------------------------------------------------------------------------------------
// Hooks

const hookCommand = (raw: unknown, at: string, ctx: ParseContext): HookCommand | undefined => {
  const {report, file} = ctx
  if (!isRecord(raw)) {
    report.error('hook-not-object', `a hook must be an object, not ${typeName(raw)}`, {file, path: at})
    return undefined
  }
  if (raw.type === 'prompt') {
    if (typeof raw.prompt !== 'string' || raw.prompt.trim() === '') {
      report.error('hook-prompt-invalid', '"prompt" must be a non-empty string', {file, path: jsonPathJoin(at, 'prompt')})
      return undefined
    }
    return withTimeout({type: 'prompt', prompt: raw.prompt}, raw, at, ctx)
  }
  if (raw.type !== 'command') {
    if (typeof raw.type === 'string') {
      report.warn('hook-type-unsupported', `hook type ${JSON.stringify(raw.type)} is not installed by loadout (only "command" and "prompt"); skipped`, {
        file,
        path: jsonPathJoin(at, 'type'),
      })
    } else report.error('hook-type-missing', 'a hook needs "type": "command"', {file, path: jsonPathJoin(at, 'type')})
    return undefined
  }
  if (typeof raw.command !== 'string' || raw.command.trim() === '') {
    report.error('hook-command-invalid', '"command" must be a non-empty string', {file, path: jsonPathJoin(at, 'command')})
    return undefined
  }
  const hook: HookCommand = {type: 'command', command: raw.command}
  if (typeof raw.async === 'boolean') hook.async = raw.async
  if (typeof raw.shell === 'string' && raw.shell.trim() !== '') hook.shell = raw.shell
  return withTimeout(hook, raw, at, ctx)
}

const withTimeout = (hook: HookCommand, raw: Json, at: string, ctx: ParseContext): HookCommand | undefined => {
  const {report, file} = ctx
  if ('timeout' in raw) {
    if (typeof raw.timeout !== 'number' || !Number.isFinite(raw.timeout) || raw.timeout <= 0) {
      report.error('hook-timeout-invalid', '"timeout" must be a positive number of seconds', {file, path: jsonPathJoin(at, 'timeout')})
      return undefined
    }
    hook.timeout = raw.timeout
  }
  return hook
}

const hookMatcher = (raw: unknown, at: string, ctx: ParseContext): HookMatcher | undefined => {
  const {report, file} = ctx
  if (!isRecord(raw)) {
    report.error('hook-matcher-not-object', `a matcher must be an object with "hooks", not ${typeName(raw)}`, {file, path: at})
    return undefined
  }
  if ('matcher' in raw && typeof raw.matcher !== 'string') {
    report.error('hook-matcher-invalid', '"matcher" must be a string', {file, path: jsonPathJoin(at, 'matcher')})
    return undefined
  }
  if (!Array.isArray(raw.hooks)) {
    report.error('hook-list-missing', '"hooks" must be a list of hooks', {file, path: jsonPathJoin(at, 'hooks')})
    return undefined
  }
  const hooks = raw.hooks.flatMap((h, i) => hookCommand(h, jsonPathJoin(jsonPathJoin(at, 'hooks'), i), ctx) ?? [])
  if (hooks.length === 0) return undefined
  return typeof raw.matcher === 'string' ? {matcher: raw.matcher, hooks} : {hooks}
}

/** `{"hooks": {Event: [{matcher?, hooks: [{type: "command", command, timeout?}]}]}}`, or the bare event map. */
export const parseHooks = (value: unknown, at: string, ctx: ParseContext): HookEvents => {
  const {report, file} = ctx
  if (!isRecord(value)) {
    report.error('hooks-not-object', `hooks must be an object of events, not ${typeName(value)}`, {file, ...(at ? {path: at} : {})})
    return {}
  }
  const wrapped = isRecord(value.hooks)
  const events = wrapped ? (value.hooks as Json) : value
  const base = wrapped ? jsonPathJoin(at, 'hooks') : at
  const result: HookEvents = {}
  for (const [event, matchers] of Object.entries(events)) {
    const eventAt = jsonPathJoin(base, event)
    if (!Array.isArray(matchers)) {
      report.error('hook-event-not-list', `event "${event}" must be a list of matchers`, {file, path: eventAt})
      continue
    }
    const read = matchers.flatMap((m, i) => hookMatcher(m, jsonPathJoin(eventAt, i), ctx) ?? [])
    if (read.length > 0) result[event] = read
  }
  return result
}

// ---------------------------------------------------------------------------------------------
// Subagents

export const MAX_MARKDOWN_BYTES = 10 * 1024 * 1024

/** A subagent or tool name becomes a file name or a config key: it must be a plain kebab name. */
export const checkComponentName = (name: string, what: string, ctx: ParseContext, at?: string): boolean => {
  const broken = checkSkillName(name)
  if (!broken) return true
  ctx.report.error(`${what}-name-invalid`, `${what} ${broken.message}`, {file: ctx.file, ...(at ? {path: at} : {})})
  return false
}

const frontmatterOf = (text: string, file: string, report: PluginReport): {frontmatter: YamlMapping; body: string} => {
  const split = splitFrontmatter(text)
  if (split.kind === 'missing') {
    report.warn('subagent-frontmatter-missing', 'no YAML frontmatter: the name is taken from the file name and there is no description', {file})
    return {frontmatter: {}, body: text}
  }
  if (split.kind !== 'ok') {
    const why = split.kind === 'unclosed' ? 'opens with --- but never closes' : 'must open with --- on the very first line'
    report.carry([problem('error', `frontmatter-${split.kind}`, `the frontmatter ${why}`, {file})])
    return {frontmatter: {}, body: text}
  }
  const parsed = parseYamlLeniently(split.yaml)
  if (!parsed.ok) {
    report.carry([problem('error', parsed.code, parsed.message, {file})])
    return {frontmatter: {}, body: split.body}
  }
  if (parsed.lenientKeys) report.carry([problem('error', 'frontmatter-yaml-lenient', lenientMessage(parsed.lenientKeys), {file})])
  return {frontmatter: parsed.value, body: split.body}
}

const UNSAFE_NAME = new Set(['name-has-separator', 'name-has-dotdot', 'name-leading-dot'])

/** The file name stands in for a frontmatter name that is not a kebab name but is harmless (spaces, capitals). */
const nameStandsIn = (name: string, fileName: string): boolean => {
  const broken = checkSkillName(name)
  return broken !== undefined && !UNSAFE_NAME.has(broken.code) && checkSkillName(fileName) === undefined
}

/** Reads one subagent .md: frontmatter (name defaults to the file name; description expected), body = prompt. */
export const readSubagentFile = (abs: string, root: string, ctx: ParseContext & {jsonPath?: string}): SubagentComponent | undefined => {
  const {report} = ctx
  const text = report.attempt(() =>
    readContainedText(abs, {root, file: ctx.file, ...(ctx.jsonPath ? {jsonPath: ctx.jsonPath} : {}), maxBytes: MAX_MARKDOWN_BYTES}),
  )
  if (text === undefined) return undefined
  const {frontmatter, body} = frontmatterOf(text, abs, report)
  const fileName = basename(abs, extname(abs))
  let name = fileName
  if ('name' in frontmatter) {
    if (typeof frontmatter.name !== 'string') {
      report.carry([problem('error', 'name-not-string', `"name" must be a string, not ${typeName(frontmatter.name)}; the file name is used`, {file: abs})])
    } else if (!nameStandsIn(frontmatter.name, fileName)) name = frontmatter.name
    else {
      // as the agents do with a name they cannot use as one: the file's own name stands in
      const broken = checkSkillName(frontmatter.name)!
      report.carry([problem('error', 'subagent-name-invalid', `subagent ${broken.message}; "${fileName}" (the file name) is used`, {file: abs})])
    }
  }
  if (!checkComponentName(name, 'subagent', {file: abs, report})) return undefined
  if (typeof frontmatter.description !== 'string' || frontmatter.description.trim() === '') {
    report.warn('subagent-description-missing', `subagent "${name}" has no "description"; agents use it to decide when to call it`, {file: abs})
  }
  return {kind: 'subagent', name, file: abs, frontmatter, body}
}

// ---------------------------------------------------------------------------------------------
// cst-agent exec tools

export const TOOL_PERMS = ['read', 'write', 'net', 'shell'] as const
export const DEFAULT_TOOL_TIMEOUT = 60
export const MAX_TOOL_TIMEOUT = 600
export const MAX_TOOL_NAME_BYTES = 63

/** cst-agent's rule: characters outside [A-Za-z0-9_-] become `_`, at most 63 bytes. */
export const sanitizeToolName = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME_BYTES)

const toolCommand = (raw: Json, at: string, ctx: ParseContext): string | string[] | undefined => {
  const command = raw.command
  if (typeof command === 'string' && command.trim() !== '') return command
  if (Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === 'string') && command[0]!.trim() !== '') return command as string[]
  ctx.report.error('tool-command-invalid', '"command" must be a non-empty string or a non-empty list of strings', {
    file: ctx.file,
    path: jsonPathJoin(at, 'command'),
  })
  return undefined
}

const toolTimeout = (raw: Json, at: string, ctx: ParseContext): number | undefined => {
  if (raw.timeout === undefined) return DEFAULT_TOOL_TIMEOUT
  const where = {file: ctx.file, path: jsonPathJoin(at, 'timeout')}
  if (typeof raw.timeout !== 'number' || !Number.isFinite(raw.timeout) || raw.timeout <= 0) {
    ctx.report.error('tool-timeout-invalid', `"timeout" must be a positive number of seconds, not ${JSON.stringify(raw.timeout)}`, where)
    return undefined
  }
  if (raw.timeout > MAX_TOOL_TIMEOUT) {
    ctx.report.error('tool-timeout-too-long', `"timeout" is ${raw.timeout} seconds; the limit is ${MAX_TOOL_TIMEOUT}`, where)
    return undefined
  }
  return raw.timeout
}

const toolPerm = (raw: Json, at: string, ctx: ParseContext): ToolComponent['perm'] | undefined => {
  if (raw.perm === undefined) return 'shell'
  if ((TOOL_PERMS as readonly unknown[]).includes(raw.perm)) return raw.perm as ToolComponent['perm']
  ctx.report.error('tool-perm-invalid', `"perm" is ${JSON.stringify(raw.perm)}; use one of ${TOOL_PERMS.join(', ')}`, {
    file: ctx.file,
    path: jsonPathJoin(at, 'perm'),
  })
  return undefined
}

const toolParameters = (raw: Json, at: string, ctx: ParseContext): {ok: boolean; schema?: Json} => {
  const key = 'parameters' in raw ? 'parameters' : 'inputSchema' in raw ? 'inputSchema' : undefined
  if (!key) return {ok: true}
  if (isRecord(raw[key])) return {ok: true, schema: raw[key]}
  ctx.report.error('tool-parameters-invalid', `"${key}" must be a JSON Schema object, not ${typeName(raw[key])}`, {file: ctx.file, path: jsonPathJoin(at, key)})
  return {ok: false}
}

/** One cst-agent exec tool; the program path is checked by the caller (it knows the plugin root). */
export const parseTool = (raw: unknown, at: string, ctx: ParseContext): ToolComponent | undefined => {
  const {report, file} = ctx
  if (!isRecord(raw)) {
    report.error('tool-not-object', `a tool must be an object, not ${typeName(raw)}`, {file, path: at})
    return undefined
  }
  if (typeof raw.name !== 'string' || raw.name.trim() === '') {
    report.error('tool-name-missing', 'a tool needs a "name" (a non-empty string)', {file, path: jsonPathJoin(at, 'name')})
    return undefined
  }
  const name = sanitizeToolName(raw.name)
  if (name !== raw.name)
    report.warn('tool-name-sanitized', `tool name ${JSON.stringify(raw.name)} becomes "${name}" in cst-agent`, {file, path: jsonPathJoin(at, 'name')})
  if ('description' in raw && typeof raw.description !== 'string') {
    report.error('tool-description-invalid', '"description" must be a string', {file, path: jsonPathJoin(at, 'description')})
    return undefined
  }
  const command = toolCommand(raw, at, ctx)
  const perm = toolPerm(raw, at, ctx)
  const timeout = toolTimeout(raw, at, ctx)
  const parameters = toolParameters(raw, at, ctx)
  if (command === undefined || perm === undefined || timeout === undefined || !parameters.ok) return undefined
  return {
    kind: 'tool',
    name,
    command,
    perm,
    timeout,
    ...(parameters.schema ? {parameters: parameters.schema} : {}),
    ...(typeof raw.description === 'string' ? {description: raw.description} : {}),
  }
}
