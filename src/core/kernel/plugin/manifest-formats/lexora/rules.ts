/**
 * The Lexora rules that a JSON Schema cannot say: skill ids carry the plugin id, skill folders do
 * not nest, connectors reach the network only over https without a secret in the URL, subagents
 * name only built-in tools or this package's connectors and skills. The limits and id forms are in
 * registry/schemas/lexora-manifest.schema.json.
 */
import {posix} from 'node:path'
import {isRecord, type Json} from '../../components.js'
import {lexoraPluginId} from './read.js'
import {jsonPathJoin} from '../../../json/path.js'
import {problem, type Problem} from '../../../../model/problems.js'

export const LEXORA_API_VERSION = 4

/**
 * Subagent ids the Lexora host defines itself, which a package may not take. The issue names no
 * list; these are the ids a host of this kind ships (an assumption: extend it when the host says).
 */
export const LEXORA_BUILTIN_SUBAGENTS = ['default', 'general', 'general-purpose', 'explore', 'plan'] as const

/** The host's own file tools a subagent may be granted by name. */
export const LEXORA_BUILTIN_TOOLS = ['read', 'find', 'grep', 'ls'] as const

/** A built-in tool as the seed writes it: `{"source": "builtin", "name": "read"}`. */
export const builtinTool = (name: string): Json => ({source: 'builtin', name})

/** The built-in tool a reference names (`"read"` or `{"source": "builtin", "name": "read"}`), or undefined. */
export const builtinToolName = (tool: unknown): string | undefined => {
  const name = typeof tool === 'string' ? tool : isRecord(tool) && tool.source === 'builtin' && typeof tool.name === 'string' ? tool.name : undefined
  return name !== undefined && (LEXORA_BUILTIN_TOOLS as readonly string[]).includes(name) ? name : undefined
}

/** Fields the seed says a package must not declare, where they sit. */
const FORBIDDEN: Array<{path: string[]; why: string}> = [
  {path: ['kind'], why: 'a Lexora package declares no "kind": the host knows what it installs'},
  {path: ['credential'], why: 'a Lexora package carries no "credential": the host asks the user to sign in'},
  {path: ['contributes', 'agent'], why: 'a Lexora package contributes no "agent" binding; contribute "subagents"'},
]

/** A plugin id: dot-separated kebab words (`acme.pdf-tools`). */
const PLUGIN_ID = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*$/

/** Query parameters that carry a credential when they appear in a URL. */
export const SECRET_PARAM = /token|secret|passw|pwd|api[-_]?key|^key$|auth|sig(nature)?$|credential|session/i

// ---------------------------------------------------------------------------------------------
// Semver ranges, as npm reads them (node-semver's grammar), without a dependency

const XR = '(?:0|[1-9]\\d*|[xX*])'
const IDENT = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*'
const PARTIAL = `v?${XR}(?:\\.${XR}(?:\\.${XR}(?:-${IDENT})?(?:\\+${IDENT})?)?)?`
const SIMPLE = new RegExp(`^(?:[<>]=?|=|~>?|\\^)?${PARTIAL}$`)
const HYPHEN = new RegExp(`^(${PARTIAL})\\s+-\\s+(${PARTIAL})$`)

/** True when `text` is a semver range npm accepts: `^4.0.0`, `>=4 <5`, `4.x || 5`, `1.2 - 2.3.4`. */
export const isSemverRange = (text: string): boolean => {
  if (text.trim() === '') return false
  return text.split('||').every((alternative) => {
    const range = alternative.trim()
    if (range === '') return false
    if (HYPHEN.test(range)) return true
    // an operator may stand apart from its version: `>= 4.0.0`
    const tokens = range.replace(/(<=|>=|~>|[<>=~^])\s+/g, '$1').split(/\s+/)
    return tokens.every((token) => SIMPLE.test(token))
  })
}

// ---------------------------------------------------------------------------------------------

interface LexoraContext {
  file: string
  problems: Problem[]
}

const err = (ctx: LexoraContext, code: string, message: string, path: string) => ctx.problems.push(problem('error', code, message, {file: ctx.file, path}))

const records = (value: unknown): Array<{entry: Json; index: number}> =>
  Array.isArray(value) ? value.flatMap((entry, index) => (isRecord(entry) ? [{entry, index}] : [])) : []

