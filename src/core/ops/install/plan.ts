import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {basename, dirname, isAbsolute, join, posix, relative, sep} from 'node:path'
import {getJsonMember, parseJsonText} from '../../kernel/agent-config/json-edit.js'
import type {TomlEntries} from '../../kernel/agent-config/toml-edit.js'
import {getTomlTable, parseTomlText} from '../../kernel/agent-config/toml-read.js'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, validationFailed} from '../../model/errors.js'
import {confusableWith, lookAlikeIndex} from '../../kernel/text/name-skeleton.js'
import {assertNoLinksBelow} from '../../kernel/fs/contain.js'
import {renderCommand} from '../../kernel/writers/command.js'
import {spellEnvReferences} from '../../kernel/writers/env-refs.js'
import {renderHooks} from '../../kernel/writers/hooks.js'
import {mcpServerKey, renderMcpEntry} from '../../kernel/writers/mcp.js'
import {renderSubagent, riskyFieldsOf} from '../../kernel/writers/subagent.js'
import {substitutePluginVars, type PluginVars} from '../../kernel/writers/substitute.js'
import {MAX_MARKDOWN_BYTES, mcpUrlRule} from '../../kernel/plugin/components.js'
import {readContainedText} from '../../kernel/plugin/paths.js'
import type {HookEvents, PluginModel} from '../../model/plugin.js'
import {referencesEnv, substituteUserConfig, type UserConfigVars} from '../../kernel/user-config/substitute.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {listSkillFiles, readSkillDir} from '../../kernel/skills/read.js'
import type {InstallRecord, Ownership, RecordedFile} from '../../kernel/state/records.js'
import {resolveLocation, writeLocation, type ResolvedLocation} from '../../kernel/targets/resolve.js'
import type {AgentTarget, PluginForm, SectionName} from '../../kernel/targets/types.js'
import {nativeMarketplaceEntry, nativeMarketplaceName, nativePluginKey, renderNativeMarketplace} from '../../kernel/writers/claude-marketplace.js'
import {renderCharacteroidSkill} from '../../kernel/writers/characteroid-skill.js'
import {filteredCopy} from '../../kernel/writers/claude-filtered-copy.js'
import type {DisabledParts} from '../../model/plugin.js'
import {noParts} from './parts.js'
import {nothingNative, type FormChoice} from './form.js'

/** One change to one agent's files, planned before anything is written. */
export type Operation =
  | {
      kind: 'copy-dir'
      component: string
      from: string
      dest: string
      root: string
      renameSkillTo?: string
      pluginVars?: PluginVars
      /** paths inside `from` (`/`-separated) not copied: the parts a filtered plugin copy leaves out */
      leaveOut?: string[]
      /** paths inside the copy given these bytes instead: hooks and MCP files without the parts left out */
      rewrite?: Record<string, string>
    }
  | {kind: 'write-file'; component: string; dest: string; root: string; content: string; dir?: string}
  | {kind: 'json-member'; component: string; file: string; root: string; path: string[]; key: string; value: unknown; hooks?: HookEvents}
  | {kind: 'toml-table'; component: string; file: string; root: string; table: string[]; entries: TomlEntries}
  /**
   * What another agent's write puts where this agent reads it (see shared-dests.ts): nothing is written,
   * and this agent's record names the same files. `recorded` when they come from an earlier install.
   */
  | {kind: 'shared'; component: string; dest: string; with: string; recorded?: SharedEntries}

/** The part of a record a shared write stands for: its files, the tree it wrote whole, the folders it made. */
export interface SharedEntries {
  files: RecordedFile[]
  trees: string[]
  dirs: string[]
}

/** A part written under its plugin-qualified name because its own name was taken in the agent's folder. */
export interface Renamed {
  component: string
  /** the part's own name */
  name: string
  /** the name it is written under: `<plugin>-<name>` */
  as: string
  /** who holds the name: another plugin's id, or the user (with --prefix) */
  because: string
}

export interface TargetPlan {
  target: string
  operations: Operation[]
  /** parts that took `<plugin>-<name>` because their name was taken */
  renamed: Renamed[]
  /** parts this agent cannot hold, and why */
  skipped: Array<{component: string; reason: string}>
  /** what changed in a part on its way into this agent's form (a field it has no place for) */
  notes: Array<{component: string; note: string}>
  /** an agent with a native plugin form: the form this plugin took there (kept in its record) */
  form?: FormChoice
}

