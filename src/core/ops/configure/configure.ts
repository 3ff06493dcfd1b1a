/**
 * `loadout configure <plugin>`: sets a plugin's userConfig options (from --set K=V, or asked on a
 * terminal), stores them (sensitive ones in the 0600 secrets file), and reinstalls the plugin from its
 * installed copy so its MCP servers and hooks carry the new values.
 */
import type {Environment} from '../../kernel/env/environment.js'
import {LoadoutError, notFound, usageError} from '../../model/errors.js'
import type {InstallRecord} from '../../kernel/state/records.js'
import {readPluginExtras, type UserConfigOption} from '../../kernel/resolve/manifest.js'
import {installPrepared, prepareFetched, preparePlugin} from '../install/install.js'
import {recordsFor} from '../install/remove.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {loadTargets, pickTargets} from '../../kernel/targets/registry.js'
import type {AskUserConfig} from '../../kernel/user-config/ensure.js'
import {own, storeValues, type StoredValue} from '../../kernel/user-config/store.js'
import {legacySecretEnvName, secretEnvName} from '../../kernel/user-config/substitute.js'
import {configState, parseValue} from '../../kernel/user-config/values.js'

export interface ConfiguredOption {
  key: string
  type: UserConfigOption['type']
  title?: string
  description?: string
  required: boolean
  sensitive: boolean
  set: boolean
  /** the value, for options that are not sensitive */
  value?: StoredValue
  /** sensitive options: the variable agents that expand one read it from */
  env?: string
}

export interface ConfigureResult {
  plugin: string
  scope: string
  options: ConfiguredOption[]
  changed: string[]
  missing: string[]
  /** the plugin was written again with the new values */
  reapplied: boolean
  /** with `export`: shell lines setting the sensitive variables (the only place loadout prints a secret) */
  exports?: string[]
}

export interface ConfigureOptions {
  env: Environment
  context: ScopeContext
  sets: readonly string[]
  ask?: AskUserConfig
  export?: boolean
}

/** The plugin's records in the scope, or undefined when it is not installed there. */
const installedRecords = (input: string, env: Environment, context: ScopeContext): InstallRecord[] | undefined => {
  try {
    return recordsFor(input, env, context).mine
  } catch (error) {
    if (error instanceof LoadoutError && error.code === 'not-installed') return undefined
    throw error
  }
}

const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`

/**
 * `export NAME=value` for each sensitive value that is set; an install written by an earlier version
 * names the variable by its old, ambiguous name, so that name is exported too while a record of the
 * plugin still writes it (any reinstall or `configure` change writes the new name).
 */
const exportLines = (id: string, declared: readonly UserConfigOption[], values: Record<string, StoredValue>, records: readonly InstallRecord[]): string[] => {
  const written = JSON.stringify(records.map((r) => r.config.map((edit) => edit.value)))
  return declared.flatMap((o) => {
    const value = o.sensitive ? own(values, o.key) : undefined
    if (value === undefined) return []
    const names = [secretEnvName(id, o.key)]
    const legacy = legacySecretEnvName(id, o.key)
    if (written.includes(`\${${legacy}}`)) names.push(legacy)
    return names.map((name) => `export ${name}=${shellQuote(String(value))}`)
  })
}

export const configurePlugin = async (input: string, options: ConfigureOptions): Promise<ConfigureResult> => {
  const {env, context} = options
  const installed = installedRecords(input, env, context)
  let id: string
  let declared: UserConfigOption[]
  if (installed) {
    id = installed[0]!.plugin
    if (!installed[0]!.pluginRoot) throw notFound('installed-copy-missing', `${id} has no installed copy to read its options from; reinstall it`)
    declared = readPluginExtras(installed[0]!.pluginRoot).userConfig
  } else {
    // Not installed yet: the options are read from the plugin itself, so they can be set before an
    // install that runs off a terminal (which cannot ask).
    const prepared = await preparePlugin(input, {env, context, offline: false})
    id = prepared.id
    declared = readPluginExtras(prepared.fetched.root, prepared.resolved.entry).userConfig
  }
  if (declared.length === 0 && options.sets.length > 0) throw usageError('no-user-config', `${id} declares no userConfig options`)

  const updates: Array<{key: string; value: StoredValue; sensitive: boolean}> = []
  for (const assignment of options.sets) {
    const at = assignment.indexOf('=')
    if (at <= 0) throw usageError('bad-set', `--set takes KEY=VALUE, not ${JSON.stringify(assignment.split('=')[0])}`)
    const key = assignment.slice(0, at)
    const option = declared.find((o) => o.key === key)
    if (!option) throw usageError('unknown-user-config', `${id} has no option "${key}" (it has ${declared.map((o) => o.key).join(', ') || 'none'})`)
    updates.push({key, value: parseValue(option, assignment.slice(at + 1), env), sensitive: option.sensitive})
  }
  if (options.sets.length === 0 && options.ask && declared.length > 0) {
    const answers = await options.ask(id, declared)
    for (const option of declared) {
      const value = own(answers, option.key)
      if (value !== undefined) updates.push({key: option.key, value, sensitive: option.sensitive})
    }
  }
  const before = configState(env, id, declared).values
  const changed = updates.filter((u) => before[u.key] !== u.value).map((u) => u.key)
  storeValues(env, id, updates)

  let reapplied = false
  if (changed.length > 0 && installed) {
    const mine = installed
    const first = mine[0]!
    const [, marketplace] = id.split('@') as [string, string]
    const resolved = {
      id,
      name: id.split('@')[0]!,
      marketplace,
      ...(first.version ? {version: first.version} : {}),
      fetch: {kind: 'folder' as const, path: first.pluginRoot!, label: first.source},
    }
    const fetched = {
      root: first.pluginRoot!,
      ...(first.commit ? {commit: first.commit} : {}),
      ...(first.artifact ? {artifact: first.artifact} : {}),
      integrity: first.integrity,
    }
    const prepared = await prepareFetched(resolved, fetched, {env, context, offline: false})
    const targets = pickTargets(
      mine.map((r) => r.target),
      await loadTargets(),
    )
    await installPrepared(
      {...prepared, id: marketplace === DIRECT ? id : prepared.id},
      {env, context, targets, dryRun: false, force: true, prefix: false, offline: true, yes: false},
    )
    reapplied = true
  }

  const state = configState(env, id, declared)
  const shown = declared.map((o): ConfiguredOption => ({
    key: o.key,
    type: o.type,
    ...(o.title ? {title: o.title} : {}),
    ...(o.description ? {description: o.description} : {}),
    required: o.required,
    sensitive: o.sensitive,
    set: state.values[o.key] !== undefined,
    ...(!o.sensitive && state.values[o.key] !== undefined ? {value: state.values[o.key]} : {}),
    ...(o.sensitive ? {env: secretEnvName(id, o.key)} : {}),
  }))
  const exports = options.export ? exportLines(id, declared, state.values, installed ?? []) : undefined
  return {plugin: id, scope: context.scope, options: shown, changed, missing: state.missing, reapplied, ...(exports ? {exports} : {})}
}