const duplicates = (ctx: LexoraContext, list: Array<{id: unknown; at: string}>, code: string, what: string) => {
  const seen = new Set<string>()
  for (const {id, at} of list) {
    if (typeof id !== 'string') continue
    if (seen.has(id)) err(ctx, code, `${what} id "${id}" is used twice; ids must be unique in the package`, at)
    seen.add(id)
  }
}

/** `./skills/x/SKILL.md`, `skills\x\SKILL.md/` -> `skills/x/SKILL.md`. */
const normalized = (raw: string): string =>
  posix
    .normalize(raw.replace(/\\/g, '/'))
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '')

const checkSkills = (contributes: Json, pluginId: string | undefined, ctx: LexoraContext): {ids: string[]; folders: string[]} => {
  const ids: Array<{id: unknown; at: string}> = []
  const folders: Array<{folder: string; at: string}> = []
  for (const {entry, index} of records(contributes.skills)) {
    const at = jsonPathJoin('contributes.skills', index)
    ids.push({id: entry.id, at: jsonPathJoin(at, 'id')})
    if (typeof entry.path !== 'string' || entry.path === '') continue
    const rel = normalized(entry.path)
    if (posix.basename(rel) !== 'SKILL.md') {
      err(
        ctx,
        'lexora-skill-path',
        `"path" must name a SKILL.md file in the skill's folder (for example "skills/pdf-tools/SKILL.md"), not ${JSON.stringify(entry.path)}`,
        jsonPathJoin(at, 'path'),
      )
      continue
    }
    const folder = posix.dirname(rel)
    if (folder === '.' || folder === '') {
      err(
        ctx,
        'lexora-skill-folder',
        'the SKILL.md must sit in a folder of its own (skills/<name>/SKILL.md), not at the package root',
        jsonPathJoin(at, 'path'),
      )
      continue
    }
    folders.push({folder, at: jsonPathJoin(at, 'path')})
    const skill = posix.basename(folder)
    if (/[.:]/.test(skill)) {
      err(
        ctx,
        'lexora-skill-namespace',
        `skill folder "${skill}" carries a namespace; name it without one (Lexora adds the plugin id to the skill id)`,
        jsonPathJoin(at, 'path'),
      )
      continue
    }
    if (pluginId !== undefined && typeof entry.id === 'string' && entry.id !== `${pluginId}.${skill}`) {
      err(
        ctx,
        'lexora-skill-id',
        `"id" is ${JSON.stringify(entry.id)}; it must be the plugin id, a dot and the skill name: "${pluginId}.${skill}"`,
        jsonPathJoin(at, 'id'),
      )
    }
  }
  duplicates(ctx, ids, 'lexora-skill-id-duplicate', 'skill')
  for (const inner of folders) {
    const outer = folders.find((f) => inner.folder.startsWith(`${f.folder}/`))
    if (outer) err(ctx, 'lexora-skill-nested', `skill folder "${inner.folder}" is inside skill folder "${outer.folder}"; skill folders may not nest`, inner.at)
  }
  return {ids: ids.map((i) => i.id).filter((id): id is string => typeof id === 'string'), folders: folders.map((f) => f.folder)}
}

/** Every string below `value` (entries are small; depth is capped), with its JSON path. */
const stringsBelow = (value: unknown, at: string, depth = 0): Array<{text: string; at: string}> => {
  if (typeof value === 'string') return [{text: value, at}]
  if (depth >= 4) return []
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsBelow(v, jsonPathJoin(at, i), depth + 1))
  if (isRecord(value)) return Object.entries(value).flatMap(([k, v]) => stringsBelow(v, jsonPathJoin(at, k), depth + 1))
  return []
}

/**
 * A skill folder holds one skill: Lexora loads it as the skill's own, so another contribution (a
 * background script, a view) whose file sits inside it is an error.
 */
const checkInsideSkills = (contributes: Json, folders: readonly string[], ctx: LexoraContext): void => {
  if (folders.length === 0) return
  for (const [key, value] of Object.entries(contributes)) {
    if (key === 'skills') continue
    for (const {text, at} of stringsBelow(value, jsonPathJoin('contributes', key))) {
      if (text === '' || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text) || text.startsWith('/')) continue
      const rel = normalized(text)
      const folder = folders.find((f) => rel === f || rel.startsWith(`${f}/`))
      if (folder)
        err(ctx, 'lexora-inside-skill', `${at} is "${text}", inside skill folder "${folder}"; a skill folder holds only its skill: move the file out of it`, at)
    }
  }
}

