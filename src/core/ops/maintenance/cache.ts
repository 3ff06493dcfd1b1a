/**
 * What lies in loadout's cache folder and among the installed plugin copies of its data folder,
 * and which of it anything still uses. "Used" is read from loadout's own records:
 *  - a marketplace's checked-out tree (its `root` or catalog file lies inside it), and the git
 *    mirror it came from; a downloaded catalog;
 *  - the git mirror of an installed plugin and the tree of the commit it was installed at;
 *  - a plugin copy that an install record's `pluginRoot` points at;
 *  - the shell-completion cache oclif keeps there;
 *  - the memo of what files held (`stat-memo/`), while anything is installed.
 * Everything else (old checkouts, unpacked archives, interrupted downloads, old plugin copies) can
 * be fetched again or is no longer pointed at, and `cleanCache` removes it. Records are read from
 * the user state and the current project's `loadout.lock`: a copy that only another project's lock
 * points at is not seen (`loadout install` there puts it back).
 */
import {lstatSync, readdirSync, rmdirSync, rmSync} from 'node:fs'
import {basename, dirname, join, relative, sep} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {resolvesInside} from '../../kernel/fs/contain.js'
import {removeAside} from '../../kernel/fs/write.js'
import {withStateLock} from '../../kernel/state/transaction.js'
import {readMarketplaces} from '../../kernel/state/marketplaces.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'

export type CacheEntryKind = 'git-mirror' | 'git-tree' | 'catalog' | 'archive' | 'download' | 'plugin-copy' | 'completion' | 'other'

export interface CacheEntry {
  kind: CacheEntryKind
  path: string
  bytes: number
  /** what uses it; absent when nothing does */
  usedBy?: string
}

export interface CacheListing {
  cacheDir: string
  dataDir: string
  entries: CacheEntry[]
  totalBytes: number
  unusedBytes: number
}

export interface CacheCleaned extends CacheListing {
  dryRun: boolean
  removed: CacheEntry[]
  freedBytes: number
}

const names = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort()
  } catch {
    return []
  }
}

