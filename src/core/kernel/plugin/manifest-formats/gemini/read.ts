/**
 * A Gemini CLI extension's `gemini-extension.json`: name, version, description, MCP servers in
 * Gemini's shape (`httpUrl` is streamable HTTP, `url` is SSE, `command` is stdio), and context
 * files. `${extensionPath}` (the installed extension's folder) is read as `${CLAUDE_PLUGIN_ROOT}`,
 * which `loadout install` fills in with the installed plugin's folder; `${/}` is the path separator.
 */
import {isRecord, parseMcpServers, type Json} from '../../components.js'
import {readMetadata, type Declaration, type ManifestContext} from '../../manifest-fields.js'
import {checkManifestPath, typeName} from '../../paths.js'
import {jsonPathJoin} from '../../../json/path.js'
import type {PluginReport} from '../../report.js'

export const GEMINI_MANIFEST = 'gemini-extension.json'

/** Gemini's variables in loadout's words, in every string of `value`. */
const withLoadoutVars = (value: unknown): unknown => {
  if (typeof value === 'string') return value.replaceAll('${extensionPath}', '${CLAUDE_PLUGIN_ROOT}').replaceAll('${/}', '/')
  if (Array.isArray(value)) return value.map(withLoadoutVars)
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withLoadoutVars(v)]))
  return value
}

/** One Gemini server entry in the shape the shared MCP reader takes. */
const asLoadoutServer = (name: string, raw: unknown, ctx: ManifestContext): unknown => {
  if (!isRecord(raw)) return raw
  const {httpUrl, ...rest} = raw
  if (httpUrl !== undefined) {
    if ('url' in rest || 'command' in rest) {
      ctx.report.error('mcp-server-ambiguous', `MCP server "${name}" has "httpUrl" and also ${'url' in rest ? '"url"' : '"command"'}; give one`, {
        file: ctx.file,
        path: jsonPathJoin('mcpServers', name),
      })
      return undefined
    }
    return withLoadoutVars({...rest, type: rest.type ?? 'http', url: httpUrl})
  }
  if (typeof rest.url === 'string' && rest.type === undefined) return withLoadoutVars({...rest, type: 'sse'})
  return withLoadoutVars(rest)
}

const readServers = (json: Json, ctx: ManifestContext): Declaration['mcpComponents'] => {
  if (json.mcpServers === undefined) return undefined
  if (!isRecord(json.mcpServers)) {
    ctx.report.error('manifest-field-invalid', `"mcpServers" must be an object of named servers, not ${typeName(json.mcpServers)}`, {
      file: ctx.file,
      path: 'mcpServers',
    })
    return []
  }
  const servers: Json = {}
  for (const [name, raw] of Object.entries(json.mcpServers)) {
    const server = asLoadoutServer(name, raw, ctx)
    if (server !== undefined) servers[name] = server
  }
  return parseMcpServers({mcpServers: servers}, '', {file: ctx.file, report: ctx.report})
}

/** `contextFileName`: checked like any path, and said not to be installed. */
const readContextFiles = (json: Json, ctx: ManifestContext): void => {
  const value = json.contextFileName
  if (value === undefined) return
  const names = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined
  if (!names) {
    ctx.report.error('manifest-field-invalid', `"contextFileName" must be a file name or a list of them, not ${typeName(value)}`, {
      file: ctx.file,
      path: 'contextFileName',
    })
    return
  }
  names.forEach((raw, i) => {
    const jsonPath = typeof value === 'string' ? 'contextFileName' : jsonPathJoin('contextFileName', i)
    ctx.report.attempt(() => checkManifestPath(raw, {root: ctx.root, file: ctx.file, jsonPath, requireDotSlash: false}))
  })
  ctx.report.warn(
    'context-files-not-installed',
    '"contextFileName" is not installed: Gemini CLI loads an extension\'s context files only from inside an installed extension, and no agent loadout writes to reads them from a loose file',
    {file: ctx.file, path: 'contextFileName'},
  )
}

export const readGeminiExtension = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: false}
  const declaration: Declaration = {kind: 'gemini', file, ...readMetadata(json, ctx), skillDialect: 'spec'}
  const servers = readServers(json, ctx)
  if (servers) declaration.mcpComponents = servers
  readContextFiles(json, ctx)
  if (json.excludeTools !== undefined) {
    report.warn(
      'exclude-tools-not-installed',
      '"excludeTools" is not installed: it limits Gemini CLI\'s own tools while the extension is active, and loadout writes no such setting',
      {file, path: 'excludeTools'},
    )
  }
  return declaration
}