export interface PlanInput {
  id: string
  model: PluginModel
  targets: readonly AgentTarget[]
  env: Environment
  context: ScopeContext
  ownership: Ownership
  /** records of this plugin being replaced (reinstall, update): what they own is not a conflict */
  replacing: readonly InstallRecord[]
  /** records of this plugin for the scope's other agents: a folder they share is written once (shared-dests.ts) */
  siblings?: readonly InstallRecord[]
  /** the integrity of the tree being installed: a sibling of another version shares nothing */
  integrity?: string
  prefix: boolean
  /** the form per agent (see form.ts), given its default (loose where the registry's flag `--native` asks for native); absent, loose parts */
  form?: (target: AgentTarget, fallback: FormChoice) => FormChoice
  /** the installed copy, absolute: what a native plugin's marketplace offers */
  pluginRoot?: string
  /** the name that marketplace is registered under (see native-name.ts); absent, the user scope's */
  marketplace?: string
  /** a project install: the agents this plugin is installed natively for in the user scope too, which then load both copies */
  nativeInUserScope?: ReadonlySet<string>
  /** the parts turned off for these targets, and the plugin with every part (`model` is without them): a native plugin is offered a copy without them */
  disabled?: {parts: DisabledParts; whole: PluginModel}
  /** the plugin variables, or how each agent spells them (project scope: see project-root.ts) */
  /** the plugin variables as `target` spells them, in the commands of `section` when one is given */
  vars: PluginVars | ((target: AgentTarget, section?: 'hooks' | 'mcp') => PluginVars)
  /** the plugin's userConfig values, for `${user_config.KEY}` */
  userConfig?: UserConfigVars
}

const varsOf = (input: PlanInput, target: AgentTarget, section?: 'hooks' | 'mcp'): PluginVars =>
  typeof input.vars === 'function' ? input.vars(target, section) : input.vars

/** A reference the agent expands (`${VAR}`, `${env:VAR}`, `{env:VAR}`): the url rules judge the rest of the url. */
const ENV_REFERENCE = /\$?\{[^}]*\}/g

const componentId = (id: string, kind: string, name: string) => `${id}/${kind}/${name}`

const firstLocation = (target: AgentTarget, section: SectionName, input: PlanInput): ResolvedLocation | undefined => {
  const data = target[section]
  const location = data ? writeLocation(data.locations, input.context.scope) : undefined
  return location ? resolveLocation(target, location, input.env, input.context.projectRoot) : undefined
}

/** The first folder or file of a section for the scope; when the target has none, the part is reported as skipped. */
const locationOrSkip = (
  input: PlanInput,
  target: AgentTarget,
  section: 'subagents' | 'commands' | 'mcp' | 'hooks',
  what: string,
  plan: TargetPlan,
  component: string,
): ResolvedLocation | undefined => {
  const location = target[section] ? firstLocation(target, section, input) : undefined
  if (!location) plan.skipped.push({component, reason: target.lacks?.[section] ?? `${target.name} has no ${input.context.scope}-scope ${what}`})
  else noteTrust(plan, target, location, component)
  return location
}

/** A folder the agent reads only in a trusted workspace: said once per part written there. */
const noteTrust = (plan: TargetPlan, target: AgentTarget, location: ResolvedLocation, component: string): void => {
  if (!location.requiresTrust) return
  const how = target.id === 'cst-agent' ? 'run `/plugins trust` in cst-agent' : `trust the workspace in ${target.name}`
  plan.notes.push({component, note: `${target.name} loads ${location.absolute} only in a trusted workspace: ${how} before it is used`})
}

/** cst-agent loads the skills of a plugin copied whole into its plugins folder from there: a second copy loads them twice. */
const copiedWhole = (input: PlanInput, target: AgentTarget): ResolvedLocation | undefined =>
  input.model.tools.length > 0 && target.plugins ? firstLocation(target, 'plugins', input) : undefined

const ownedByReplaced = (input: PlanInput, path: string): boolean =>
  [...input.replacing, ...(input.siblings ?? [])].some((r) => r.files.some((f) => f.path === path || f.path.startsWith(path + '/')) || r.dirs.includes(path))

const configKeyOwned = (input: PlanInput, file: string, path: readonly string[], key: string): boolean =>
  input.replacing.some((r) => r.config.some((c) => c.file === file && c.key === key && c.path.join('\0') === path.join('\0')))

