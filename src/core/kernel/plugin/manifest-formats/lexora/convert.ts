/**
 * Lexora in both directions. To Lexora: a package manifest whose `contributes` lists each skill as
 * `<plugin id>.<folder>` with its SKILL.md path, each remote streamable-HTTP server as a connector
 * (https, no credentials in the URL, no headers: `authentication` says how the host signs in), and
 * each subagent with its prompt as `instructions`, a `fileAccess` and the built-in tools it keeps.
 * From Lexora to Claude Code: see to-claude.ts.
 */
import {posix} from 'node:path'
import {isRecord, type Json} from '../../components.js'
import {lexoraPluginId} from './read.js'
import type {McpComponent, SkillComponent, SubagentComponent} from '../../../../model/plugin.js'
import {
  authorString,
  clashesWithOrigin,
  emptyCarried,
  metadataOf,
  noneCarried,
  overExisting,
  relPath,
  transportOf,
  type BuildContext,
  type ConversionPlan,
  type NotCarried,
  type TargetManifest,
} from '../convert-plan.js'
import {builtinTool, isSemverRange, LEXORA_API_VERSION, LEXORA_BUILTIN_SUBAGENTS, LEXORA_BUILTIN_TOOLS} from './rules.js'
import {title} from '../scaffold-kit.js'
import {isFileAgent} from '../convert-parts.js'
import {SECRET_PARAM} from './rules.js'

export const MAX_LEXORA_SKILLS = 32
export const MAX_LEXORA_CONNECTORS = 16
export const MAX_LEXORA_SUBAGENTS = 16

/** Connector and subagent ids: 1-64 of lowercase letters, digits, `-`, `_`, starting with a letter or digit. */
const LEXORA_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/
/** Lexora skill names: lowercase letters and digits in words joined by single hyphens, at most 64. */
const LEXORA_SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
/** Query parameters that look like a credential (the same rule as `plugin validate`'s). */

/** Claude tool names that have a Lexora built-in counterpart (lower-cased). */
const TO_LEXORA_TOOL: Record<string, string> = {read: 'read', grep: 'grep', glob: 'find', find: 'find', ls: 'ls'}
/** Claude tools that change files or run programs: a subagent granted none of them is read-only. */
const WRITING_TOOLS = new Set(['write', 'edit', 'multiedit', 'notebookedit', 'bash', 'run_shell', 'write_file', 'edit_file'])
/** Claude's model aliases mean nothing to another host. */
const CLAUDE_MODEL_ALIASES = new Set(['inherit', 'sonnet', 'opus', 'haiku', 'opusplan'])

/** The raw Lexora manifest of the plugin, if it has one. */
export const lexoraRaw = (ctx: BuildContext): Json | undefined => ctx.sources.raw.find((r) => r.kind === 'lexora')?.json

export const rawContributions = (ctx: BuildContext, key: string): Json[] => {
  const contributes = lexoraRaw(ctx)?.contributes
  const list = isRecord(contributes) ? contributes[key] : undefined
  return Array.isArray(list) ? list.filter(isRecord) : []
}

/** Splits `Read, Bash(git add:*), Grep` on the commas outside parentheses; each name without its `(...)`. */
const toolNames = (value: unknown): string[] | undefined => {
  if (value === undefined || value === null) return undefined
  const items: string[] = []
  if (typeof value === 'string') {
    let depth = 0
    let current = ''
    for (const char of value) {
      if (char === '(') depth++
      else if (char === ')') depth = Math.max(0, depth - 1)
      if (char === ',' && depth === 0) {
        items.push(current)
        current = ''
      } else current += char
    }
    items.push(current)
  } else if (Array.isArray(value)) items.push(...value.filter((v): v is string => typeof v === 'string'))
  else return undefined
  return items.map((t) => t.trim()).filter((t) => t !== '')
}

// ---------------------------------------------------------------------------------------------
// To Lexora

