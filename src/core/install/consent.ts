import {createHash} from 'node:crypto'
import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../environment.js'
import {stableStringify, readJsonFile, writeJsonFile} from '../fs/json.js'
import {hookCommandsForConsent, type HookConsent} from '../formats/hooks.js'
import {describeMcpForConsent, type McpConsent} from '../formats/mcp.js'
import type {PluginModel} from '../plugin/types.js'

/** One part of a plugin that runs code on the user's machine, as it is shown before installing. */
export type ConsentItem =
  | {kind: 'hook'; component: string; hook: HookConsent}
  | {kind: 'mcp'; component: string; server: McpConsent}
  | {kind: 'tool'; component: string; tool: {command: string | string[]; perm: string; timeout: number}}

export interface ConsentSummary {
  items: ConsentItem[]
  /** sha256 of exactly what is shown: an approval is bound to it */
  fingerprint: string
}

export const consentSummary = (id: string, model: PluginModel): ConsentSummary => {
  const items: ConsentItem[] = [
    ...model.hooks.flatMap((h) => hookCommandsForConsent(h.events).map((hook): ConsentItem => ({kind: 'hook', component: `${id}/hooks/${h.name}`, hook}))),
    ...model.mcpServers.map((m): ConsentItem => ({kind: 'mcp', component: `${id}/mcp/${m.name}`, server: describeMcpForConsent(m.config)})),
    ...model.tools.map((t): ConsentItem => ({kind: 'tool', component: `${id}/tool/${t.name}`, tool: {command: t.command, perm: t.perm, timeout: t.timeout}})),
  ]
  const fingerprint = `sha256-${createHash('sha256').update(stableStringify(items)).digest('hex')}`
  return {items, fingerprint}
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

export const describeConsentItem = (item: ConsentItem): string => {
  switch (item.kind) {
    case 'hook':
      return `hook ${item.hook.event}${item.hook.matcher ? ` (${item.hook.matcher})` : ''}: runs ${JSON.stringify((item.hook as {command?: string}).command ?? '')}`
    case 'mcp': {
      const s = item.server
      const what = s.url ? `connects to ${s.url}` : `runs ${[s.command, ...(s.args ?? [])].map((a) => JSON.stringify(a)).join(' ')}`
      return `MCP server ${item.component.split('/').pop()}: ${what}${s.envNames.length > 0 ? ` with env ${s.envNames.join(', ')}` : ''}`
    }
    case 'tool':
      return `exec tool ${item.component.split('/').pop()}: runs ${JSON.stringify(item.tool.command)} (perm ${item.tool.perm}, timeout ${item.tool.timeout}s)`
    default: {
      const never: never = item
      return never
    }
  }
}
