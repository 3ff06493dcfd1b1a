/**
 * The cst-agent plugin manifest: a root `plugin.json` with exec `tools`, an optional `skills`
 * folder and stdio `mcpServers` (Claude Desktop shape). Its paths are plugin-relative and need no
 * `./`, but `..`, absolute paths and anything resolving outside the plugin are refused.
 */
import {isRecord, parseMcpServers, parseTool, type Json} from '../../components.js'
import {declaredPaths, readMetadata, type Declaration, type ManifestContext} from '../../manifest-fields.js'
import {checkManifestPath, typeName} from '../../paths.js'
import {jsonPathJoin} from '../../../json/path.js'
import type {PluginReport} from '../../report.js'
import type {ToolComponent} from '../../../../model/plugin.js'

/** The program of a tool command: the first list item, or the first word of a command string. */
const programOf = (command: string | string[]): string => (Array.isArray(command) ? command[0]! : command.trim().split(/\s+/)[0]!)

/** A program that names a file (it has a separator) must be a plugin-relative path; `python3` is left alone. */
const looksLikePath = (program: string): boolean => /[\\/]/.test(program) && !program.startsWith('${')

const checkToolProgram = (tool: ToolComponent, at: string, ctx: ManifestContext): boolean => {
  const program = programOf(tool.command)
  if (!looksLikePath(program)) return true
  const jsonPath = Array.isArray(tool.command) ? jsonPathJoin(jsonPathJoin(at, 'command'), 0) : jsonPathJoin(at, 'command')
  return ctx.report.attempt(() => checkManifestPath(program, {root: ctx.root, file: ctx.file, jsonPath, requireDotSlash: false})) !== undefined
}

const readTools = (json: Json, ctx: ManifestContext): ToolComponent[] | undefined => {
  if (json.tools === undefined) return undefined
  if (!Array.isArray(json.tools)) {
    ctx.report.error('manifest-field-invalid', `"tools" must be a list of tools, not ${typeName(json.tools)}`, {file: ctx.file, path: 'tools'})
    return []
  }
  const tools: ToolComponent[] = []
  json.tools.forEach((raw, i) => {
    const at = jsonPathJoin('tools', i)
    const tool = parseTool(raw, at, ctx)
    if (tool && checkToolProgram(tool, at, ctx)) tools.push(tool)
  })
  return tools
}

export const readCstAgentManifest = (json: Json, file: string, root: string, report: PluginReport): Declaration => {
  const ctx: ManifestContext = {root, file, report, requireDotSlash: false}
  const declaration: Declaration = {kind: 'cst-agent', file, ...readMetadata(json, ctx), skillDialect: 'cst-agent', installsWhole: true}
  const tools = readTools(json, ctx)
  if (tools) declaration.tools = tools
  const skills = declaredPaths(json, 'skills', ctx)
  if (skills) declaration.skills = skills
  if (json.mcpServers !== undefined) {
    if (isRecord(json.mcpServers)) declaration.mcpComponents = parseMcpServers(json.mcpServers, 'mcpServers', {file, report, stdioOnly: 'cst-agent'})
    else {
      report.error('manifest-field-invalid', `"mcpServers" must be an object of named stdio servers, not ${typeName(json.mcpServers)}`, {
        file,
        path: 'mcpServers',
      })
      declaration.mcpComponents = []
    }
  }
  return declaration
}