const readConfigText = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')

/** Who holds a path: this plugin's earlier install (fine), another plugin, or the user. */
const holderOf = (input: PlanInput, path: string): string | undefined => {
  if (!existsSync(path) || ownedByReplaced(input, path)) return undefined
  return input.ownership.ownerOf(path) ?? 'the user (not installed by loadout)'
}

/** The names already in a folder (file extensions dropped), to refuse one that looks like another. */
const namesIn = (dir: string): string[] => {
  try {
    return readdirSync(dir).map((n) => n.replace(/(\.agent)?\.(md|toml)$/, ''))
  } catch {
    return []
  }
}

const refuseConfusable = (kind: 'skill' | 'subagent', name: string, dir: string, target: AgentTarget): void => {
  const other = confusableWith(name, namesIn(dir))
  if (other === undefined) return
  throw validationFailed(`${kind}-name-confusable`, `${kind} "${name}" cannot be installed for ${target.id}: it looks like "${other}", already in ${dir}`, {
    suggestions: ['rename one of them so that the two names cannot be taken for each other'],
  })
}

/** An MCP server key that looks like one already in the agent's config file (NFKC, look-alikes) is refused. */
const refuseConfusableKey = (key: string, servers: McpFileServers, file: string, target: AgentTarget): void => {
  const other = servers.lookAlikes.confusable(key)
  if (other === undefined) return
  throw validationFailed('mcp-name-confusable', `MCP server "${key}" cannot be installed for ${target.id}: it looks like "${other}", already in ${file}`, {
    suggestions: ['rename one of them so that the two names cannot be taken for each other'],
  })
}

/** The servers an agent's MCP file holds at one key, read once per plan (not once per server). */
interface McpFileServers {
  present: Record<string, unknown> | undefined
  lookAlikes: ReturnType<typeof lookAlikeIndex>
}

const objectOrUndefined = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

const serversIn = (present: unknown): McpFileServers => {
  const object = objectOrUndefined(present)
  return {present: object, lookAlikes: lookAlikeIndex(object ? Object.keys(object) : [])}
}

const readMcpServers = (file: string, format: string, path: readonly string[]): McpFileServers => {
  const text = readConfigText(file)
  if (format === 'codex-toml') {
    parseTomlText(text, file)
    return serversIn(getTomlTable(text, [...path], file))
  }
  const parsed = parseJsonText(text.trim() === '' ? '{}' : text, file)
  return serversIn(path.reduce<unknown>((v, k) => objectOrUndefined(v)?.[k], parsed))
}

/** CHARACTOID keeps a skill as one YAML file: name, description, instructions (the SKILL.md body). */
const planYamlSkills = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  const location = firstLocation(target, 'skills', input)
  for (const skill of input.model.skills) {
    const component = componentId(input.id, 'skill', skill.name)
    if (!location) {
      plan.skipped.push({component, reason: `${target.name} has no ${input.context.scope}-scope skills folder`})
      continue
    }
    const dest = join(location.absolute, `${skill.name}.yaml`)
    const holder = holderOf(input, dest)
    if (holder) {
      plan.skipped.push({component, reason: `${target.name}: ${dest} belongs to ${holder}`})
      continue
    }
    const read = readSkillDir(skill.dir)
    const instructions = (substitutePluginVars(read.body, varsOf(input, target)) as string).trim()
    const content = renderCharacteroidSkill({
      name: skill.name,
      description: read.description ?? skill.name,
      instructions,
      allowedTools: read.frontmatter?.['allowed-tools'],
    })
    if (listSkillFiles(skill.dir, 2).files.length > 1) {
      plan.notes.push({
        component,
        note: `${target.name}: only the text of SKILL.md is written; the files beside it are not (a CHARACTOID skill is one YAML file)`,
      })
    }
    assertNoLinksBelow(location.root, dest)
    plan.operations.push({kind: 'write-file', component, dest, root: location.root, content})
  }
}

/**
 * A taken part name that cannot be resolved on its own. Inside the agent two plugins' parts coexist
 * under namespaced names (`<plugin>:<name>`); a loose folder has one flat namespace, so another
 * plugin's part is met by writing `<plugin>-<name>`, and the user's own file only with --prefix. The
 * suggestion is offered only when that prefixed name is itself free.
 */
