import {EXIT, LoadoutError} from '../errors.js'
import {readInstallRecords} from '../state/records.js'
import {installPrepared, preparePlugin, type InstallOptions, type InstallResult} from './install.js'
import {declaredPlugins} from './project.js'

export interface DeclaredInstall {
  frozen: boolean
  results: InstallResult[]
}

/**
 * `loadout install` in a project: every plugin loadout.json declares, at the commit loadout.lock
 * resolved it to. With `frozen`, a plugin missing from the lock or resolving to other content fails.
 * Consent is asked as for any install: the project's files cannot approve themselves.
 */
export const installDeclared = async (options: InstallOptions & {frozen: boolean}): Promise<DeclaredInstall> => {
  const {env, context} = options
  const declared = declaredPlugins(context.projectRoot)
  const locked = readInstallRecords(env, context.projectRoot).filter((r) => r.scope === 'project')
  const results: InstallResult[] = []
  for (const [id, declaration] of Object.entries(declared).sort(([a], [b]) => a.localeCompare(b))) {
    const lock = locked.find((r) => r.plugin === id)
    if (options.frozen && !lock) {
      throw new LoadoutError('lock-outdated', EXIT.integrity, `${id} is declared in loadout.json but not in loadout.lock`, {suggestions: ['run loadout install without --frozen and commit loadout.lock']})
    }
    const spec = declaration.source ?? id
    const prepared = await preparePlugin(spec, options)
    if (lock?.commit && prepared.resolved.fetch.kind === 'git' && prepared.fetched.commit !== lock.commit) {
      Object.assign(prepared, await preparePluginAt(spec, lock.commit, options))
    }
    if (options.frozen && lock && lock.integrity !== prepared.fetched.integrity) {
      throw new LoadoutError('lock-outdated', EXIT.integrity, `${id} resolves to different content than loadout.lock records (${lock.integrity.slice(0, 19)}… vs ${prepared.fetched.integrity.slice(0, 19)}…)`, {
        suggestions: ['run loadout install without --frozen to update the lock'],
      })
    }
    results.push(await installPrepared(prepared, options))
  }
  return {frozen: options.frozen, results}
}

/** The same plugin fetched at a pinned commit. */
const preparePluginAt = async (spec: string, commit: string, options: InstallOptions) => {
  const {resolvePluginSpec} = await import('./resolve.js')
  const {fetchPlugin} = await import('./fetch-plugin.js')
  const {readPlugin} = await import('../plugin/read.js')
  const resolved = resolvePluginSpec(spec, options.env, options.context.projectRoot)
  if (resolved.fetch.kind !== 'git') return preparePlugin(spec, options)
  resolved.fetch = {...resolved.fetch, sha: commit}
  const fetched = await fetchPlugin(resolved.fetch, options.env, options.offline)
  const model = readPlugin(fetched.root, {...(resolved.entry ? {entry: resolved.entry} : {}), home: options.env.home})
  return {resolved, fetched, model, id: resolved.id || `${model.name}@direct`}
}