const isDir = (path: string): boolean => {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Bytes under `path`, links counted as themselves and never followed; iterative, so depth is no concern. */
export const sizeOf = (path: string): number => {
  let total = 0
  const stack = [path]
  while (stack.length > 0) {
    const current = stack.pop() as string
    let stat
    try {
      stat = lstatSync(current)
    } catch {
      continue
    }
    total += stat.size
    if (stat.isDirectory()) for (const name of names(current)) stack.push(join(current, name))
  }
  return total
}

const inside = (path: string, dir: string): boolean => path === dir || path.startsWith(dir + sep)

/** Every entry of the cache folder and every plugin copy of the data folder, each with what uses it. */
export const listCache = (env: Environment, context: ScopeContext): CacheListing => {
  const {cache, data} = loadoutPaths(env)
  const marketplaces = readMarketplaces(env)
  const records = readInstallRecords(env, context.projectRoot)
  const marketplaceUsing = (path: string): string | undefined => {
    const m = marketplaces.find((r) => (r.root !== undefined && inside(r.root, path)) || inside(r.catalogFile, path))
    return m && `marketplace ${m.name}`
  }
  const pluginAt = (commitPrefix: string): InstallRecord | undefined =>
    records.find((r) => r.commit !== undefined && commitPrefix.length >= 12 && r.commit.startsWith(commitPrefix.slice(0, 40)))
  const entries: CacheEntry[] = []
  const add = (kind: CacheEntryKind, path: string, usedBy: string | undefined): void => {
    entries.push({kind, path, bytes: sizeOf(path), ...(usedBy === undefined ? {} : {usedBy})})
  }

  for (const name of names(cache)) {
    const path = join(cache, name)
    if (name === 'git' && isDir(path)) {
      for (const repo of names(path)) {
        const base = join(path, repo)
        const trees = join(base, 'trees')
        const users = new Set<string>()
        for (const tree of names(trees)) {
          const treePath = join(trees, tree)
          const plugin = tree.startsWith('.') ? undefined : pluginAt(tree.split('-')[0] as string)
          const user = marketplaceUsing(treePath) ?? (plugin && `plugin ${plugin.plugin} (${plugin.scope})`)
          if (user) users.add(user)
          add('git-tree', treePath, user)
        }
        for (const other of names(base).filter((n) => n !== 'trees')) {
          add(other === 'mirror' ? 'git-mirror' : 'other', join(base, other), users.size > 0 ? [...users].join(', ') : undefined)
        }
      }
    } else if (name === 'catalogs' && isDir(path)) {
      for (const key of names(path)) add('catalog', join(path, key), marketplaceUsing(join(path, key)))
    } else if (name === 'empty-hooks') {
      add('other', path, 'git (an empty hooks folder, so that no repository hook runs)')
    } else if (name === 'search-index') {
      add('other', path, 'search (an index of each cached catalog, rebuilt when missing or stale)')
    } else if (name === 'stat-memo') {
      // what files held, for list, skills list and the budget: kept while anything is installed, so that
      // once nothing is, cache clean leaves HOME as it was
      add('other', path, records.length > 0 ? 'list, skills list and budget (what each file held when last read, read again when missing or stale)' : undefined)
    } else if (name === 'autocomplete') {
      add('completion', path, 'shell completion (loadout autocomplete)')
    } else if (name.startsWith('archive-')) {
      add('archive', path, undefined)
    } else if (name.startsWith('.download-')) {
      add('download', path, undefined)
    } else {
      add('other', path, marketplaceUsing(path))
    }
  }

  // a record's copy, and the filtered copy a native plugin with parts off is offered (a tree its record wrote)
  const roots = new Map([
    ...records.filter((r) => r.pluginRoot).map((r) => [r.pluginRoot as string, r] as const),
    ...records.flatMap((r) => (r.trees ?? []).map((t) => [t, r] as const)),
  ])
  const plugins = join(data, 'plugins')
  for (const market of names(plugins)) {
    for (const plugin of names(join(plugins, market))) {
      for (const revision of names(join(plugins, market, plugin))) {
        // `.claude-plugin`: a native plugin's catalog, which its install records
        if (revision.startsWith('.')) continue
        const path = join(plugins, market, plugin, revision)
        const record = [...roots.entries()].find(([root]) => inside(root, path) || inside(path, root))?.[1]
        add('plugin-copy', path, record && `plugin ${record.plugin} (${record.scope}, ${record.target})`)
      }
    }
  }
  const totalBytes = entries.reduce((n, e) => n + e.bytes, 0)
  const unusedBytes = entries.filter((e) => e.usedBy === undefined).reduce((n, e) => n + e.bytes, 0)
  return {cacheDir: cache, dataDir: data, entries, totalBytes, unusedBytes}
}

/** The file list kept for a removed copy `<data>/plugins/<market>/<name>/<revision>` (`plugin-files/.../<revision>.json`). */
const forgetCopy = (data: string, copy: string): void => {
  const [market, name, revision] = relative(join(data, 'plugins'), copy).split(sep)
  if (!market || !name || !revision || market === '..') return
  rmSync(join(data, 'plugin-files', basename(market), basename(name), `${basename(revision)}.json`), {force: true})
}

/** Removes every empty folder below `root`, and `root` itself when that leaves it empty; links are not followed. */
const removeEmptyBelow = (root: string): void => {
  const prune = (dir: string): boolean => {
    let empty = true
    for (const entry of safeEntries(dir)) {
      if (entry.isDirectory() && !entry.isSymbolicLink()) empty = prune(join(dir, entry.name)) && empty
      else empty = false
    }
    return empty && removeIfEmpty(dir)
  }
  prune(root)
}

const removeIfEmpty = (dir: string): boolean => {
  try {
    rmdirSync(dir)
    return true
  } catch {
    return false
  }
}

const safeEntries = (dir: string) => {
  try {
    return readdirSync(dir, {withFileTypes: true})
  } catch {
    return []
  }
}

/**
 * Removes every entry nothing uses, under the state lock and after recovering what a killed run
 * left (so no install or marketplace update is half-way through writing one). Each path is checked to lie inside the cache or data folder first.
 * A git mirror whose trees are all unused goes with them; a used one stays.
 */
export const cleanCache = async (env: Environment, context: ScopeContext, options: {dryRun: boolean}): Promise<CacheCleaned> =>
  withStateLock(env, () => {
    const listing = listCache(env, context)
    // Each entry is a name read from a folder of the cache or data folder; its folder must really lie
    // inside that root (no link along the way leads out). The entry itself may be a link: removeAside
    // removes the link, never what it points at.
    const removed = listing.entries.filter((e) => {
      if (e.usedBy !== undefined) return false
      const root = inside(e.path, listing.cacheDir) ? listing.cacheDir : listing.dataDir
      return e.path !== root && !relative(root, e.path).startsWith('..') && resolvesInside(root, dirname(e.path))
    })
    if (!options.dryRun) {
      for (const entry of removed) {
        removeAside(entry.path)
        if (entry.kind === 'plugin-copy') forgetCopy(listing.dataDir, entry.path)
      }
      // the folders that held the removed copies and their records go once empty, then the roots if nothing else is in them
      for (const dir of ['plugins', 'plugin-files']) removeEmptyBelow(join(listing.dataDir, dir))
      // git's empty hooks folder is made again whenever git runs: alone in the cache, it goes with it
      const hooks = join(listing.cacheDir, 'empty-hooks')
      if (names(listing.cacheDir).every((n) => n === 'empty-hooks')) removeIfEmpty(hooks)
      for (const root of [listing.dataDir, listing.cacheDir]) removeIfEmpty(root)
    }
    const freedBytes = removed.reduce((n, e) => n + e.bytes, 0)
    return {...listing, dryRun: options.dryRun, removed, freedBytes}
  })