const partTaken = (kind: PartKind, name: string, plugin: string, target: AgentTarget, dest: string, holder: string, prefixed: string | undefined) => {
  const shown = `${plugin}:${name}`
  const suggestions = prefixed
    ? [`install it as "${prefixed}" with --prefix (as a plugin, ${target.name} would show it as "${shown}")`, `or remove the other ${kind} first`]
    : [`remove or rename the ${kind} at ${dest} first (as a plugin, ${target.name} would show it as "${shown}")`]
  const hint = prefixed ? `; install it as "${prefixed}" with --prefix` : ''
  return conflict(`${kind}-taken`, `${kind} "${name}" cannot be installed for ${target.id}: ${dest} belongs to ${holder}${hint}`, {suggestions})
}

type PartKind = 'skill' | 'subagent' | 'command'

/** The plugin (not this one) whose install holds one of `paths`, the places the agent also reads a name from. */
const pluginHolding = (input: PlanInput, paths: readonly string[]): string | undefined => {
  for (const path of paths) {
    const owner = existsSync(path) && !ownedByReplaced(input, path) ? input.ownership.ownerOf(path) : undefined
    if (owner) return owner
  }
  return undefined
}

/** The first of `paths` the user holds (there, and installed by no plugin). */
const userHolding = (input: PlanInput, paths: readonly string[]): string | undefined =>
  paths.find((path) => existsSync(path) && !ownedByReplaced(input, path) && input.ownership.ownerOf(path) === undefined)

/**
 * The name a part is written under in a loose folder. `placesOf(name)` is where that name lands: the
 * path written first, then the paths in the agent's other folders that would show the same name. A name
 * another plugin holds is written as `<plugin>-<name>`, said in the plan; one the user holds refuses,
 * unless --prefix asks for the prefixed name.
 */
const placePart = (
  input: PlanInput,
  target: AgentTarget,
  plan: TargetPlan,
  part: {kind: PartKind; name: string; component: string},
  placesOf: (name: string) => readonly string[],
): string => {
  const [dest, ...elsewhere] = placesOf(part.name)
  const inDest = holderOf(input, dest!)
  // the user's own part of that name in another folder the agent reads: one of the two would hide the other
  const usersPath = inDest !== undefined && input.ownership.ownerOf(dest!) === undefined ? dest : userHolding(input, elsewhere)
  const usersHolder = usersPath && holderOf(input, usersPath)
  const holder = inDest ?? pluginHolding(input, elsewhere) ?? usersHolder
  if (!holder) return part.name
  const plugin = input.model.name
  const prefixed = `${plugin}-${part.name}`
  const [prefixedDest, ...prefixedElsewhere] = placesOf(prefixed)
  const prefixedHolder = holderOf(input, prefixedDest!) ?? pluginHolding(input, prefixedElsewhere) ?? userHolding(input, prefixedElsewhere)
  if (usersPath && usersHolder && !input.prefix)
    throw partTaken(part.kind, part.name, plugin, target, usersPath, usersHolder, prefixedHolder ? undefined : prefixed)
  if (prefixedHolder) {
    throw conflict(
      `${part.kind}-taken`,
      `${part.kind} "${part.name}" cannot be installed for ${target.id}: ${dest} belongs to ${holder}, and its plugin-qualified name "${prefixed}" (${prefixedDest}) to ${prefixedHolder}`,
      {
        suggestions: [
          `remove or rename the ${part.kind} at ${dest} or ${prefixedDest} first (as a plugin, ${target.name} would show it as "${plugin}:${part.name}")`,
        ],
      },
    )
  }
  plan.renamed.push({component: part.component, name: part.name, as: prefixed, because: holder})
  return prefixed
}

/** The folders of `section` an agent reads in the scope: where loadout writes and every other folder it also loads (OpenCode: `commands/` and `command/`). */
const foldersRead = (target: AgentTarget, section: 'skills' | 'subagents' | 'commands', input: Pick<PlanInput, 'context' | 'env'>): Set<string> =>
  new Set(
    (target[section]?.locations ?? [])
      .filter((l) => l.scope === input.context.scope)
      .map((l) => resolveLocation(target, l, input.env, input.context.projectRoot).absolute),
  )

/** The skills folders an agent reads in the scope, when it keeps skills as folders. */
export const skillFoldersRead = (target: AgentTarget, input: Pick<PlanInput, 'context' | 'env'>): Set<string> =>
  target.skills?.format === 'agent-skills' ? foldersRead(target, 'skills', input) : new Set()

