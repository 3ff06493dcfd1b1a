import {createHash} from 'node:crypto'
import {rmSync} from 'node:fs'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {stableStringify, readJsonFile, writeJsonFile} from '../../kernel/fs/json.js'
import {hookCommandsForConsent, type HookConsent} from '../../kernel/writers/hooks.js'
import {describeMcpForConsent, type McpConsent} from '../../kernel/writers/mcp.js'
import type {PluginModel} from '../../model/plugin.js'
import {readSkillDir} from '../../kernel/skills/read.js'
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

const skillHooks = (id: string, model: PluginModel): ConsentItem[] =>
  model.skills.flatMap((s) => {
    const hooks = readSkillDir(s.dir).frontmatter?.hooks
    return hooks === undefined || hooks === null ? [] : [{kind: 'skill-hooks' as const, component: `${id}/skills/${s.name}`, hooks}]
  })

/**
 * What a plugin runs: its hooks (in hooks files and in skills' frontmatter), MCP servers and tools,
 * and the files they can reach. A command line that stays the same while the script it runs changes
 * changes the fingerprint all the same.
 */
export const consentSummary = (id: string, model: PluginModel, tree: PluginFiles): ConsentSummary => {
  const items: ConsentItem[] = [
    ...model.hooks.flatMap((h) => hookCommandsForConsent(h.events).map((hook): ConsentItem => ({kind: 'hook', component: `${id}/hooks/${h.name}`, hook}))),
    ...skillHooks(id, model),
    ...model.mcpServers.map((m): ConsentItem => ({kind: 'mcp', component: `${id}/mcp/${m.name}`, server: describeMcpForConsent(m.config)})),
    ...model.tools.map((t): ConsentItem => ({kind: 'tool', component: `${id}/tool/${t.name}`, tool: {command: t.command, perm: t.perm, timeout: t.timeout}})),
    ...readLspServers(model.root).map((l): ConsentItem => ({kind: 'lsp', component: `${id}/lsp/${l.name}`, server: {command: l.command, args: l.args}})),
    ...readMonitors(model.root).map((m): ConsentItem => ({kind: 'monitor', component: `${id}/monitor/${m.name}`, monitor: {command: m.command}})),
    ...readBinFiles(model.root).map((f): ConsentItem => ({kind: 'bin', component: `${id}/bin/${f}`, file: `bin/${f}`})),
  ]
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
