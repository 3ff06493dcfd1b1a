import {createHash} from '../../kernel/crypto/node-crypto.js'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {stableStringify, readJsonFile, writeJsonFile} from '../../kernel/fs/json.js'
import {hookCommandsForConsent, renderHooks, type HookConsent} from '../../kernel/writers/hooks.js'
import {describeMcpForConsent, type McpConsent} from '../../kernel/writers/mcp.js'
import type {HookEvents, PluginModel, SkillComponent} from '../../model/plugin.js'
import type {AgentTarget} from '../../kernel/targets/types.js'
import type {TargetPlan} from './plan.js'
import {skillAsRead} from '../../kernel/plugin/collect.js'
import {MODE_EXECUTABLE} from '../../kernel/fs/integrity.js'
import type {PluginFiles} from './plugin-copy.js'
import {readLspServers} from '../../kernel/plugin/lsp-servers.js'
import {readBinFiles, readMonitors} from '../../kernel/plugin/native-runners.js'

/** One part of a plugin that runs code on the user's machine, as it is shown before installing. */
export type ConsentItem =
  | {kind: 'hook'; component: string; hook: HookConsent}
  | {kind: 'mcp'; component: string; server: McpConsent}
  | {kind: 'tool'; component: string; tool: {command: string | string[]; perm: string; timeout: number}}
  /** a language server the plugin declares (`lspServers`): an agent that loads the plugin as its own runs it */
  | {kind: 'lsp'; component: string; server: {command: string; args: string[]}}
  /** a monitor the plugin declares: an agent that loads the plugin as its own runs it for the whole session */
  | {kind: 'monitor'; component: string; monitor: {command: string}}
  /** a file in the plugin's `bin/`: an agent that loads the plugin as its own puts it on PATH */
  | {kind: 'bin'; component: string; file: string}
  /** `hooks:` in a skill's frontmatter: Claude Code runs them while the skill is active */
  | {kind: 'skill-hooks'; component: string; hooks: unknown}

/** The plugin's files that the executable parts can reach: all of them, bound by the tree's integrity. */
export interface ConsentFiles {
  count: number
  integrity: string
  /** files with the executable bit */
  executables: string[]
}

export interface ConsentSummary {
  items: ConsentItem[]
  files: ConsentFiles
  /** sha256 of exactly what is shown, the files' integrity included: an approval is bound to it */
  fingerprint: string
}

const skillHooksOf = (component: string, skill: SkillComponent): ConsentItem[] => {
  const hooks = skillAsRead(skill).frontmatter?.hooks
  return hooks === undefined || hooks === null ? [] : [{kind: 'skill-hooks', component, hooks}]
}

const summarize = (items: ConsentItem[], tree: PluginFiles): ConsentSummary => {
  const files: ConsentFiles = {
    count: tree.entries.length,
    integrity: tree.integrity,
    executables: tree.entries.filter((e) => e.mode === MODE_EXECUTABLE).map((e) => e.path),
  }
  const fingerprint = `sha256-${createHash('sha256')
    .update(stableStringify({items, files: files.integrity}))
    .digest('hex')}`
  return {items, files, fingerprint}
}

const hookItems = (component: string, events: HookEvents): ConsentItem[] =>
  hookCommandsForConsent(events).map((hook): ConsentItem => ({kind: 'hook', component, hook}))

const mcpItem = (id: string, m: PluginModel['mcpServers'][number]): ConsentItem => ({
  kind: 'mcp',
  component: `${id}/mcp/${m.name}`,
  server: describeMcpForConsent(m.config),
})

const toolItems = (id: string, model: PluginModel): ConsentItem[] =>
  model.tools.map((t): ConsentItem => ({kind: 'tool', component: `${id}/tool/${t.name}`, tool: {command: t.command, perm: t.perm, timeout: t.timeout}}))

/** What only an agent that loads the plugin as its own runs: language servers, monitors, and bin/ on its PATH. */
const lspItems = (id: string, model: PluginModel): ConsentItem[] => [
  ...readLspServers(model.root).map((l): ConsentItem => ({kind: 'lsp', component: `${id}/lsp/${l.name}`, server: {command: l.command, args: l.args}})),
  ...readMonitors(model.root).map((m): ConsentItem => ({kind: 'monitor', component: `${id}/monitor/${m.name}`, monitor: {command: m.command}})),
  ...readBinFiles(model.root).map((f): ConsentItem => ({kind: 'bin', component: `${id}/bin/${f}`, file: `bin/${f}`})),
]

/**
 * What a plugin as read runs: its hooks (in hooks files and in skills' frontmatter), MCP servers and
 * tools, and the files they can reach. What `update --review` compares between two versions; an install
 * shows `consentFromPlans`.
 */
export const consentSummary = (id: string, model: PluginModel, tree: PluginFiles): ConsentSummary =>
  summarize(
    [
      ...model.hooks.flatMap((h) => hookItems(`${id}/hooks/${h.name}`, h.events)),
      ...model.skills.flatMap((s) => skillHooksOf(`${id}/skills/${s.name}`, s)),
      ...model.mcpServers.map((m) => mcpItem(id, m)),
      ...toolItems(id, model),
      ...lspItems(id, model),
    ],
    tree,
  )