/** Where a part's file lands (placePart's `placesOf`): in the folder written to, then in each other folder the agent reads, where its name is taken too. */
const landingPlaces = (folders: ReadonlySet<string>, written: string): ((file: string) => string[]) => {
  const others = [...folders].filter((folder) => folder !== written)
  return (file) => [join(written, file), ...others.map((folder) => join(folder, file))]
}

const planSkills = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  const {model, id} = input
  if (model.skills.length === 0) return
  if (target.skills?.format === 'characteroid-yaml') return planYamlSkills(input, target, plan)
  const location = target.skills?.format === 'agent-skills' ? firstLocation(target, 'skills', input) : undefined
  const whole = copiedWhole(input, target)
  for (const skill of model.skills) {
    const component = componentId(id, 'skill', skill.name)
    if (whole) {
      plan.skipped.push({
        component,
        reason: `${target.name} loads it from the plugin's own folder (${join(whole.absolute, model.name)}); a copy in its skills folder would load it twice`,
      })
      continue
    }
    if (!location) {
      plan.skipped.push({
        component,
        reason: target.skills
          ? `${target.name} keeps skills as ${target.skills.format}, which loadout does not write yet`
          : `${target.name} has no ${input.context.scope}-scope skills folder`,
      })
      continue
    }
    const name = placePart(input, target, plan, {kind: 'skill', name: skill.name, component}, landingPlaces(skillFoldersRead(target, input), location.absolute))
    const dest = join(location.absolute, name)
    assertNoLinksBelow(location.root, dest)
    refuseConfusable('skill', name, location.absolute, target)
    // no agent expands ${CLAUDE_PLUGIN_ROOT} in a skill outside a plugin: the installed copy's path is written
    plan.operations.push({
      kind: 'copy-dir',
      component,
      from: skill.dir,
      dest,
      root: location.root,
      pluginVars: varsOf(input, target),
      ...(name === skill.name ? {} : {renameSkillTo: name}),
    })
  }
}

const planSubagents = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  const {model, id} = input
  for (const agent of model.subagents) {
    const component = componentId(id, 'subagent', agent.name)
    const location = locationOrSkip(input, target, 'subagents', 'subagents folder', plan, component)
    if (!target.subagents || !location) continue
    const text = substitutePluginVars({frontmatter: agent.frontmatter, body: agent.body}, varsOf(input, target)) as Pick<typeof agent, 'frontmatter' | 'body'>
    const format = target.subagents.format
    const placesOf = landingPlaces(foldersRead(target, 'subagents', input), location.absolute)
    const name = placePart(input, target, plan, {kind: 'subagent', name: agent.name, component}, (n) =>
      placesOf(renderSubagent({...agent, ...text}, format, {name: n}).path),
    )
    const rendered = renderSubagent({...agent, ...text}, format, {name})
    // hooks (and the like) in a subagent's frontmatter would run unasked: stripped, and said so
    for (const field of riskyFieldsOf(agent.frontmatter)) {
      plan.skipped.push({
        component: `${component}/${field}`,
        reason: `"${field}" in its frontmatter was stripped: it would run code or widen permissions without the consent loadout asks for`,
      })
    }
    for (const note of rendered.notes) plan.notes.push({component, note: `${target.name}: ${note}`})
    const dest = join(location.absolute, rendered.path)
    assertNoLinksBelow(location.root, dest)
    refuseConfusable('subagent', name, location.absolute, target)
    const parts = rendered.path.split('/')
    plan.operations.push({
      kind: 'write-file',
      component,
      dest,
      root: location.root,
      content: rendered.content,
      ...(parts.length > 1 ? {dir: join(location.absolute, parts[0]!)} : {}),
    })
  }
}