const lexoraSkills = (ctx: BuildContext, pluginId: string): {entries: Json[]; carried: string[]; notCarried: NotCarried[]} => {
  const {root} = ctx.model
  const entries: Json[] = []
  const carried: string[] = []
  const notCarried: NotCarried[] = []
  const folders: string[] = []
  const skip = (skill: SkillComponent, reason: string) => notCarried.push({kind: 'skill', name: skill.name, reason})
  const skills = [...ctx.model.skills].sort((a, b) => relPath(root, a.dir).length - relPath(root, b.dir).length)
  for (const skill of skills) {
    const rel = relPath(root, skill.dir)
    const folder = posix.basename(rel)
    if (rel === '.') skip(skill, 'a Lexora skill sits in a folder of its own (skills/<name>/SKILL.md), not at the package root; move it into one')
    else if (folder !== skill.name)
      skip(skill, `Lexora names a skill after its folder: the folder is "${folder}" but the skill is "${skill.name}"; rename one to match`)
    else if (!LEXORA_SKILL_NAME.test(folder) || folder.length > 64)
      skip(skill, 'a Lexora skill name is 1-64 lowercase letters and digits in words joined by single hyphens')
    else if (folders.some((outer) => rel.startsWith(`${outer}/`)))
      skip(skill, `its folder is inside the skill folder "${folders.find((outer) => rel.startsWith(`${outer}/`))}"; Lexora skill folders may not nest`)
    else if (entries.some((e) => e.id === `${pluginId}.${folder}`))
      skip(skill, `another skill folder is also named "${folder}"; Lexora ids (${pluginId}.<folder>) must be unique`)
    else if (entries.length >= MAX_LEXORA_SKILLS) skip(skill, `Lexora takes at most ${MAX_LEXORA_SKILLS} skills`)
    else {
      entries.push({id: `${pluginId}.${folder}`, path: `${rel}/SKILL.md`})
      folders.push(rel)
      carried.push(skill.name)
    }
  }
  return {entries, carried, notCarried}
}

/** Why a server has no Lexora connector form, or undefined. */
const connectorRefusal = (server: McpComponent): string | undefined => {
  const transport = transportOf(server.config)
  if (transport === 'stdio') return 'Lexora has no local (stdio) MCP servers: only remote streamable-HTTP connectors'
  if (transport === 'sse') return 'Lexora connectors use streamable HTTP, not SSE'
  if (!LEXORA_ID.test(server.name))
    return 'a Lexora connector id is 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit; rename the server to carry it'
  let url: URL
  try {
    url = new URL(server.config.url ?? '')
  } catch {
    return 'its url is not an absolute URL'
  }
  if (url.protocol !== 'https:') return `Lexora connectors need an https URL, not ${url.protocol.replace(/:$/, '')}`
  if (url.username || url.password) return 'its URL has a user name or password in it; Lexora connectors sign in through "authentication"'
  const secret = [...url.searchParams.keys()].find((key) => SECRET_PARAM.test(key))
  if (secret) return `its URL carries "${secret}", which looks like a credential; Lexora connectors never put a token in the URL`
  return undefined
}

/** `bearer` when the server sends `Authorization: Bearer ...`, else `none`. */
const authenticationOf = (server: McpComponent): string => {
  const headers = server.config.headers ?? {}
  const auth = Object.entries(headers).find(([key]) => key.toLowerCase() === 'authorization')?.[1]
  return auth !== undefined && /^bearer\s/i.test(auth.trim()) ? 'bearer' : 'none'
}

