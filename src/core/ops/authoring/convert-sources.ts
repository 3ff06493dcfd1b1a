/**
 * Where each part of a plugin comes from, as `plugin convert` needs to know it: the raw manifests,
 * the hook and MCP files in effect, the origin of every MCP server (a file, or inline in which
 * manifest), and the conventional folders. The reader merges every manifest it finds, so a new
 * manifest must point at the same files the plugin already uses (or define the same thing inline),
 * or the plugin would hold two different definitions under one name.
 */
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {safeRealpath} from '../../kernel/fs/contain.js'
import {isRecord, parseMcpServers} from '../../kernel/plugin/components.js'
import {MAX_MANIFEST_BYTES, parseManifestJson, type Declaration} from '../../kernel/plugin/manifest-fields.js'
import {readDeclarations} from '../../kernel/plugin/manifests.js'
import {entryKind, followedKind, readContainedText} from '../../kernel/plugin/paths.js'
import {PluginReport} from '../../kernel/plugin/report.js'
import type {McpServerConfig, PluginModel} from '../../model/plugin.js'
import {
  HOOKS_CONVENTION,
  MCP_CONVENTION,
  type HookSource,
  type McpOrigin,
  type PluginSources,
  type RawManifest,
} from '../../kernel/plugin/manifest-formats/convert-plan.js'

const readJson = (file: string, root: string): unknown => {
  try {
    return parseManifestJson(readContainedText(file, {root, file, maxBytes: MAX_MANIFEST_BYTES}), file)
  } catch {
    return undefined
  }
}

const realOf = (path: string): string => safeRealpath(path) ?? path

const childrenWith = (dir: string, keep: (path: string) => boolean): string[] => {
  if (followedKind(dir) !== 'dir') return []
  return readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter(keep)
    .map(realOf)
}

const rawManifests = (declarations: readonly Declaration[], root: string): RawManifest[] =>
  declarations.flatMap((d) => {
    if (d.kind === 'entry') return []
    const json = readJson(d.file, root)
    return isRecord(json) ? [{kind: d.kind, file: d.file, json}] : []
  })

const serversIn = (value: unknown, file: string): Array<{name: string; config: McpServerConfig}> =>
  parseMcpServers(value, '', {file, report: new PluginReport()}).map((s) => ({name: s.name, config: s.config}))

/** The MCP sources the reader uses: the declared ones when any manifest declares servers, else `.mcp.json`. */
const mcpOrigins = (declarations: readonly Declaration[], root: string): {files: string[]; origins: Map<string, McpOrigin[]>} => {
  const origins = new Map<string, McpOrigin[]>()
  const files: string[] = []
  const add = (name: string, origin: McpOrigin) => origins.set(name, [...(origins.get(name) ?? []), origin])
  const addFile = (file: string, by: McpOrigin['by']) => {
    if (!files.includes(file)) files.push(file)
    for (const s of serversIn(readJson(file, root), file)) add(s.name, {kind: 'file', file, by, config: s.config})
  }
  const declared = declarations.some((d) => d.mcpServers !== undefined || d.mcpComponents !== undefined)
  if (!declared) {
    const file = join(root, MCP_CONVENTION)
    if (entryKind(file) !== 'missing') addFile(file, 'convention')
    return {files, origins}
  }
  for (const d of declarations) {
    for (const source of d.mcpServers ?? []) {
      if (source.kind === 'file') addFile(source.path, d.kind)
      else for (const s of serversIn(source.value, d.file)) add(s.name, {kind: 'inline', by: d.kind, config: s.config})
    }
    for (const server of d.mcpComponents ?? []) add(server.name, {kind: 'inline', by: d.kind, config: server.config})
  }
  return {files, origins}
}

const hookSources = (declarations: readonly Declaration[], root: string): HookSource[] => {
  if (!declarations.some((d) => d.hooks !== undefined)) {
    const file = join(root, HOOKS_CONVENTION)
    return entryKind(file) === 'missing' ? [] : [{kind: 'file', file, by: 'convention'}]
  }
  const seen = new Set<string>()
  return declarations.flatMap((d) =>
    (d.hooks ?? []).flatMap((source): HookSource[] => {
      if (source.kind === 'inline') return [{kind: 'inline', value: source.value, by: d.kind}]
      const real = realOf(source.path)
      if (seen.has(real)) return []
      seen.add(real)
      return [{kind: 'file', file: source.path, by: d.kind}]
    }),
  )
}

/** Reads where everything of the plugin at `model.root` comes from; the plugin was read without fatal problems. */
export const pluginSources = (model: PluginModel): PluginSources => {
  const root = model.root
  const declarations = readDeclarations(root, {}, new PluginReport())
  const {files, origins} = mcpOrigins(declarations, root)
  return {
    root,
    declarations,
    raw: rawManifests(declarations, root),
    mcpFiles: files,
    mcp: origins,
    hooks: hookSources(declarations, root),
    conventionalSkills: childrenWith(join(root, 'skills'), (p) => followedKind(p) === 'dir' && entryKind(join(p, 'SKILL.md')) !== 'missing'),
    conventionalAgents: childrenWith(join(root, 'agents'), (p) => p.toLowerCase().endsWith('.md') && followedKind(p) === 'file'),
    conventionalCommands: childrenWith(join(root, 'commands'), (p) => p.toLowerCase().endsWith('.md') && followedKind(p) === 'file'),
    agentListers: declarations.filter((d) => d.agents !== undefined).map((d) => d.kind),
  }
}