const planMcp = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  const {model, id} = input
  const read = new Map<string, McpFileServers>()
  for (const server of model.mcpServers) {
    const component = componentId(id, 'mcp', server.name)
    const section = target.mcp
    const location = locationOrSkip(input, target, 'mcp', 'MCP config', plan, component)
    if (!section || !location) continue
    const form = location.envReference ?? section.envReference
    const configured = substituteUserConfig(server.config, input.userConfig, referencesEnv(target.id, form))
    if ('refused' in configured) {
      plan.skipped.push({component, reason: `${target.name}: ${configured.refused}`})
      continue
    }
    const vars = varsOf(input, target, 'mcp')
    const config = substitutePluginVars(configured.value, vars) as typeof server.config
    const badUrl = config.url === undefined ? undefined : mcpUrlRule(config.url.replace(ENV_REFERENCE, 'x'))
    if (badUrl) {
      plan.skipped.push({component, reason: `${target.name}: ${badUrl[1]} (${badUrl[0]})`})
      continue
    }
    // a relative working folder means the plugin's folder: its installed copy, not the agent's
    if (config.cwd !== undefined && !isAbsolute(config.cwd)) {
      const inner = posix.normalize(config.cwd.replaceAll('\\', '/'))
      if (inner === '..' || inner.startsWith('../')) {
        plan.skipped.push({component, reason: `${target.name}: "cwd" ${JSON.stringify(server.config.cwd)} leads out of the plugin`})
        continue
      }
      config.cwd = inner === '.' ? vars.pluginRoot : `${vars.pluginRoot}/${inner.replace(/\/$/, '')}`
    }
    const rendered = renderMcpEntry(form ? spellEnvReferences(config, form) : config, section.shape)
    if ('unsupported' in rendered) {
      plan.skipped.push({component, reason: `${target.name}: ${rendered.unsupported}`})
      continue
    }
    for (const note of rendered.notes) plan.notes.push({component, note: `${target.name}: ${note}`})
    const key = server.key ?? mcpServerKey(model.name, server.name)
    const file = location.absolute
    assertNoLinksBelow(location.root, file)
    const path = section.format === 'codex-toml' ? [section.key] : [location.key ?? section.key]
    const cacheKey = `${file}\0${path.join('\0')}`
    let servers = read.get(cacheKey)
    if (!servers) read.set(cacheKey, (servers = readMcpServers(file, section.format, path)))
    refuseConfusableKey(key, servers, file, target)
    const taken = servers.present !== undefined && Object.hasOwn(servers.present, key)
    if (section.format === 'codex-toml') {
      const table = [section.key, key]
      if (taken && !configKeyOwned(input, file, table, '')) {
        throw conflict('mcp-key-taken', `${file} already has [${table.join('.')}], which loadout did not install`, {
          suggestions: ['rename or remove that entry, then try again'],
        })
      }
      plan.operations.push({kind: 'toml-table', component, file, root: location.root, table, entries: rendered.value as TomlEntries})
    } else {
      if (taken && !configKeyOwned(input, file, path, key)) {
        throw conflict('mcp-key-taken', `${file} already has an MCP server "${key}", which loadout did not install`, {
          suggestions: ['rename or remove that entry, then try again'],
        })
      }
      plan.operations.push({kind: 'json-member', component, file, root: location.root, path, key, value: rendered.value})
      for (const other of shadowingFiles(input, target, file, key, read)) {
        plan.notes.push({
          component,
          note: `${target.name}: ${other} already has a server "${key}"; ${target.name} merges its MCP files by server name, so one definition replaces the other (${target.mcp?.note ?? 'see its load order'})`,
        })
      }
    }
  }
}

/** The agent's other MCP files (either scope) that already define `key`: one of the two will not be used. */
const shadowingFiles = (input: PlanInput, target: AgentTarget, written: string, key: string, read: Map<string, McpFileServers>): string[] => {
  const section = target.mcp
  if (!section || section.format !== 'json-key') return []
  return section.locations.flatMap((l) => {
    const location = resolveLocation(target, l, input.env, input.context.projectRoot)
    if (location.absolute === written || !existsSync(location.absolute)) return []
    const path = [l.key ?? section.key]
    const cacheKey = `${location.absolute}\0${path.join('\0')}`
    let servers = read.get(cacheKey)
    if (!servers) {
      try {
        servers = readMcpServers(location.absolute, section.format, path)
      } catch {
        servers = serversIn(undefined)
      }
      read.set(cacheKey, servers)
    }
    return servers.present !== undefined && Object.hasOwn(servers.present, key) ? [location.absolute] : []
  })
}

