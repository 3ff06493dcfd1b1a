import type {Environment} from '../../kernel/env/environment.js'
import {isLoadoutError} from '../../model/errors.js'
import {withStateLock} from '../../kernel/state/transaction.js'
import {admitMarketplace, admitSigning} from '../../kernel/policy/gate.js'
import type {SignerSeen} from '../../model/signing.js'
import {verifyMirrorPin} from '../../kernel/sources/git-signature.js'
import {hasCommits} from '../../kernel/sources/signable.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import type {Catalog, DroppedEntry} from '../../model/marketplace.js'
import {commitDownload, discardDownload, fetchCatalogSource, gitUrlOf, pruneTrees, readFetchedCatalog} from '../../kernel/marketplace/fetch.js'
import {readKnownCatalog} from '../../kernel/marketplace/browse.js'
import {findMarketplace, knownMarketplaces} from '../../kernel/marketplace/known.js'
import {marketEnv, readMarketplaces, writeMarketplaces, type MarketplaceRecord} from '../../kernel/state/marketplaces.js'

export interface CatalogChanges {
  added: string[]
  removed: string[]
  versions: Array<{name: string; from?: string; to?: string}>
}

export interface MarketplaceUpdate {
  name: string
  status: 'updated' | 'unchanged' | 'failed' | 'skipped'
  commit?: string
  previousCommit?: string
  /** who signed `commit`, for a marketplace declared with keys */
  signer?: SignerSeen
  pluginCount?: number
  changes?: CatalogChanges
  /** entries of the new catalog skipped for a broken rule, each with its reason */
  dropped?: DroppedEntry[]
  /** why it failed or was skipped; a failure keeps the last good copy */
  message?: string
  errorCode?: string
  exitStatus?: number
}

export interface MarketplacesUpdated {
  offline: boolean
  dryRun?: boolean
  results: MarketplaceUpdate[]
}

export const diffCatalogs = (before: Catalog | undefined, after: Catalog): CatalogChanges => {
  const old = new Map((before?.plugins ?? []).map((p) => [p.name, p]))
  const now = new Map(after.plugins.map((p) => [p.name, p]))
  return {
    added: [...now.keys()].filter((n) => !old.has(n)).sort(),
    removed: [...old.keys()].filter((n) => !now.has(n)).sort(),
    versions: [...now.values()]
      .filter((p) => old.has(p.name) && old.get(p.name)!.version !== p.version)
      .map((p) => ({name: p.name, ...(old.get(p.name)!.version ? {from: old.get(p.name)!.version} : {}), ...(p.version ? {to: p.version} : {})}))
      .sort((a, b) => a.name.localeCompare(b.name)),
  }
}

const readOld = (record: MarketplaceRecord): Catalog | undefined => {
  try {
    return readKnownCatalog(record).catalog
  } catch {
    return undefined
  }
}

