/**
 * The pieces the format builders share: metadata in manifest form, skill paths that rely on the
 * conventional folder when they can, and MCP servers carried by naming their files or inline.
 */
import type {Json} from '../components.js'
import type {McpComponent, McpServerConfig, PluginModel, SubagentComponent} from '../../../model/plugin.js'
import {clashesWithOrigin, inlineServer, relPath, sameSet, type BuildContext, type Metadata, type NotCarried} from './convert-plan.js'

export const isFileAgent = (s: SubagentComponent): boolean => s.file.toLowerCase().endsWith('.md')

export const metadataJson = (m: Metadata): Json => ({
  name: m.name,
  ...(m.version !== undefined ? {version: m.version} : {}),
  ...(m.description !== undefined ? {description: m.description} : {}),
  ...(m.author ? {author: {...m.author}} : {}),
  ...(m.homepage ? {homepage: m.homepage} : {}),
  ...(m.repository ? {repository: m.repository} : {}),
  ...(m.license ? {license: m.license} : {}),
  ...(m.keywords ? {keywords: [...m.keywords]} : {}),
})

export const METADATA_KEYS = ['name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords']

/** Skill folders as the format spells them; undefined when they are exactly the `skills/` folders (found there by convention). */
export const skillPaths = (model: PluginModel, conventional: readonly string[], spell: (rel: string) => string): string[] | undefined => {
  const dirs = model.skills.map((s) => s.dir)
  if (dirs.length === 0 || sameSet(dirs, conventional)) return undefined
  return dirs.map((dir) => spell(relPath(model.root, dir)))
}

/** `./a` alone, or a list of several. */
export const oneOrList = (items: unknown[]): unknown => (items.length === 1 ? items[0] : items)

/** A component path with `${CLAUDE_PLUGIN_ROOT}` in its command: only Claude Code (and `loadout install`) fill it in. */
export const usesClaudeRoot = (value: unknown): boolean => JSON.stringify(value ?? null).includes('${CLAUDE_PLUGIN_ROOT}')

export const claudeRootNote = (names: readonly string[], format: string): string[] =>
  names.length === 0
    ? []
    : [
        `${names.join(', ')} ${names.length === 1 ? 'uses' : 'use'} \${CLAUDE_PLUGIN_ROOT}, which only Claude Code expands; \`loadout install\` writes the installed path in its place for ${format}`,
      ]

// ---------------------------------------------------------------------------------------------
// MCP servers shared by Claude and Codex

export interface McpCarry {
  /** manifest value parts: file paths and one inline object */
  files: string[]
  inline: Record<string, Json>
  carried: string[]
  notCarried: NotCarried[]
}

export const fileBacked = (server: McpComponent, ctx: BuildContext): boolean => (ctx.sources.mcp.get(server.name) ?? []).some((o) => o.kind === 'file')

/**
 * Servers in files are carried by naming the files; the rest inline, in the reader's own form.
 * `allInline` writes every server inline instead (Codex takes one file or one object).
 */
export const carryMcp = (
  ctx: BuildContext,
  keep: (s: McpComponent) => string | undefined,
  allInline: boolean,
  ignored: ReadonlyArray<keyof McpServerConfig> = [],
): McpCarry => {
  const out: McpCarry = {files: allInline ? [] : [...ctx.sources.mcpFiles], inline: {}, carried: [], notCarried: []}
  for (const server of ctx.model.mcpServers) {
    const refused = keep(server)
    if (refused) {
      out.notCarried.push({kind: 'mcp', name: server.name, reason: refused})
      continue
    }
    if (allInline || !fileBacked(server, ctx)) {
      const clash = clashesWithOrigin(server.name, server.config, ctx)
      if (clash) {
        out.notCarried.push({kind: 'mcp', name: server.name, reason: `it is defined differently in ${clash}; two definitions under one name would clash`})
        continue
      }
      out.inline[server.name] = inlineServer(server.config)
    }
    out.carried.push(server.name)
    for (const field of ignored.filter((k) => server.config[k] !== undefined)) {
      out.notCarried.push({
        kind: 'mcp',
        name: server.name,
        part: field,
        reason: `${ctx.formatName} has no such setting and ignores it; it stays in the entry so the plugin defines the server once`,
      })
    }
  }
  return out
}
