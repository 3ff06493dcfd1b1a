import {existsSync} from 'node:fs'
import type {Environment} from '../../kernel/env/environment.js'
import {EXIT, LoadoutError, notFound} from '../../model/errors.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {loadTargets, pickTargets} from '../../kernel/targets/registry.js'
import {installPrepared, type InstallResult} from './install.js'
import {readInstalledCopy} from '../../kernel/mcp/model.js'
import {admitPluginModel} from '../../kernel/policy/gate.js'
import {recordsFor} from './remove.js'
import {pluginFiles} from './plugin-copy.js'

/**
 * Re-applies a disabled plugin from its installed copy, to the agents it was installed for. A skill
 * name taken meanwhile is written as <plugin>-<name>, as `install --prefix` would.
 */
export const enablePlugin = async (
  id: string,
  options: {env: Environment; context: ScopeContext; yes: boolean; dryRun: boolean; agents?: readonly string[]},
): Promise<InstallResult> => {
  const {mine} = recordsFor(id, options.env, options.context, options.agents)
  const disabled = mine.filter((r) => !r.enabled)
  const first = disabled[0]
  if (!first)
    return {
      status: 'already-installed',
      plugin: mine[0]!.plugin,
      source: mine[0]!.source,
      integrity: mine[0]!.integrity,
      scope: options.context.scope,
      dryRun: options.dryRun,
      plans: [],
      consent: {items: [], fingerprint: '', approvedBy: 'not-needed'},
      problems: [],
    }
  if (!first.pluginRoot || !existsSync(first.pluginRoot))
    throw notFound('plugin-copy-missing', `the installed copy of ${first.plugin} is gone; reinstall it: loadout install ${first.plugin} --force`)
  // the copy must still be what was approved (a record from before copies were hashed names the fetched tree)
  const files = await pluginFiles(first.pluginRoot)
  if (files.integrity !== (first.pluginRootIntegrity ?? first.integrity)) {
    throw new LoadoutError(
      'plugin-copy-changed',
      EXIT.integrity,
      `the installed copy of ${first.plugin} (${first.pluginRoot}) changed since it was installed; not enabled`,
      {
        suggestions: [`see what changed: loadout verify ${first.plugin}`, `reinstall it: loadout install ${first.plugin} --force`],
      },
    )
  }
  const model = readInstalledCopy(first.plugin, first.pluginRoot, options.env.home)
  // the policy may have changed since it was disabled: what it now forbids (hooks, MCP servers, the
  // plugin itself) is not put back. Hidden text was judged when it was installed (audit still reports it).
  admitPluginModel(model, first.plugin, {env: options.env, projectRoot: options.context.projectRoot, allowHiddenText: true})
  const targets = pickTargets(
    disabled.map((r) => r.target),
    await loadTargets(),
  )
  return installPrepared(
    {
      resolved: {
        id: first.plugin,
        name: model.name,
        marketplace: first.plugin.split('@')[1]!,
        ...(first.version ? {version: first.version} : {}),
        fetch: {kind: 'folder', path: first.pluginRoot, label: first.source},
      },
      fetched: {root: first.pluginRoot, integrity: first.integrity, ...(first.commit ? {commit: first.commit} : {})},
      model,
      id: first.plugin,
      files,
    },
    {env: options.env, context: options.context, targets, dryRun: options.dryRun, force: true, prefix: true, offline: true, yes: options.yes},
  )
}
