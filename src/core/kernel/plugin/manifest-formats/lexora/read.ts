/**
 * A Lexora package manifest: a root `package.json` or `plugin.json` recognised by its `contributes`
 * key. `contributes.skills[{id, path}]` are skill folders (package-relative paths, no `./` needed),
 * `contributes.mcpConnectors` are remote MCP servers, `contributes.subagents` carry their prompt
 * as `instructions`. The finer Lexora rules (limits, id prefixes, tool grants) belong to validate.
 */
import {isRecord, mcpUrlRule, type Json} from '../../components.js'
import {declaredPaths, readMetadata, type Declaration, type DeclaredPath, type ManifestContext} from '../../manifest-fields.js'
import {typeName} from '../../paths.js'
import {jsonPathJoin} from '../../../json/path.js'
import type {PluginReport} from '../../report.js'
import type {McpComponent, SubagentComponent} from '../../../../model/plugin.js'

/** Lexora connector and subagent ids: 1-64 of lowercase letters, digits, `-`, `_`, starting with a letter or digit. */
const LEXORA_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/

export const isLexoraManifest = (json: Json): boolean => 'contributes' in json

/** The plugin id: `id`, else `publisher.name`. */
export const lexoraPluginId = (json: Json): string | undefined => {
  if (typeof json.id === 'string') return json.id
  return typeof json.publisher === 'string' && typeof json.name === 'string' ? `${json.publisher}.${json.name}` : undefined
}

/** A `contributes.<key>` list, or undefined when absent; anything else is an error. */
const contributions = (contributes: Json, key: string, ctx: ManifestContext): unknown[] | undefined => {
  const value = contributes[key]
  if (value === undefined) return undefined
  if (Array.isArray(value)) return value
  ctx.report.error('manifest-field-invalid', `"${key}" must be a list, not ${typeName(value)}`, {file: ctx.file, path: `contributes.${key}`})
  return []
}

const contributionId = (raw: unknown, at: string, what: string, ctx: ManifestContext): {entry: Json; id: string} | undefined => {
  if (!isRecord(raw)) {
    ctx.report.error('manifest-field-invalid', `a ${what} must be an object, not ${typeName(raw)}`, {file: ctx.file, path: at})
    return undefined
  }
  if (typeof raw.id !== 'string' || !LEXORA_ID.test(raw.id)) {
    ctx.report.error(`lexora-${what}-id-invalid`, `"id" must be 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit`, {
      file: ctx.file,
      path: jsonPathJoin(at, 'id'),
    })
    return undefined
  }
  return {entry: raw, id: raw.id}
}

const readSkillPaths = (list: unknown[], ctx: ManifestContext): DeclaredPath[] =>
  list.flatMap((raw, i) => {
    const at = jsonPathJoin('contributes.skills', i)
    if (!isRecord(raw)) {
      ctx.report.error('manifest-field-invalid', `a skill contribution must be an object with "id" and "path", not ${typeName(raw)}`, {
        file: ctx.file,
        path: at,
      })
      return []
    }
    const paths = declaredPaths(raw, 'path', ctx, jsonPathJoin(at, 'path'))
    if (paths === undefined) ctx.report.error('manifest-field-invalid', 'a skill contribution needs a "path"', {file: ctx.file, path: at})
    return paths ?? []
  })

const readConnector = (raw: unknown, at: string, ctx: ManifestContext): McpComponent | undefined => {
  const found = contributionId(raw, at, 'connector', ctx)
  if (!found) return undefined
  const {entry, id} = found
  const where = (key: string) => ({file: ctx.file, path: jsonPathJoin(at, key)})
  if (entry.transport !== undefined && entry.transport !== 'streamable-http') {
    ctx.report.error(
      'lexora-connector-transport',
      `"transport" is ${JSON.stringify(entry.transport)}; Lexora connectors use "streamable-http"`,
      where('transport'),
    )
    return undefined
  }
  if (typeof entry.url !== 'string') {
    ctx.report.error('mcp-url-invalid', `connector "${id}" needs a "url" (a string)`, where('url'))
    return undefined
  }
  const broken = mcpUrlRule(entry.url)
  if (broken) {
    ctx.report.error(broken[0], broken[1], where('url'))
    return undefined
  }
  return {kind: 'mcp', name: id, config: {type: 'http', url: entry.url}}
}

const readSubagent = (raw: unknown, at: string, ctx: ManifestContext): SubagentComponent | undefined => {
  const found = contributionId(raw, at, 'subagent', ctx)
  if (!found) return undefined
  const {instructions, ...frontmatter} = found.entry
  if (typeof instructions !== 'string' || instructions.trim() === '') {
    ctx.report.error('lexora-subagent-instructions', `subagent "${found.id}" needs "instructions" (its prompt)`, {
      file: ctx.file,
      path: jsonPathJoin(at, 'instructions'),
    })
    return undefined
  }
  return {kind: 'subagent', name: found.id, file: ctx.file, frontmatter, body: instructions}
}

export const readLexoraManifest = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: false}
  const declaration: Declaration = {
    kind: 'lexora',
    file,
    ...readMetadata(json, ctx),
    skillDialect: 'spec',
    mcpComponentsAt: 'contributes.mcpConnectors',
    subagentsAt: 'contributes.subagents',
  }
  const id = lexoraPluginId(json)
  if (declaration.name === undefined && id !== undefined) declaration.name = id.split('.').pop()!
  const contributes = json.contributes
  if (!isRecord(contributes)) {
    report.error('manifest-field-invalid', `"contributes" must be an object, not ${typeName(contributes)}`, {file, path: 'contributes'})
    return declaration
  }
  const skills = contributions(contributes, 'skills', ctx)
  const connectors = contributions(contributes, 'mcpConnectors', ctx)
  const subagents = contributions(contributes, 'subagents', ctx)
  if (skills) declaration.skills = readSkillPaths(skills, ctx)
  if (connectors) declaration.mcpComponents = connectors.flatMap((raw, i) => readConnector(raw, jsonPathJoin('contributes.mcpConnectors', i), ctx) ?? [])
  if (subagents) declaration.subagents = subagents.flatMap((raw, i) => readSubagent(raw, jsonPathJoin('contributes.subagents', i), ctx) ?? [])
  return declaration
}
