import {join} from 'node:path'
import {loadoutPaths, type Environment} from '../../kernel/env/environment.js'
import {lsRemote} from '../../kernel/sources/git.js'
import {gitContext} from '../../kernel/sources/git-process.js'
import {treeIntegrity} from '../../kernel/fs/integrity.js'
import {discardDownload, fetchCatalogSource, gitUrlOf, readCatalogFile, readFromCache} from '../../kernel/marketplace/fetch.js'
import {fetchSpecKinds} from '../../kernel/sources/kinds/index.js'
import {entryKindOf} from '../../kernel/sources/kinds/entries.js'
import {kindOf} from '../../kernel/sources/kinds/index.js'
import {knownMarketplaces, type KnownMarketplace} from '../../kernel/marketplace/known.js'
import {chooseVersion} from '../../kernel/resolve/tags.js'
import type {Catalog, PluginEntry} from '../../model/marketplace.js'
import {checkServerOutdated} from '../mcp/from-registry.js'
import {isMcpId} from '../../kernel/mcp/spec.js'
import {admitMarketplace, admitRemote} from '../../kernel/policy/gate.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {readInstallRecords, type InstallRecord} from '../../kernel/state/records.js'
import {DIRECT} from '../../kernel/resolve/resolve.js'
import {resolveSpec} from '../../kernel/resolve/spec.js'
import {followRename} from '../../kernel/resolve/renames.js'
import {loadPolicy} from '../../kernel/policy/load.js'
import {describeHeld, heldOf, releaseCutoff, type HeldRelease} from '../../kernel/policy/release-age.js'
import {lastChangeOf} from '../../kernel/resolve/history.js'
import {releasedBy, taggedVersions} from '../../kernel/resolve/tags.js'

export interface OutdatedRow {
  plugin: string
  scope: string
  targets: string[]
  current: {version?: string; commit?: string; integrity: string}
  wanted: {version?: string; commit?: string}
  latest: {version?: string; commit?: string}
  outdated: boolean
  reason?: string
  /** the catalog renamed the plugin: `update` installs it under this id */
  renamedTo?: string
  /** the range it was installed for: wanted is the highest tagged version inside it */
  range?: string
  /** the newest release is younger than the policy's minimumReleaseAge: `update` leaves it (wanted is what it takes) */
  held?: HeldRelease
  /** the catalog removed the plugin (a rename to null) */
  removed?: boolean
  error?: string
}

export interface OutdatedResult {
  rows: OutdatedRow[]
  /** how many remotes were asked: once each, however many plugins come from them */
  remotesAsked: number
}

/**
 * A plugin installed for a range (asked for, or its dependents') wants the highest tagged version
 * inside it, which is what `update` installs; latest stays the catalog's.
 */
const withinRange = async (row: OutdatedRow, first: InstallRecord, market: KnownMarketplace | undefined, name: string, env: Environment): Promise<void> => {
  if (!market) return
  const choice = await chooseVersion(name, market, first.range!, env).catch(() => undefined)
  if (!choice) return
  row.range = first.range!
  row.wanted = choice.tagged ? {version: choice.tagged.version, commit: choice.tagged.commit} : row.latest
  row.outdated =
    Boolean(row.wanted.version && row.wanted.version !== first.version) || Boolean(row.wanted.commit && first.commit && row.wanted.commit !== first.commit)
  if (row.outdated) row.reason = `new version within ${first.range}`
  else delete row.reason
}

/** One row per installed plugin and scope. */
const groups = (records: readonly InstallRecord[]): InstallRecord[][] => {
  const map = new Map<string, InstallRecord[]>()
  for (const r of records) {
    const key = `${r.scope}\0${r.plugin}`
    map.set(key, [...(map.get(key) ?? []), r])
  }
  return [...map.values()]
}

/**
 * Read-only: what newer versions exist. Each marketplace is fetched once (an incremental git fetch
 * into the cache, or a conditional GET whose download is discarded) and each plugin git remote is
 * asked once with ls-remote; no install record or marketplace registration changes.
 */
/** What one `outdated` run asks once and reuses: each marketplace's catalog, each remote's head. */
class Remotes {
  asked = 0
  private readonly catalogs = new Map<string, {catalog?: Catalog; root?: string; commit?: string; error?: string}>()
  private readonly heads = new Map<string, Promise<string | undefined>>()
  private readonly cache: string
  /** made at the first remote asked: a run with none writes nothing into the cache */
  private git?: ReturnType<typeof gitContext>
  readonly markets: ReturnType<typeof knownMarketplaces>

  constructor(
    readonly env: Environment,
    readonly projectRoot: string,
  ) {
    this.cache = loadoutPaths(env).cache
    this.markets = knownMarketplaces(env, projectRoot)
  }

