/**
 * The form a plugin takes in an agent: its own plugin (`native`) where the agent has a plugin system
 * loadout writes (registry `pluginForm.form: native` with a format plan.ts plans), else loose parts.
 * Native is the default; `--loose` asks for loose parts. The form chosen is kept in the install record
 * (and so in loadout.lock), so that update, enable, a teammate's install and `install --frozen` in a
 * clone keep it.
 */
import type {InstallRecord} from '../../kernel/state/records.js'
import type {PluginModel} from '../../model/plugin.js'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {readLspServers} from '../../kernel/plugin/lsp-servers.js'
import {readBinFiles, readMonitors} from '../../kernel/plugin/native-runners.js'
import {isMcpId} from '../../kernel/mcp/spec.js'

export type FormChoice = 'native' | 'loose'

/** The form a record says its plugin took (read from disk: only the two words count; older records by their components). */
export const recordedForm = (record: InstallRecord): FormChoice => {
  const form = (record as {form?: unknown}).form
  if (form === 'native' || form === 'loose') return form
  return record.components.some((c) => c.startsWith(`${record.plugin}/native/`)) ? 'native' : 'loose'
}

const looseParts = (model: PluginModel): number =>
  model.skills.length + model.subagents.length + model.commands.length + model.mcpServers.length + model.hooks.length + model.tools.length

/**
 * A plugin with no part the agent's own plugin system loads either (a Codex plugin with only app
 * connectors): nothing is registered for it, as nothing is written as loose parts.
 */
export const nothingNative = (model: PluginModel): boolean =>
  looseParts(model) === 0 &&
  readLspServers(model.root).length === 0 &&
  readMonitors(model.root).length === 0 &&
  readBinFiles(model.root).length === 0 &&
  !existsSync(join(model.root, 'output-styles'))

/** A plugin with nothing loose files can hold but language servers: only the agent's own plugin loads it. */
export const onlyNativeParts = (model: PluginModel): boolean => looseParts(model) === 0 && readLspServers(model.root).length > 0

/**
 * The form for one agent that has a native form loadout writes (plan.ts NATIVE_PLANNERS): loose for a
 * standalone MCP server (not a plugin); native for a plugin only the agent's plugin system can load;
 * else what was asked (`--loose`, `--native`), else what its record says, else loadout.json's word (`form: loose`), else the
 * agent's default (native, or loose where the registry's flag is `--native`).
 */
export const chooseForm = (
  id: string,
  model: PluginModel,
  asked: FormChoice | undefined,
  record: InstallRecord | undefined,
  fallback: FormChoice = 'native',
): FormChoice => {
  if (isMcpId(id)) return 'loose'
  if (onlyNativeParts(model)) return 'native'
  return asked ?? (record ? recordedForm(record) : fallback)
}