const updateOne = async (
  record: MarketplaceRecord,
  machineEnv: Environment,
  offline: boolean,
  now: string,
  onProgress?: (m: string) => void,
  dryRun = false,
  projectRoot = machineEnv.cwd,
): Promise<{result: MarketplaceUpdate; record: MarketplaceRecord}> => {
  const before = readOld(record)
  const env = marketEnv(record, machineEnv)
  try {
    admitMarketplace(record.source, record.name, env, projectRoot, record.input)
    const keys = record.signedBy ?? []
    const identities = record.signedByIdentity ?? []
    // as at `marketplace add`: identities stand for a source with no commits to sign (an OCI catalog is checked against them)
    const trusted = keys.length > 0 || (identities.length > 0 && !hasCommits(record.source))
    admitSigning({source: record.source}, record.name, trusted, env, projectRoot, `marketplace ${record.name}`)
    const fetched = await fetchCatalogSource(record.source, {
      env,
      offline,
      ...(record.ref ? {ref: record.ref} : {}),
      ...(record.sparse ? {sparse: record.sparse} : {}),
      ...(onProgress ? {onProgress} : {}),
      ...(identities.length > 0 ? {identities} : {}),
    })
    if (fetched.action === 'not-modified') {
      return {
        result: {name: record.name, status: 'unchanged', pluginCount: record.pluginCount, changes: {added: [], removed: [], versions: []}},
        record: {...record, updatedAt: now},
      }
    }
    let signer: SignerSeen | undefined = fetched.signer
    try {
      if (keys.length > 0)
        signer = await verifyMirrorPin(
          env,
          {url: gitUrlOf(record.source, env), commit: fetched.commit!, ref: record.ref ?? ('ref' in record.source ? record.source.ref : undefined)},
          keys,
          `marketplace ${record.name}`,
        )
    } catch (error) {
      discardDownload(fetched)
      throw error
    }
    const signed = signer ? {signer} : {}
    const read = readFetchedCatalog(fetched)
    const final = dryRun ? fetched : commitDownload(fetched)
    if (dryRun) discardDownload(fetched)
    const changes = diffCatalogs(before, read.catalog)
    const changed = changes.added.length + changes.removed.length + changes.versions.length > 0 || final.commit !== record.commit
    const next: MarketplaceRecord = {
      ...record,
      updatedAt: now,
      catalogFile: final.catalogFile,
      pluginCount: read.catalog.plugins.length,
      warningCount: read.problems.length,
      ...(final.commit ? {commit: final.commit} : {}),
      ...(final.etag ? {etag: final.etag} : {}),
      ...(final.lastModified ? {lastModified: final.lastModified} : {}),
      ...(final.root ? {root: final.root} : {}),
      ...signed,
    }
    const dropped = read.dropped.length > 0 ? {dropped: read.dropped} : {}
    if (dryRun)
      return {
        result: {
          name: record.name,
          status: changed ? 'updated' : 'unchanged',
          ...(final.commit ? {commit: final.commit} : {}),
          ...(record.commit ? {previousCommit: record.commit} : {}),
          pluginCount: next.pluginCount,
          ...signed,
          changes,
          ...dropped,
        },
        record,
      }
    pruneTrees(record.source, env, final.root)
    return {
      result: {
        name: record.name,
        status: changed ? 'updated' : 'unchanged',
        ...(final.commit ? {commit: final.commit} : {}),
        ...(record.commit ? {previousCommit: record.commit} : {}),
        pluginCount: next.pluginCount,
        ...signed,
        changes,
        ...dropped,
      },
      record: next,
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return {
      result: {
        name: record.name,
        status: 'failed',
        message: `${message}; kept the last good copy`,
        ...(isLoadoutError(error) ? {errorCode: error.code, exitStatus: error.exitStatus} : {}),
      },
      record,
    }
  }
}

/** Refreshes the named marketplaces (all when none named); a failure keeps the last good copy. */
export const updateMarketplaces = async (
  names: readonly string[],
  env: Environment,
  context: ScopeContext,
  options: {offline: boolean; dryRun?: boolean; now?: () => Date; onProgress?: (m: string) => void},
): Promise<MarketplacesUpdated> => {
  const targets = names.length > 0 ? names.map((n) => findMarketplace(n, env, context.projectRoot)) : knownMarketplaces(env, context.projectRoot)
  const now = (options.now ?? (() => new Date()))().toISOString()
  return withStateLock(env, async () => {
    const results: MarketplaceUpdate[] = []
    let records = readMarketplaces(env)
    for (const target of targets) {
      if (target.builtin) {
        results.push({name: target.name, status: 'skipped', message: 'built in: it is updated with loadout itself'})
        continue
      }
      const {result, record} = await updateOne(target, env, options.offline, now, options.onProgress, options.dryRun, context.projectRoot)
      results.push(result)
      if (options.dryRun) continue
      records = records.map((r) => (r.name === target.name && r.scope === target.scope && r.project === target.project ? record : r))
      writeMarketplaces(env, records)
    }
    return {offline: options.offline, ...(options.dryRun ? {dryRun: true} : {}), results}
  })
}