  async catalogOf(name: string): Promise<{catalog?: Catalog; root?: string; commit?: string; error?: string}> {
    if (!this.catalogs.has(name)) this.catalogs.set(name, await this.readCatalog(name))
    return this.catalogs.get(name)!
  }

  private async readCatalog(name: string): Promise<{catalog?: Catalog; root?: string; commit?: string; error?: string}> {
    const market = this.markets.find((m) => m.name === name)
    if (!market) return {error: `marketplace "${name}" is no longer added`}
    try {
      if (!market.builtin) admitMarketplace(market.source, market.name, this.env, this.projectRoot, market.input)
      if (!market.builtin && readFromCache(market.source)) this.asked++
      const fetched = await fetchCatalogSource(market.source, {
        env: this.env,
        offline: false,
        ...(market.ref ? {ref: market.ref} : {}),
        ...(market.sparse ? {sparse: market.sparse} : {}),
        ...(market.signedByIdentity?.length ? {identities: market.signedByIdentity} : {}),
      })
      const file = fetched.action === 'not-modified' ? {...fetched, catalogFile: market.catalogFile} : fetched
      const {catalog} = readCatalogFile(file)
      discardDownload(fetched)
      const commit = fetched.commit ?? (fetched.action === 'not-modified' ? market.commit : undefined)
      return {catalog, ...(fetched.root ? {root: fetched.root} : {}), ...(commit ? {commit} : {})}
    } catch (error) {
      return {error: (error as Error).message}
    }
  }

  /** The commit a remote's ref points at, asked once per remote and ref; a remote the policy refuses is not asked. */
  head(url: string, ref?: string): Promise<string | undefined> {
    const key = `${url}\0${ref ?? ''}`
    if (!this.heads.has(key)) {
      this.asked++
      this.heads.set(
        key,
        Promise.resolve()
          .then(() => admitRemote(url, this.env, this.projectRoot))
          .then(() => lsRemote((this.git ??= gitContext(this.env, this.cache)), this.cache, url, ref))
          .catch(() => undefined),
      )
    }
    return this.heads.get(key)!
  }
}

const newRow = (group: readonly InstallRecord[]): OutdatedRow => {
  const first = group[0]!
  return {
    plugin: first.plugin,
    scope: first.scope,
    targets: group.map((r) => r.target),
    current: {...(first.version ? {version: first.version} : {}), ...(first.commit ? {commit: first.commit} : {}), integrity: first.integrity},
    wanted: {},
    latest: {},
    outdated: false,
  }
}

/** A plugin installed straight from a source: outdated when its remote moved on, or its folder's content changed. */
const checkDirect = async (row: OutdatedRow, first: InstallRecord, remotes: Remotes): Promise<void> => {
  try {
    const resolved = await resolveSpec(first.source, remotes.env, remotes.projectRoot)
    const kind = fetchSpecKinds[resolved.fetch.kind]
    if (kind.news) {
      remotes.asked++
      const news = await kind.news(resolved.fetch as never, {version: first.version, integrity: first.artifact?.integrity}, remotes.env)
      if (news) Object.assign(row, news)
      return
    }
    const folder = kind.localFolder(resolved.fetch as never)
    if (folder !== undefined) {
      const integrity = await treeIntegrity(folder).catch(() => undefined)
      if (integrity && integrity !== first.integrity) {
        row.outdated = true
        row.reason = 'content changed'
      }
      return
    }
    const remote = kind.remote(resolved.fetch as never)
    if (!remote) return
    const head = await remotes.head(remote.url, remote.ref)
    if (head) row.latest = {commit: head}
    row.wanted = row.latest
    row.outdated = Boolean(head && first.commit && head !== first.commit)
    if (row.outdated) row.reason = 'new commit'
  } catch (error) {
    row.error = (error as Error).message
  }
}

/** What the entry's source says now: its remote's head, or the content of a folder beside the catalog. */
const checkEntrySource = async (row: OutdatedRow, first: InstallRecord, entry: PluginEntry, root: string | undefined, remotes: Remotes): Promise<void> => {
  const kind = entryKindOf(entry.source)
  const remote = kind.remote?.(entry.source as never, remotes.env.vars.LOADOUT_GITHUB_URL || undefined)
  const folder = kind.folder?.(entry.source as never)
  if (remote) {
    const head = remote.sha ?? (await remotes.head(remote.url, remote.ref))
    if (head) {
      row.wanted = {...row.wanted, commit: head}
      row.latest = {...row.latest, commit: head}
    }
    if (head && first.commit && head !== first.commit) {
      row.outdated = true
      row.reason = 'new commit'
    }
  } else if (folder !== undefined && root) {
    const integrity = await treeIntegrity(join(root, folder)).catch(() => undefined)
    if (integrity && integrity !== first.integrity) {
      row.outdated = true
      row.reason = 'content changed'
    }
  }
}

