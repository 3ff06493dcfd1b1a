/**
 * The generated matrix (issue 23 §3): every part kind × every agent in `registry/agents/` × user and
 * project scope. This module holds what the test knows without asking the code under test: each
 * agent's folders read straight from its registry file (with the sandbox's empty environment, so
 * only `path` bases apply), which parts it can hold, and a plugin holding the parts a cell needs.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {ROOT} from './cli.js'

export type Scope = 'user' | 'project'
export const SCOPES: readonly Scope[] = ['user', 'project']

export const PARTS = ['skill', 'subagent', 'command', 'command-hook', 'prompt-hook', 'stdio-mcp', 'remote-mcp'] as const
export type Part = (typeof PARTS)[number]

/** The registry section each part is written under. */
export const SECTION: Record<Part, Section> = {
  skill: 'skills',
  subagent: 'subagents',
  command: 'commands',
  'command-hook': 'hooks',
  'prompt-hook': 'hooks',
  'stdio-mcp': 'mcp',
  'remote-mcp': 'mcp',
}
const SECTIONS = ['skills', 'subagents', 'commands', 'mcp', 'hooks', 'plugins'] as const
type Section = (typeof SECTIONS)[number]

interface Location {
  scope: Scope
  path: string
}
interface AgentFile {
  id: string
  installs?: boolean
  bases: Record<string, Array<{path?: string; env?: string; platform?: string}>>
  [section: string]: unknown
}

export interface Agent {
  id: string
  installs: boolean
  file: AgentFile
}

const AGENTS_DIR = join(ROOT, 'registry', 'agents')

/** Every agent file in `registry/agents/`, read as data. */
export const registryAgents = (): Agent[] =>
  readdirSync(AGENTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const file = JSON.parse(readFileSync(join(AGENTS_DIR, f), 'utf8')) as AgentFile
      return {id: file.id, installs: file.installs !== false, file}
    })

export interface Roots {
  home: string
  project: string
}

/** A base's folder in a sandbox: no variable is set there, so the first plain path (for this platform). */
const baseFolder = (agent: Agent, name: string, roots: Roots): string => {
  const option = agent.file.bases[name]?.find((b) => b.path !== undefined && (!b.platform || b.platform === process.platform))
  if (!option?.path) throw new Error(`${agent.id}: base {${name}} has no plain path`)
  return expandHome(option.path, roots)
}

const expandHome = (path: string, roots: Roots): string => (path.startsWith('~/') ? join(roots.home, path.slice(2)) : path)

/** A location's absolute path: `{base}/...`, `~/...`, or (project scope) relative to the project root. */
const resolveLocation = (agent: Agent, location: Location, roots: Roots): string => {
  const base = /^\{(\w+)\}(.*)$/.exec(location.path)
  if (base) return baseFolder(agent, base[1]!, roots) + base[2]
  if (location.path.startsWith('~/')) return expandHome(location.path, roots)
  return join(location.scope === 'project' ? roots.project : roots.home, location.path)
}

const sectionOf = (agent: Agent, section: Section): {locations?: Location[]; shape?: string; note?: string} | undefined =>
  agent.file[section] as {locations?: Location[]; shape?: string; note?: string} | undefined

/** Where the agent reads a section in a scope (folders for files, files for config entries). */
export const locations = (agent: Agent, section: Section, scope: Scope, roots: Roots): string[] =>
  (sectionOf(agent, section)?.locations ?? []).filter((l) => l.scope === scope).map((l) => resolveLocation(agent, l, roots))

/** Every place the agent reads anything in the scope: what an install for it may write. */
export const readPlaces = (agent: Agent, scope: Scope, roots: Roots): string[] => SECTIONS.flatMap((s) => locations(agent, s, scope, roots))

/** The agent's own folders (its bases, but those that name a file such as `~/.claude.json`), where the canaries go. */
export const baseFolders = (agent: Agent, roots: Roots): string[] =>
  Object.keys(agent.file.bases).flatMap((name) => {
    try {
      const folder = baseFolder(agent, name, roots)
      return /[^/]\.json$/.test(folder) ? [] : [folder]
    } catch {
      return []
    }
  })

/**
 * Whether the agent can hold the part in the scope, from its registry file alone: a location for the
 * part's section; prompt hooks only where the hooks are Claude Code's own shape (no other agent runs
 * them); command hooks not in Cursor's; remote MCP servers not where the registry says the agent runs stdio servers only.
 */
export const supports = (agent: Agent, part: Part, scope: Scope): boolean => {
  if (!agent.installs) return false
  const section = sectionOf(agent, SECTION[part])
  if (!section?.locations?.some((l) => l.scope === scope)) return false
  if (part === 'prompt-hook') return section.shape === 'claude'
  // Cursor's hook events give a command another input and expect another reply: Claude hooks cannot run there
  if (part === 'command-hook') return section.shape !== 'cursor'
  if (part === 'remote-mcp') return !/stdio only/i.test(section.note ?? '')
  return true
}

/** The agent's native plugin form, read from its registry file: where loadout registers a plugin as the agent's own. */
export const nativeForm = (agent: Agent): {format: string; locations: Location[]} | undefined => {
  const form = agent.file.pluginForm as {form?: string; format?: string; flag?: string; locations?: Location[]} | undefined
  // native by default only: an agent whose flag is `--native` gets its own plugin only when asked
  return form?.form === 'native' && form.flag !== '--native' && form.format && form.locations ? {format: form.format, locations: form.locations} : undefined
}