const lexoraConnectors = (ctx: BuildContext): {entries: Json[]; carried: string[]; notCarried: NotCarried[]} => {
  const entries: Json[] = []
  const carried: string[] = []
  const notCarried: NotCarried[] = []
  const raw = new Map(rawContributions(ctx, 'mcpConnectors').map((c) => [c.id, c]))
  for (const server of ctx.model.mcpServers) {
    const refused = connectorRefusal(server)
    if (refused) {
      notCarried.push({kind: 'mcp', name: server.name, reason: refused})
      continue
    }
    const clash = clashesWithOrigin(server.name, {type: 'http', url: server.config.url!}, ctx)
    if (clash) {
      const what = server.config.headers ? 'its headers' : 'its cst-agent settings'
      notCarried.push({
        kind: 'mcp',
        name: server.name,
        reason: `its Lexora form leaves out ${what}, and ${clash} keeps the original: two definitions under one name would clash`,
      })
      continue
    }
    if (entries.length >= MAX_LEXORA_CONNECTORS) {
      notCarried.push({kind: 'mcp', name: server.name, reason: `Lexora takes at most ${MAX_LEXORA_CONNECTORS} connectors`})
      continue
    }
    const old = raw.get(server.name)
    const authentication = typeof old?.authentication === 'string' ? old.authentication : authenticationOf(server)
    entries.push({
      id: server.name,
      ...(typeof old?.name === 'string' ? {name: old.name} : {}),
      ...(typeof old?.description === 'string' ? {description: old.description} : {}),
      transport: 'streamable-http',
      url: server.config.url!,
      authentication,
    })
    carried.push(server.name)
    const headers = Object.keys(server.config.headers ?? {})
    if (headers.length > 0) {
      const how =
        authentication === 'bearer'
          ? '"authentication": "bearer" (the host asks the user for the token)'
          : '"authentication": "none"; set "bearer" or "oauth" if it needs signing in'
      notCarried.push({
        kind: 'mcp',
        name: server.name,
        part: `headers ${headers.join(', ')}`,
        reason: `Lexora connectors carry no headers; written with ${how}`,
      })
    }
    for (const field of ['disabled', 'autoApprove'] as const) {
      if (server.config[field] !== undefined) notCarried.push({kind: 'mcp', name: server.name, part: field, reason: 'a cst-agent setting with no Lexora form'})
    }
  }
  return {entries, carried, notCarried}
}