/** A plugin from a marketplace: removed, renamed, a new version, a new commit or new content. */
const checkFromCatalog = async (row: OutdatedRow, first: InstallRecord, remotes: Remotes): Promise<void> => {
  const [name, marketplace] = first.plugin.split('@') as [string, string]
  const {catalog, root, error} = await remotes.catalogOf(marketplace)
  if (error || !catalog) {
    row.error = error ?? 'catalog unreadable'
    return
  }
  const outcome = followRename(catalog, name)
  if (outcome.kind === 'removed') {
    row.removed = true
    row.outdated = true
    row.reason = 'removed from the marketplace'
    return
  }
  const entry = catalog.plugins.find((p) => p.name === (outcome.kind === 'renamed' ? outcome.to : name))
  if (!entry) {
    row.error = `no longer listed in ${marketplace}`
    return
  }
  if (outcome.kind === 'renamed') row.renamedTo = `${outcome.to}@${marketplace}`
  row.wanted = {...(entry.version ? {version: entry.version} : {})}
  row.latest = {...row.wanted}
  await checkEntrySource(row, first, entry, root, remotes)
  // an entry without a version says nothing about versions: the commit or the content above decides
  if (entry.version !== undefined && entry.version !== first.version) {
    row.outdated = true
    row.reason = 'new version'
  }
  if (row.renamedTo) {
    row.outdated = true
    row.reason = `renamed to ${row.renamedTo}`
  }
  if (first.range && !row.renamedTo)
    await withinRange(
      row,
      first,
      remotes.markets.find((m) => m.name === marketplace),
      name,
      remotes.env,
    )
  const folder = entryKindOf(entry.source).folder?.(entry.source as never)
  if (row.outdated && !row.renamedTo && folder !== undefined) await holdYoung(row, first, name, folder, remotes)
}

/**
 * `minimumReleaseAge`: a plugin folder of a git marketplace whose last change is younger than the
 * cool-down is not what `update` takes; wanted becomes the newest tag old enough when it is newer
 * than the installed version, else the installed version, and the reason says why.
 */
const holdYoung = async (row: OutdatedRow, first: InstallRecord, name: string, path: string, remotes: Remotes): Promise<void> => {
  const policy = loadPolicy(remotes.env, remotes.projectRoot)
  const cutoff = releaseCutoff(policy)
  const market = remotes.markets.find((m) => m.name === first.plugin.split('@')[1])
  const commit = (await remotes.catalogOf(market?.name ?? ''))?.commit
  const under = market ? kindOf(market.source).repositoryPath(market.source) : undefined
  if (cutoff === undefined || !market || !commit || under === undefined) return
  const url = gitUrlOf(market.source, remotes.env)
  const inRepo = [under, path].map((p) => p.replace(/^\.?\/+|\/+$/g, '').replace(/^\.$/, '')).filter(Boolean)
  const release = await lastChangeOf(url, commit, inRepo.join('/'), remotes.env)
  if (!release || release.at.getTime() <= cutoff || release.commit === first.commit) return
  row.held = heldOf(policy, release, row.latest.version, Date.now())
  const semver = (await import('semver')).default
  const older = (await taggedVersions(name, market, remotes.env)).find(
    (t) => releasedBy(t, cutoff) && (!first.range || semver.satisfies(t.version, first.range)),
  )
  const newer = older && first.version && semver.valid(first.version) && semver.gt(older.version, first.version)
  row.wanted = newer ? {version: older.version, commit: older.commit} : {...row.current}
  delete (row.wanted as {integrity?: string}).integrity
  row.outdated = Boolean(newer)
  row.reason = `${newer ? `${older.version} within the cool-down; ` : ''}held back: ${describeHeld(row.held)}`
}

export const findOutdated = async (env: Environment, context: ScopeContext, only: readonly string[] = []): Promise<OutdatedResult> => {
  const records = readInstallRecords(env, context.projectRoot).filter(
    (r) => only.length === 0 || only.includes(r.plugin) || only.includes(r.plugin.split('@')[0]!),
  )
  const remotes = new Remotes(env, context.projectRoot)
  const rows: OutdatedRow[] = []
  for (const group of groups(records)) {
    const first = group[0]!
    const row = newRow(group)
    rows.push(row)
    if (isMcpId(first.plugin)) await checkServerOutdated(row, first, env)
    else if (first.plugin.split('@')[1] === DIRECT) await checkDirect(row, first, remotes)
    else await checkFromCatalog(row, first, remotes)
  }
  return {rows, remotesAsked: remotes.asked}
}