/**
 * What an install runs, read from its per-agent plans (after each agent's skips, renames and disabled
 * parts): a hook set as each agent gets it (its events, in its layout; the plugin's variables left as
 * the plugin spells them), the MCP servers, skills with hooks and exec tools written somewhere, and the
 * LSP servers of a plugin an agent loads as its own. A part no agent gets is not shown, and a part
 * written under another name shows that name. A command line that stays the same while the script it
 * runs changes changes the fingerprint all the same.
 */
export const consentFromPlans = (
  id: string,
  model: PluginModel,
  tree: PluginFiles,
  plans: readonly TargetPlan[],
  targets: readonly AgentTarget[],
): ConsentSummary => {
  const writes = (plan: TargetPlan, component: string) => plan.operations.some((o) => o.component === component)
  const native = plans.some((p) => p.operations.some((o) => o.component.startsWith(`${id}/native/`)))
  const written = (component: string) => native || plans.some((p) => writes(p, component))
  const writtenAs = (component: string, name: string) => plans.flatMap((p) => p.renamed).find((r) => r.component === component)?.as ?? name
  const hooks = model.hooks.flatMap((h) => {
    const component = `${id}/hooks/${h.name}`
    if (native) return hookItems(component, h.events)
    return plans.flatMap((plan) => {
      const shape = targets.find((t) => t.id === plan.target)?.hooks?.shape
      if (!shape || !writes(plan, component)) return []
      const rendered = renderHooks(h.events, shape)
      return 'unsupported' in rendered ? [] : hookItems(component, rendered.value)
    })
  })
  const items = [
    ...hooks,
    ...model.skills.flatMap((s) => {
      const component = `${id}/skill/${s.name}`
      return written(component) ? skillHooksOf(`${id}/skills/${writtenAs(component, s.name)}`, s) : []
    }),
    ...model.mcpServers.filter((m) => written(`${id}/mcp/${m.name}`)).map((m) => mcpItem(id, m)),
    ...(plans.some((p) => writes(p, `${id}/plugin/${model.name}`)) ? toolItems(id, model) : []),
    ...(native ? lspItems(id, model) : []),
  ]
  const seen = new Set<string>()
  return summarize(
    items.filter((item) => {
      const key = stableStringify(item)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    }),
    tree,
  )
}

interface Approvals {
  version: 1
  approvals: Record<string, string>
}

/** Approvals live only in the user's own config: a file committed to a project can never approve itself. */
export const approvalsFile = (env: Environment) => join(loadoutPaths(env).config, 'approvals.json')

export const isApproved = (env: Environment, id: string, fingerprint: string): boolean =>
  readJsonFile<Approvals>(approvalsFile(env), {version: 1, approvals: {}}).approvals[id] === fingerprint

export const storeApproval = (env: Environment, id: string, fingerprint: string): void => {
  const current = readJsonFile<Approvals>(approvalsFile(env), {version: 1, approvals: {}})
  writeJsonFile(approvalsFile(env), {version: 1, approvals: {...current.approvals, [id]: fingerprint}})
}

/** Forgets what was approved for a plugin (none of it is installed any more); the file goes with its last approval. */
export const dropApproval = (env: Environment, id: string): void => {
  const file = approvalsFile(env)
  const current = readJsonFile<Approvals>(file, {version: 1, approvals: {}})
  if (!(id in current.approvals)) return
  const {[id]: _dropped, ...rest} = current.approvals
  if (Object.keys(rest).length === 0) rmSync(file, {force: true})
  else writeJsonFile(file, {version: 1, approvals: rest})
}

export const describeConsentItem = (item: ConsentItem): string => {
  switch (item.kind) {
    case 'hook':
      return `hook ${item.hook.event}${item.hook.matcher ? ` (${item.hook.matcher})` : ''}: ${
        item.hook.type === 'prompt' ? `gives a model the prompt ${JSON.stringify(item.hook.prompt ?? '')}` : `runs ${JSON.stringify(item.hook.command ?? '')}`
      }`
    case 'mcp': {
      const s = item.server
      const what = s.url ? `connects to ${s.url}` : `runs ${[s.command, ...(s.args ?? [])].map((a) => JSON.stringify(a)).join(' ')}`
      const runner = s.runner ? `; changes the runner itself: ${s.runner.map((a) => JSON.stringify(a)).join(' ')}` : ''
      return `MCP server ${item.component.split('/').pop()}: ${what}${s.envNames.length > 0 ? ` with env ${s.envNames.join(', ')}` : ''}${runner}`
    }
    case 'skill-hooks':
      return `skill ${item.component.split('/').pop()} declares hooks: ${JSON.stringify(item.hooks)}`
    case 'lsp':
      return `LSP server ${item.component.split('/').pop()}: runs ${[item.server.command, ...item.server.args].map((a) => JSON.stringify(a)).join(' ')} (when the agent loads the plugin as its own: Claude Code, unless --loose)`
    case 'monitor':
      return `monitor ${item.component.split('/').pop()}: runs ${JSON.stringify(item.monitor.command)} for the whole session (when the agent loads the plugin as its own: Claude Code, unless --loose)`
    case 'bin':
      return `${item.file}: put on PATH for the commands the agent runs (when it loads the plugin as its own: Claude Code, unless --loose)`
    case 'tool':
      return `exec tool ${item.component.split('/').pop()}: runs ${JSON.stringify(item.tool.command)} (perm ${item.tool.perm}, timeout ${item.tool.timeout}s)`
    default: {
      const never: never = item
      return never
    }
  }
}