/** A Claude (or cst-agent) subagent file as a Lexora subagent contribution. */
const lexoraSubagentFromFile = (agent: SubagentComponent, skillIds: ReadonlyMap<string, string>, notCarried: NotCarried[]): Json => {
  const fm = agent.frontmatter
  const part = (piece: string, reason: string) => notCarried.push({kind: 'subagent', name: agent.name, part: piece, reason})
  const tools = toolNames(fm.tools)
  const lexoraTools: string[] = []
  const dropped: string[] = []
  for (const tool of tools ?? []) {
    const mapped = TO_LEXORA_TOOL[tool.replace(/\(.*$/s, '').trim().toLowerCase()]
    if (mapped) {
      if (!lexoraTools.includes(mapped)) lexoraTools.push(mapped)
    } else dropped.push(tool)
  }
  if (dropped.length > 0)
    part(`tools ${dropped.join(', ')}`, `a Lexora subagent is granted only the built-in tools ${LEXORA_BUILTIN_TOOLS.join(', ')} and this package's connectors`)
  // read-only: no tool that writes files or runs commands (a reviewer with Read, Grep, Glob, WebFetch is one)
  const readOnly = fm.readonly === true || (tools !== undefined && !tools.some((t) => WRITING_TOOLS.has(t.replace(/\(.*$/s, '').trim().toLowerCase())))
  let model: string | undefined
  if (typeof fm.model === 'string' && fm.model.trim() !== '') {
    if (CLAUDE_MODEL_ALIASES.has(fm.model.trim().toLowerCase())) part('model', `"${fm.model}" is a Claude model alias; Lexora uses its default model`)
    else model = fm.model
  }
  const skills = (toolNames(fm.skills) ?? []).flatMap((name) => {
    const id = skillIds.get(name)
    if (!id) part(`skill ${name}`, 'it is not a skill this package contributes to Lexora')
    return id ? [id] : []
  })
  for (const key of ['max_steps', 'permissionMode', 'color'] as const) if (key in fm) part(key, 'Lexora subagents have no such setting')
  return {
    id: agent.name,
    name: title(agent.name),
    ...(typeof fm.description === 'string' && fm.description.trim() !== '' ? {description: fm.description} : {}),
    instructions: agent.body.trim(),
    fileAccess: readOnly ? 'read_only' : 'inherit',
    ...(tools !== undefined ? {tools: lexoraTools.map(builtinTool)} : {}),
    ...(model ? {model} : {}),
    ...(skills.length > 0 ? {skills} : {}),
  }
}

const lexoraSubagents = (
  ctx: BuildContext,
  skillIds: ReadonlyMap<string, string>,
): {entries: Json[]; carried: string[]; notCarried: NotCarried[]; notes: string[]} => {
  const {model} = ctx
  const entries: Json[] = []
  const carried: string[] = []
  const notCarried: NotCarried[] = []
  const listers = ctx.sources.agentListers.filter((k) => k !== 'lexora')
  if (model.subagents.length > 0 && listers.length > 0) {
    const reason = `the ${listers[0]} manifest lists its agent files in "agents", and loadout reads a plugin's subagents from one place: a second definition in the Lexora manifest would clash. Drop "agents" from it (Claude Code reads agents/ by default) and convert again`
    return {
      entries,
      carried,
      notCarried: noneCarried(
        'subagent',
        model.subagents.map((s) => s.name),
        reason,
      ),
      notes: [],
    }
  }
  const raw = new Map(rawContributions(ctx, 'subagents').map((entry) => [entry.id, entry]))
  for (const agent of model.subagents) {
    const skip = (reason: string) => notCarried.push({kind: 'subagent', name: agent.name, reason})
    if (!isFileAgent(agent)) {
      // already a Lexora subagent: written again as it is
      entries.push(raw.get(agent.name) ?? {...agent.frontmatter, id: agent.name, instructions: agent.body})
      carried.push(agent.name)
      continue
    }
    if (!LEXORA_ID.test(agent.name)) skip('a Lexora subagent id is 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit')
    else if ((LEXORA_BUILTIN_SUBAGENTS as readonly string[]).includes(agent.name))
      skip(`"${agent.name}" is a Lexora built-in subagent id; rename the agent to carry it`)
    else if (agent.body.trim() === '') skip('it has no prompt (the Markdown body), which Lexora needs as "instructions"')
    else if (entries.length >= MAX_LEXORA_SUBAGENTS) skip(`Lexora takes at most ${MAX_LEXORA_SUBAGENTS} subagents`)
    else {
      entries.push(lexoraSubagentFromFile(agent, skillIds, notCarried))
      carried.push(agent.name)
    }
  }
  const fromFiles = model.subagents.filter((s) => isFileAgent(s) && carried.includes(s.name))
  const notes =
    fromFiles.length > 0
      ? [
          `loadout now reads this plugin's subagents from the Lexora manifest (contributes.subagents) for every agent it installs into; ${fromFiles.map((s) => relPath(model.root, s.file)).join(', ')} stay for Claude Code, which reads them itself`,
        ]
      : []
  return {entries, carried, notCarried, notes}
}

/** The plugin id: the manifest's own (`id`, or `publisher.name`), else the plugin name. */
export const lexoraIdFor = (ctx: BuildContext): string => {
  const existing = ctx.target.existing
  return (existing ? lexoraPluginId(existing) : undefined) ?? ctx.model.name
}

const LEXORA_MANAGED = new Set([
  'name',
  'version',
  'description',
  'author',
  'keywords',
  'homepage',
  'repository',
  'license',
  'private',
  'id',
  'apiVersion',
  'engines',
  'contributes',
])
/** An existing package.json keeps its own metadata; only the Lexora fields are the converter's. */
const LEXORA_KEEP = new Set(['name', 'version', 'description', 'author', 'keywords', 'homepage', 'repository', 'license', 'private', 'id'])

/** A Lexora manifest already at the root `plugin.json` is replaced there; otherwise package.json gains it (an npm one keeps its fields). */
export const lexoraTarget = (existing: (rel: string) => Json | undefined): TargetManifest => {
  const rootManifest = existing('plugin.json')
  if (rootManifest && 'contributes' in rootManifest) return {rel: 'plugin.json', mode: 'replace', existing: rootManifest}
  const pkg = existing('package.json')
  if (!pkg) return {rel: 'package.json', mode: 'new'}
  return {rel: 'package.json', mode: 'contributes' in pkg ? 'replace' : 'merge', existing: pkg}
}

export const buildLexora = (ctx: BuildContext): ConversionPlan => {
  const {model} = ctx
  const carried = emptyCarried()
  const pluginId = lexoraIdFor(ctx)
  const skills = lexoraSkills(ctx, pluginId)
  const connectors = lexoraConnectors(ctx)
  const skillIds = new Map(skills.entries.map((e) => [posix.basename(posix.dirname(e.path as string)), e.id as string]))
  const subagents = lexoraSubagents(ctx, skillIds)
  carried.skills = skills.carried
  carried.mcpServers = connectors.carried
  carried.subagents = subagents.carried

  const meta = metadataOf(ctx)
  const existing = ctx.target.existing
  const oldRange =
    isRecord(existing?.engines) && typeof existing.engines.lexora === 'string' && isSemverRange(existing.engines.lexora) ? existing.engines.lexora : undefined
  const contributes: Json = {
    ...(skills.entries.length > 0 ? {skills: skills.entries} : {}),
    ...(connectors.entries.length > 0 ? {mcpConnectors: connectors.entries} : {}),
    ...(subagents.entries.length > 0 ? {subagents: subagents.entries} : {}),
  }
  const computed: Json = {
    name: meta.name,
    ...(meta.version !== undefined ? {version: meta.version} : {}),
    ...(meta.description !== undefined ? {description: meta.description} : {}),
    ...(existing ? {} : {private: true}),
    ...(meta.author ? {author: authorString(meta.author)} : {}),
    ...(meta.license ? {license: meta.license} : {}),
    ...(meta.homepage ? {homepage: meta.homepage} : {}),
    ...(meta.repository ? {repository: meta.repository} : {}),
    ...(meta.keywords ? {keywords: meta.keywords} : {}),
    ...(existing && lexoraPluginId(existing) !== undefined ? {} : {id: pluginId}),
    engines: {...(isRecord(existing?.engines) ? existing.engines : {}), lexora: oldRange ?? `^${LEXORA_API_VERSION}.0.0`},
    contributes,
  }
  const notCarried = [
    ...skills.notCarried,
    ...connectors.notCarried,
    ...subagents.notCarried,
    ...noneCarried(
      'hooks',
      model.hooks.map((h) => h.name),
      'Lexora packages run no hooks',
    ),
    ...noneCarried(
      'command',
      model.commands.map((c) => c.name),
      'Lexora packages have no slash commands',
    ),
    ...noneCarried(
      'tool',
      model.tools.map((t) => t.name),
      'an exec tool is a cst-agent feature; Lexora packages run no local programs',
    ),
  ]
  const notes = [...subagents.notes]
  if (ctx.target.mode === 'merge')
    notes.push(`package.json is an npm manifest: the Lexora fields (id, engines, contributes) were added to it and its other fields kept`)
  return {
    format: 'lexora',
    target: ctx.target,
    json: overExisting(existing, computed, LEXORA_MANAGED, ctx.target.mode === 'merge' ? LEXORA_KEEP : new Set(['id'])),
    files: [],
    carried,
    notCarried,
    notes,
  }
}