const checkConnectorUrl = (raw: string, at: string, id: string, ctx: LexoraContext) => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    err(ctx, 'lexora-connector-url', `connector "${id}": url ${JSON.stringify(raw)} is not an absolute URL`, at)
    return
  }
  if (url.protocol !== 'https:') err(ctx, 'lexora-connector-url', `connector "${id}": url must be https, not ${url.protocol.replace(/:$/, '')}`, at)
  else if (url.username || url.password)
    err(ctx, 'lexora-connector-url', `connector "${id}": url has a user name or password in it; connectors authenticate through "authentication"`, at)
  const secret = [...url.searchParams.keys()].find((key) => SECRET_PARAM.test(key))
  if (secret) {
    err(
      ctx,
      'lexora-connector-url-secret',
      `connector "${id}": url carries "${secret}" in its query, which looks like a credential; never put a token in the URL (use "authentication": "bearer" or "oauth")`,
      at,
    )
  }
}

const checkConnectors = (contributes: Json, ctx: LexoraContext): string[] => {
  const ids: Array<{id: unknown; at: string}> = []
  for (const {entry, index} of records(contributes.mcpConnectors)) {
    const at = jsonPathJoin('contributes.mcpConnectors', index)
    ids.push({id: entry.id, at: jsonPathJoin(at, 'id')})
    const id = typeof entry.id === 'string' ? entry.id : `#${index}`
    if (typeof entry.url === 'string') checkConnectorUrl(entry.url, jsonPathJoin(at, 'url'), id, ctx)
    for (const key of ['headers', 'secrets']) {
      if (key in entry) {
        err(
          ctx,
          'lexora-connector-secrets',
          `connector "${id}" has "${key}"; Lexora connectors carry no headers or secrets: set "authentication" and the host asks the user for credentials`,
          jsonPathJoin(at, key),
        )
      }
    }
  }
  duplicates(ctx, ids, 'lexora-connector-id-duplicate', 'connector')
  return ids.map((i) => i.id).filter((id): id is string => typeof id === 'string')
}

const checkSubagentTools = (entry: Json, at: string, id: string, connectors: readonly string[], ctx: LexoraContext): boolean => {
  let usesMcp = false
  if (!Array.isArray(entry.tools)) return false
  entry.tools.forEach((tool, i) => {
    const toolAt = jsonPathJoin(jsonPathJoin(at, 'tools'), i)
    if (isRecord(tool) && tool.source === 'builtin') {
      if (builtinToolName(tool) === undefined) {
        err(
          ctx,
          'lexora-subagent-tool',
          `subagent "${id}": built-in tool ${JSON.stringify(tool.name)} is not one of Lexora's (${LEXORA_BUILTIN_TOOLS.join(', ')})`,
          toolAt,
        )
      }
      return
    }
    if (typeof tool === 'string') {
      if (!(LEXORA_BUILTIN_TOOLS as readonly string[]).includes(tool)) {
        err(
          ctx,
          'lexora-subagent-tool',
          `subagent "${id}": tool "${tool}" is not a Lexora built-in tool; use {"source": "builtin", "name": ${LEXORA_BUILTIN_TOOLS.map((t) => `"${t}"`).join(' | ')}}, or {"source": "mcp", "connector", "name"}`,
          toolAt,
        )
      }
      return
    }
    if (!isRecord(tool) || tool.source !== 'mcp' || typeof tool.name !== 'string' || tool.name === '') {
      err(
        ctx,
        'lexora-subagent-tool',
        `subagent "${id}": a tool is {"source": "builtin", "name": ${LEXORA_BUILTIN_TOOLS.map((t) => `"${t}"`).join(' | ')}} or {"source": "mcp", "connector": <connector id>, "name": <tool name>}`,
        toolAt,
      )
      return
    }
    usesMcp = true
    if (typeof tool.connector !== 'string' || !connectors.includes(tool.connector)) {
      const known = connectors.length > 0 ? `it has ${connectors.map((c) => `"${c}"`).join(', ')}` : 'it has none'
      err(
        ctx,
        'lexora-subagent-connector',
        `subagent "${id}": tool "${tool.name}" names connector ${JSON.stringify(tool.connector)}, which this package does not contribute (${known})`,
        jsonPathJoin(toolAt, 'connector'),
      )
    }
  })
  return usesMcp
}

