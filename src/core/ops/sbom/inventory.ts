import {relative, sep} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {packageVersion} from '../../kernel/env/package-root.js'
import type {Scope} from '../../kernel/env/scope.js'
import {readInstallRecords} from '../../kernel/state/records.js'

/** One installed file, as recorded: where (in the project, or under `~`) and its sha256. */
export interface InventoryFile {
  path: string
  sha256: string
  target: string
  component?: string
}

/** One installed plugin in one scope, across the agents it was written to. */
export interface InventoryPlugin {
  id: string
  name: string
  marketplace: string
  scope: Scope
  version?: string
  source: string
  commit?: string
  archiveSha256?: string
  integrity: string
  targets: string[]
  files: InventoryFile[]
}

export interface Inventory {
  tool: {name: string; version: string}
  scopes: Scope[]
  plugins: InventoryPlugin[]
}

/** Project paths relative to the project root (as in the lock), user paths under `~`: no machine's layout in the document. */
const portable = (path: string, scope: Scope, env: Environment, projectRoot: string): string => {
  const base = scope === 'project' ? projectRoot : env.home
  const rel = relative(base, path)
  if (rel.startsWith('..') || rel === '') return path
  const slashed = rel.split(sep).join('/')
  return scope === 'project' ? slashed : `~/${slashed}`
}

/** What is installed, from the user state and the project lock: one entry per plugin and scope. */
export const installedInventory = (env: Environment, projectRoot: string, scope?: Scope): Inventory => {
  const scopes: Scope[] = scope ? [scope] : ['user', 'project']
  const records = readInstallRecords(env, projectRoot).filter((r) => scopes.includes(r.scope))
  const byKey = new Map<string, InventoryPlugin>()
  for (const r of records) {
    const key = `${r.scope}\0${r.plugin}`
    const [name, marketplace] = r.plugin.split('@') as [string, string | undefined]
    const entry = byKey.get(key) ?? {
      id: r.plugin,
      name,
      marketplace: marketplace ?? '',
      scope: r.scope,
      ...(r.version ? {version: r.version} : {}),
      source: r.source,
      ...(r.commit ? {commit: r.commit} : {}),
      ...(r.archiveSha256 ? {archiveSha256: r.archiveSha256} : {}),
      integrity: r.integrity,
      targets: [],
      files: [],
    }
    entry.targets.push(r.target)
    entry.files.push(
      ...r.files.map((f) => ({
        path: portable(f.path, r.scope, env, projectRoot),
        sha256: f.sha256,
        target: r.target,
        ...(f.component ? {component: f.component} : {}),
      })),
    )
    byKey.set(key, entry)
  }
  const plugins = [...byKey.values()]
    .map((p) => ({...p, targets: [...p.targets].sort(), files: [...p.files].sort((a, b) => (a.target + a.path < b.target + b.path ? -1 : 1))}))
    .sort((a, b) => (a.scope + a.id < b.scope + b.id ? -1 : 1))
  return {tool: {name: 'loadout', version: packageVersion()}, scopes, plugins}
}