const planHooks = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  const {model, id} = input
  for (const hooks of model.hooks) {
    const component = componentId(id, 'hooks', hooks.name)
    const section = target.hooks
    const location = locationOrSkip(input, target, 'hooks', 'hooks config', plan, component)
    if (!section || !location) continue
    const configured = substituteUserConfig(hooks.events, input.userConfig, referencesEnv(target.id, undefined))
    if ('refused' in configured) {
      plan.skipped.push({component, reason: `${target.name}: ${configured.refused}`})
      continue
    }
    const rendered = renderHooks(substitutePluginVars(configured.value, varsOf(input, target, 'hooks')) as HookEvents, section.shape)
    if ('unsupported' in rendered) {
      plan.skipped.push({component, reason: `${target.name}: ${rendered.unsupported}`})
      continue
    }
    for (const note of rendered.notes) plan.notes.push({component, note: `${target.name}: ${note}`})
    assertNoLinksBelow(location.root, location.absolute)
    const text = readConfigText(location.absolute)
    parseJsonText(text.trim() === '' ? '{}' : text, location.absolute)
    plan.operations.push({
      kind: 'json-member',
      component,
      file: location.absolute,
      root: location.root,
      path: [],
      key: section.key,
      value: undefined,
      hooks: rendered.value,
    })
  }
}

/** Slash commands in the agent's own form; one whose name is taken is written as `<plugin>-<name>` (see placePart). */
const planCommands = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  for (const command of input.model.commands) {
    const component = componentId(input.id, 'command', command.name)
    const location = locationOrSkip(input, target, 'commands', 'slash commands folder', plan, component)
    if (!target.commands || !location) continue
    const text = readContainedText(command.file, {root: input.model.root, file: command.file, maxBytes: MAX_MARKDOWN_BYTES})
    const format = target.commands.format
    const placesOf = landingPlaces(foldersRead(target, 'commands', input), location.absolute)
    const name = placePart(input, target, plan, {kind: 'command', name: command.name, component}, (n) => placesOf(renderCommand(n, text, format).path))
    const rendered = renderCommand(name, text, format)
    const dest = join(location.absolute, rendered.path)
    assertNoLinksBelow(location.root, dest)
    plan.operations.push({kind: 'write-file', component, dest, root: location.root, content: rendered.content})
  }
}

const planCommandsAndTools = (input: PlanInput, target: AgentTarget, plan: TargetPlan) => {
  planCommands(input, target, plan)
  if (input.model.tools.length === 0) return
  // Exec tools go in whole: the plugin is copied into the agent's plugins folder.
  const location = target.plugins ? firstLocation(target, 'plugins', input) : undefined
  if (!location) {
    for (const tool of input.model.tools)
      plan.skipped.push({component: componentId(input.id, 'tool', tool.name), reason: `${target.name} cannot run exec tools`})
  } else {
    const dest = join(location.absolute, input.model.name)
    const holder = holderOf(input, dest)
    if (holder) throw conflict('plugin-taken', `${dest} belongs to ${holder}`)
    noteTrust(plan, target, location, componentId(input.id, 'plugin', input.model.name))
    assertNoLinksBelow(location.root, dest)
    plan.operations.push({kind: 'copy-dir', component: componentId(input.id, 'plugin', input.model.name), from: input.model.root, dest, root: location.root})
  }
}

/**
 * The plugin as the agent's own (Claude Code, and the Copilot CLI, which reads the same keys; see
 * kernel/writers/claude-marketplace.ts): the catalog beside the installed copy, then the marketplace
 * and the plugin's switch in the scope's settings file. A project's
 * settings name the folder relative to the project (`./.loadout/plugins/<id>`), which `loadout
 * install` recreates from the lock on each machine: no machine path goes into a committed file.
 */