const checkSubagents = (contributes: Json, skills: readonly string[], connectors: readonly string[], ctx: LexoraContext): void => {
  const ids: Array<{id: unknown; at: string}> = []
  for (const {entry, index} of records(contributes.subagents)) {
    const at = jsonPathJoin('contributes.subagents', index)
    ids.push({id: entry.id, at: jsonPathJoin(at, 'id')})
    const id = typeof entry.id === 'string' ? entry.id : `#${index}`
    if ((LEXORA_BUILTIN_SUBAGENTS as readonly string[]).includes(id)) {
      err(ctx, 'lexora-subagent-builtin', `subagent id "${id}" is a Lexora built-in subagent; choose another id`, jsonPathJoin(at, 'id'))
    }
    const usesMcp = checkSubagentTools(entry, at, id, connectors, ctx)
    if (usesMcp && entry.fileAccess === 'read_only') {
      err(
        ctx,
        'lexora-subagent-file-access',
        `subagent "${id}" uses MCP tools, which need "fileAccess": "inherit" (it is ${JSON.stringify(entry.fileAccess)})`,
        jsonPathJoin(at, 'fileAccess'),
      )
    }
    const own = Array.isArray(entry.skills) ? entry.skills.filter((s): s is string => typeof s === 'string') : []
    own.forEach((skill, i) => {
      if (!skills.includes(skill)) {
        err(
          ctx,
          'lexora-subagent-skill',
          `subagent "${id}": skill "${skill}" is not a skill contribution id of this package${skills.length > 0 ? ` (it has ${skills.map((s) => `"${s}"`).join(', ')})` : ' (it has none)'}`,
          jsonPathJoin(jsonPathJoin(at, 'skills'), i),
        )
      }
    })
    if (Array.isArray(entry.requiredSkills)) {
      entry.requiredSkills.forEach((skill, i) => {
        if (typeof skill === 'string' && !own.includes(skill)) {
          err(
            ctx,
            'lexora-subagent-required-skill',
            `subagent "${id}": required skill "${skill}" is not in its "skills"; requiredSkills must be a subset of skills`,
            jsonPathJoin(jsonPathJoin(at, 'requiredSkills'), i),
          )
        }
      })
    }
  }
  duplicates(ctx, ids, 'lexora-subagent-id-duplicate', 'subagent')
}

/** Every cross-field Lexora rule for the manifest `json` in `file`. */
export const lexoraRules = (json: Json, file: string): Problem[] => {
  const ctx: LexoraContext = {file, problems: []}
  const pluginId = lexoraPluginId(json)
  if (pluginId === undefined) err(ctx, 'lexora-id-missing', 'the package has no plugin id: give "id", or "publisher" and "name"', 'id')
  else if (!PLUGIN_ID.test(pluginId)) {
    err(
      ctx,
      'lexora-id-invalid',
      `plugin id "${pluginId}" must be dot-separated words of lowercase letters, digits and single hyphens (for example "acme.pdf-tools")`,
      typeof json.id === 'string' ? 'id' : 'publisher',
    )
  }
  for (const {path, why} of FORBIDDEN) {
    let at: unknown = json
    for (const key of path) at = isRecord(at) ? at[key] : undefined
    if (at !== undefined) err(ctx, 'lexora-field-forbidden', `"${path.join('.')}" must not be declared: ${why}`, path.join('.'))
  }
  const engines = json.engines
  if (isRecord(engines) && typeof engines.lexora === 'string' && !isSemverRange(engines.lexora)) {
    err(
      ctx,
      'lexora-engine-range',
      `"engines.lexora" is ${JSON.stringify(engines.lexora)}, which is not a semver range (for example "^${LEXORA_API_VERSION}.0.0")`,
      'engines.lexora',
    )
  }
  if (!isRecord(json.contributes)) return ctx.problems
  const validId = pluginId !== undefined && PLUGIN_ID.test(pluginId) ? pluginId : undefined
  const {ids: skills, folders} = checkSkills(json.contributes, validId, ctx)
  checkInsideSkills(json.contributes, folders, ctx)
  const connectors = checkConnectors(json.contributes, ctx)
  checkSubagents(json.contributes, skills, connectors, ctx)
  return ctx.problems
}
