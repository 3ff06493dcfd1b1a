import {createHash} from '../crypto/node-crypto.js'
import {existsSync, readFileSync} from 'node:fs'
import {join, relative, sep} from 'node:path'
import type {DisabledParts, PluginModel} from '../../model/plugin.js'
import {isInside} from '../fs/contain.js'

/**
 * What Claude Code is offered when parts of a plugin installed as its own are turned off: a copy of
 * the installed copy beside it, without the folders and files of the skills, subagents and commands
 * turned off, and with the hook events and MCP servers turned off taken out of the files that define
 * them (`hooks/hooks.json`, `.mcp.json`, the files `.claude-plugin/plugin.json` names, or that
 * manifest's inline `hooks` / `mcpServers`). Claude Code loads a plugin whole, so leaving a part out of
 * what it reads is the only way to turn it off there.
 */
export interface FilteredCopy {
  /** the folder name beside the installed revision: `<revision>-without-<hash of the parts off>` */
  revision: string
  /** paths inside the copy (`/`-separated) not copied */
  leaveOut: string[]
  /** paths inside the copy given other bytes: JSON files with the parts off taken out */
  rewrite: Record<string, string>
}

type Json = Record<string, unknown>
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

const inside = (root: string, path: string): string => relative(root, path).split(sep).join('/')

/** `names` taken out of a map of hook events or MCP servers, wrapped under `wrapper` or bare. */
const without = (value: Json, wrapper: string, names: readonly string[]): Json => {
  if (isRecord(value[wrapper])) return {...value, [wrapper]: without(value[wrapper], wrapper, names)}
  return Object.fromEntries(Object.entries(value).filter(([k]) => !names.includes(k)))
}

const readJson = (file: string): Json | undefined => {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'))
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** The files a manifest field names (`"hooks": "./x.json"` or a list of them), inside the plugin. */
const namedFiles = (root: string, field: unknown): string[] =>
  (typeof field === 'string' ? [field] : Array.isArray(field) ? field.filter((f): f is string => typeof f === 'string') : [])
    .map((f) => join(root, f))
    .filter((f) => isInside(root, f))

const shortHash = (parts: DisabledParts): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12)

/** The filtered copy of `whole` (read from its root) with `parts` (normalized, not empty) off, installed as `revision`. */
export const filteredCopy = (whole: PluginModel, parts: DisabledParts, revision: string): FilteredCopy => {
  const root = whole.root
  const off = (names: readonly string[] | undefined, name: string) => (names ?? []).includes(name)
  const leaveOut = [
    ...whole.skills.filter((s) => off(parts.skills, s.name)).map((s) => inside(root, s.dir)),
    ...whole.subagents.filter((s) => off(parts.subagents, s.name)).map((s) => inside(root, s.file)),
    ...whole.commands.filter((c) => off(parts.commands, c.name)).map((c) => inside(root, c.file)),
  ].filter((p) => p !== '' && !p.startsWith('..'))
  const rewrite: Record<string, string> = {}
  const edit = (file: string, change: (json: Json) => Json) => {
    const json = existsSync(file) ? readJson(file) : undefined
    if (!json) return
    const changed = change(json)
    if (JSON.stringify(changed) !== JSON.stringify(json)) rewrite[inside(root, file)] = JSON.stringify(changed, null, 2) + '\n'
  }
  const hooksOff = parts.hooks ?? []
  const mcpOff = parts.mcp ?? []
  const manifestFile = join(root, '.claude-plugin', 'plugin.json')
  const manifest = existsSync(manifestFile) ? readJson(manifestFile) : undefined
  const hookFiles = [join(root, 'hooks', 'hooks.json'), ...namedFiles(root, manifest?.hooks)]
  const mcpFiles = [join(root, '.mcp.json'), ...namedFiles(root, manifest?.mcpServers)]
  if (hooksOff.length > 0) for (const file of new Set(hookFiles)) edit(file, (j) => without(j, 'hooks', hooksOff))
  if (mcpOff.length > 0) for (const file of new Set(mcpFiles)) edit(file, (j) => without(j, 'mcpServers', mcpOff))
  edit(manifestFile, (j) => {
    let out = j
    if (hooksOff.length > 0 && isRecord(out.hooks)) out = {...out, hooks: without(out.hooks, 'hooks', hooksOff)}
    if (mcpOff.length > 0 && isRecord(out.mcpServers)) out = {...out, mcpServers: without(out.mcpServers, 'mcpServers', mcpOff)}
    return out
  })
  return {revision: `${revision}-without-${shortHash(parts)}`, leaveOut, rewrite}
}