/**
 * The plugin folders Claude Code loads in a scope, found as it finds them: each marketplace in the
 * scope's settings (`extraKnownMarketplaces`, a directory source; a project's relative to the project)
 * whose catalog lists a plugin switched on in `enabledPlugins`, at the catalog's `source`.
 */
export const claudePluginDirs = (agent: Agent, scope: Scope, roots: Roots): string[] => {
  const form = nativeForm(agent)
  if (!form) return []
  return form.locations
    .filter((l) => l.scope === scope)
    .flatMap((l) => {
      const file = resolveLocation(agent, l, roots)
      if (!existsSync(file)) return []
      const settings = JSON.parse(readFileSync(file, 'utf8')) as {
        extraKnownMarketplaces?: Record<string, {source?: {source?: string; path?: string}}>
        enabledPlugins?: Record<string, boolean>
      }
      return Object.entries(settings.extraKnownMarketplaces ?? {}).flatMap(([market, entry]) => {
        const path = entry.source?.source === 'directory' ? entry.source.path : undefined
        if (!path) return []
        const folder = path.startsWith('./') ? join(roots.project, path) : path
        const catalog = join(folder, '.claude-plugin', 'marketplace.json')
        if (!existsSync(catalog)) return []
        const plugins = (JSON.parse(readFileSync(catalog, 'utf8')) as {plugins?: Array<{name: string; source: string}>}).plugins ?? []
        return plugins.filter((p) => settings.enabledPlugins?.[`${p.name}@${market}`] === true).map((p) => join(folder, p.source))
      })
    })
}

/** The text that marks a part's content at a version: found in whatever the agent's form of the part is. */
export const marker = (part: Part, version: string): string => `mx-${part}-${version}`

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, text)
}

/** A Claude Code plugin `name` holding exactly `parts`, each carrying its marker for `version`. */
export const writePlugin = (folder: string, name: string, parts: readonly Part[], version: string): void => {
  const has = (p: Part) => parts.includes(p)
  write(join(folder, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0', description: 'matrix plugin'}))
  if (has('skill'))
    write(
      join(folder, 'skills', 'mx-skill', 'SKILL.md'),
      `---\nname: mx-skill\ndescription: Use when testing the matrix.\n---\n\n${marker('skill', version)}\n`,
    )
  if (has('subagent'))
    write(join(folder, 'agents', 'mx-agent.md'), `---\nname: mx-agent\ndescription: Reviews for the matrix.\n---\n\n${marker('subagent', version)}\n`)
  if (has('command')) write(join(folder, 'commands', 'mx-cmd.md'), `---\ndescription: A matrix command.\n---\n\n${marker('command', version)} $ARGUMENTS\n`)
  const hooks: Record<string, unknown[]> = {}
  if (has('command-hook')) hooks.SessionStart = [{hooks: [{type: 'command', command: `echo ${marker('command-hook', version)}`}]}]
  if (has('prompt-hook')) hooks.UserPromptSubmit = [{hooks: [{type: 'prompt', prompt: `${marker('prompt-hook', version)}: check the prompt.`}]}]
  if (Object.keys(hooks).length > 0) write(join(folder, 'hooks', 'hooks.json'), JSON.stringify({hooks}))
  const servers: Record<string, unknown> = {}
  if (has('stdio-mcp')) servers.local = {command: 'echo', args: [marker('stdio-mcp', version)]}
  if (has('remote-mcp')) servers.remote = {type: 'http', url: `https://mcp.example.com/${marker('remote-mcp', version)}`}
  if (Object.keys(servers).length > 0) write(join(folder, '.mcp.json'), JSON.stringify({mcpServers: servers}))
}

/** The component id an install records for a part of plugin `plugin@direct`. */
export const componentOf = (plugin: string, part: Part): string =>
  `${plugin}@direct/${
    {
      skill: 'skill/mx-skill',
      subagent: 'subagent/mx-agent',
      command: 'command/mx-cmd',
      'command-hook': 'hooks/hooks',
      'prompt-hook': 'hooks/hooks',
      'stdio-mcp': 'mcp/local',
      'remote-mcp': 'mcp/remote',
    }[part]
  }`

/**
 * Agents that read one folder for the same part in a scope (codex and universal on `~/.agents/skills`,
 * Gemini CLI beside them): each group is also installed together, in one run.
 */
export const sharingGroups = (agents: readonly Agent[], scope: Scope, roots: Roots): string[][] => {
  const byPlace = new Map<string, Set<string>>()
  for (const agent of agents.filter((a) => a.installs))
    for (const section of ['skills', 'subagents', 'commands'] as const)
      for (const place of locations(agent, section, scope, roots)) byPlace.set(place, new Set([...(byPlace.get(place) ?? []), agent.id]))
  // groups that overlap are merged, so that every agent sharing anything with another is in one run with it
  const groups: Array<Set<string>> = []
  for (const ids of byPlace.values()) {
    if (ids.size < 2) continue
    const overlapping = groups.filter((g) => [...ids].some((id) => g.has(id)))
    const merged = new Set([...ids, ...overlapping.flatMap((g) => [...g])])
    for (const g of overlapping) groups.splice(groups.indexOf(g), 1)
    groups.push(merged)
  }
  return groups.map((g) => [...g].sort())
}

/** Every file below the given places (a place may be a file) whose bytes hold `needle`. */
export const filesHolding = (places: readonly string[], needle: string): string[] => {
  const found = new Set<string>()
  const visit = (path: string) => {
    if (!existsSync(path)) return
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
    else if (readFileSync(path).includes(needle)) found.add(path)
  }
  for (const place of places) visit(place)
  return [...found].sort()
}