const planNative = (input: PlanInput, target: AgentTarget, plan: TargetPlan, form: PluginForm): void => {
  const component = componentId(input.id, 'native', input.model.name)
  const settings = form.locations ? writeLocation(form.locations, input.context.scope) : undefined
  if (!settings || !input.pluginRoot) {
    plan.skipped.push({component, reason: `${target.name} has no ${input.context.scope}-scope plugin settings`})
    return
  }
  const location = resolveLocation(target, settings, input.env, input.context.projectRoot)
  noteTrust(plan, target, location, component)
  const copies = dirname(input.pluginRoot)
  const marketplace = input.marketplace ?? nativeMarketplaceName(input.id)
  const catalog = join(copies, '.claude-plugin', 'marketplace.json')
  const holder = holderOf(input, catalog)
  if (holder) throw conflict('plugin-taken', `${catalog} belongs to ${holder}`)
  const content = renderNativeMarketplace(marketplace, {
    name: input.model.name,
    revision: planFilteredCopy(input, copies, component, plan) ?? basename(input.pluginRoot),
    ...(input.model.version ? {version: input.model.version} : {}),
  })
  plan.operations.push({kind: 'write-file', component, dest: catalog, root: copies, content})
  if (input.nativeInUserScope?.has(target.id))
    plan.notes.push({
      component,
      note: `${target.name} has ${input.id} from the user scope too, under another marketplace name: in this project it loads both copies, and a part turned off in one is still on in the other`,
    })
  const text = readConfigText(location.absolute)
  parseJsonText(text.trim() === '' ? '{}' : text, location.absolute)
  const path = input.context.scope === 'project' ? `./${relative(input.context.projectRoot, copies).split(sep).join('/')}` : copies
  const key = nativePluginKey(input.model.name, marketplace)
  for (const [section, name, value] of [
    ['extraKnownMarketplaces', marketplace, nativeMarketplaceEntry(path)],
    ['enabledPlugins', key, true],
  ] as const) {
    if (
      text.trim() !== '' &&
      getJsonMember(text, [section], name, location.absolute) !== undefined &&
      !configKeyOwned(input, location.absolute, [section], name)
    ) {
      throw conflict('plugin-taken', `${location.absolute} already has ${section}.${name}, which loadout did not install`, {
        suggestions: ['remove that entry, or install with --loose'],
      })
    }
    assertNoLinksBelow(location.root, location.absolute)
    plan.operations.push({kind: 'json-member', component, file: location.absolute, root: location.root, path: [section], key: name, value})
  }
}

/**
 * With parts turned off, Claude Code (which loads a plugin whole) is offered a copy of the plugin
 * without them, beside the installed copy (see kernel/writers/claude-filtered-copy.ts): written,
 * recorded and removed like any part. Returns its folder name, or nothing when every part is on.
 */
const planFilteredCopy = (input: PlanInput, copies: string, component: string, plan: TargetPlan): string | undefined => {
  const disabled = input.disabled
  if (!disabled || noParts(disabled.parts) || !input.pluginRoot) return undefined
  const filtered = filteredCopy(disabled.whole, disabled.parts, basename(input.pluginRoot))
  const dest = join(copies, filtered.revision)
  const holder = holderOf(input, dest)
  if (holder) throw conflict('plugin-taken', `${dest} belongs to ${holder}`)
  assertNoLinksBelow(copies, dest)
  plan.operations.push({
    kind: 'copy-dir',
    component,
    from: disabled.whole.root,
    dest,
    root: copies,
    leaveOut: filtered.leaveOut,
    rewrite: filtered.rewrite,
  })
  return filtered.revision
}

/** How each native format is planned, by the registry's `pluginForm.format`: an agent whose format is not here gets loose parts. */
const NATIVE_PLANNERS: Record<string, (input: PlanInput, target: AgentTarget, plan: TargetPlan, form: PluginForm) => void> = {
  'claude-marketplace': planNative,
}

/** Every file to write and config entry to add, per target; conflicts are found here, before any write. */
export const planInstall = (input: PlanInput): TargetPlan[] =>
  input.targets.map((target) => {
    const plan: TargetPlan = {target: target.id, operations: [], renamed: [], skipped: [], notes: []}
    const native = target.pluginForm?.form === 'native' ? target.pluginForm : undefined
    const planner = native?.format ? NATIVE_PLANNERS[native.format] : undefined
    // an agent whose registry names `--native` as its flag gets its own plugin only when asked (Copilot CLI)
    if (native && planner) plan.form = input.form?.(target, native.flag === '--native' ? 'loose' : 'native') ?? 'loose'
    if (native && planner && plan.form === 'native' && !nothingNative(input.model)) {
      planner(input, target, plan, native)
      return plan
    }
    planSkills(input, target, plan)
    planSubagents(input, target, plan)
    planMcp(input, target, plan)
    planHooks(input, target, plan)
    planCommandsAndTools(input, target, plan)
    if (plan.operations.length === 0) {
      plan.skipped.push({
        component: input.id,
        reason:
          plan.skipped.length === 0
            ? `nothing written for ${target.name}: the plugin holds no skill, subagent, command, MCP server or hook (see the warnings for parts no agent reads from files)`
            : `nothing written for ${target.name}: no part of the plugin can be written there (each is listed above with its reason)`,
      })
    }
    return plan
  })
