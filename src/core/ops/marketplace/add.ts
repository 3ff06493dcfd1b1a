import type {Environment} from '../../kernel/env/environment.js'
import {conflict, usageError} from '../../model/errors.js'
import {withStateLock} from '../../kernel/state/transaction.js'
import {parseAutoUpdate} from './auto-update.js'
import type {Problem} from '../../model/problems.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {parseSource, sourceLabel} from '../../kernel/sources/parse.js'
import {kindOf} from '../../kernel/sources/kinds/index.js'
import type {Source, SourceKind} from '../../model/source.js'
import {isInside} from '../../kernel/fs/contain.js'
import {admitMarketplace, admitSigning} from '../../kernel/policy/gate.js'
import type {SignerSeen} from '../../model/signing.js'
import {verifyMirrorPin} from '../../kernel/sources/git-signature.js'
import {hasCommits} from '../../kernel/sources/signable.js'
import {identitiesFrom, keysFromDeclaration, keysFromFiles, refuseUnsignable, type DeclaredKeys} from './signing.js'
import {relative, sep} from 'node:path'
import {commitDownload, discardDownload, fetchCatalogSource, gitUrlOf, readFetchedCatalog, sourceKey} from '../../kernel/marketplace/fetch.js'
import {BUILTIN_NAME} from '../../kernel/marketplace/known.js'
import {checkMarketplaceName} from '../../kernel/text/names.js'
import {
  readMarketplaces,
  readProjectManifest,
  visibleMarketplaces,
  writeMarketplaces,
  writeProjectManifest,
  type MarketplaceRecord,
} from '../../kernel/state/marketplaces.js'

export interface AddMarketplaceInput {
  input: string
  name?: string
  ref?: string
  sparse?: string[]
  /** key files (`--signed-by`) every commit read must be signed by */
  signedBy?: string[]
  /** loadout.json's signedBy for this marketplace (key texts or project-relative files), when registering a declaration */
  declaredSignedBy?: unknown
  /** `--signed-by-identity` (or loadout.json's signedByIdentity): `<issuer>=<subject>` an archive it lists must be signed by (Sigstore) */
  signedByIdentity?: unknown
  env: Environment
  context: ScopeContext
  offline: boolean
  /** fetch and check, but register nothing */
  dryRun?: boolean
  /** project scope: also declare it in loadout.json (default); false when registering what loadout.json declares */
  declare?: boolean
  /** `--auto-update`: what `loadout update --auto` does with it (default off) */
  autoUpdate?: string
  now?: () => Date
  onProgress?: (message: string) => void
}

export interface MarketplaceAdded {
  status: 'added' | 'already-added' | 'would-add'
  name: string
  scope: string
  source: string
  kind: SourceKind
  commit?: string
  pluginCount: number
  /** fingerprints of the keys its commits must be signed by */
  signedBy?: string[]
  /** the Sigstore identities its archives must be signed by, `<issuer>=<subject>` */
  signedByIdentity?: string[]
  /** who signed the commit read */
  signer?: SignerSeen
  warnings: Problem[]
}

/**
 * A local folder inside the project is declared relative to it, so loadout.json works in every clone.
 * A git repository given as a path (read at `--ref` through git) is declared by that path too, never
 * by the file:// address loadout made of it, which no typed source may use.
 */
const portableInput = (source: Source, typed: Source, label: string, project: string): string => {
  const path = kindOf(source).localPath(source) ?? kindOf(typed).localPath(typed)
  if (path === undefined) return label
  if (!isInside(project, path)) return kindOf(source).localPath(source) === undefined ? path : label
  const rel = relative(project, path).split(sep).join('/')
  return rel === '' ? '.' : `./${rel}`
}

const nameConflict = (name: string, taken: string) =>
  conflict('marketplace-name-taken', `the name "${name}" is already used by ${taken}`, {
    suggestions: ['pick another with --name <name>', 'or remove the other one: loadout marketplace remove ' + name],
  })

/** A repository whose catalog was found in a folder is recorded with that folder, so updates read it there. */
const withCatalogFolder = (source: Source, subdir: string | undefined): Source => {
  const kind = kindOf(source)
  const under = kind.repositoryPath(source)
  if (!subdir || under === undefined) return source
  return kind.withRepositoryPath(source, [under, subdir].filter(Boolean).join('/'))
}

/** Fetches a catalog, checks it, and registers it under its name (or `--name`). */
export const addMarketplace = async (input: AddMarketplaceInput): Promise<MarketplaceAdded> => {
  const {env, context} = input
  const autoUpdate = input.autoUpdate === undefined ? undefined : parseAutoUpdate(input.autoUpdate)
  const source = parseSource(input.input, {
    cwd: env.cwd,
    home: env.home,
    ...(input.ref ? {ref: input.ref} : {}),
    ...(env.vars.LOADOUT_GITHUB_URL ? {githubUrl: env.vars.LOADOUT_GITHUB_URL} : {}),
  })
  if (input.name !== undefined) {
    const broken = checkMarketplaceName(input.name)
    if (broken) throw usageError('bad-marketplace-name', `invalid marketplace name "${input.name}": ${broken}`)
  }
  admitMarketplace(source, input.name, env, context.projectRoot, sourceLabel(source))
  const key = sourceKey(source, env)
  const project = context.scope === 'project' ? context.projectRoot : undefined
  const trust: DeclaredKeys =
    input.declaredSignedBy !== undefined
      ? await keysFromDeclaration(input.declaredSignedBy, context.projectRoot, env.vars.PATH)
      : await keysFromFiles(input.signedBy ?? [], env.cwd, project, env.vars.PATH)
  refuseUnsignable(source, trust.keys)
  const identities = identitiesFrom(input.signedByIdentity)
  const identityTexts = identities.map((i) => `${i.issuer}=${i.subject}`)
  const signing = {
    ...(trust.keys.length > 0 ? {signedBy: trust.keys.map((k) => k.fingerprint)} : {}),
    ...(identities.length > 0 ? {signedByIdentity: identityTexts} : {}),
  }
  // identities check the archives a catalog lists; a git marketplace's own commits need keys
  const trusted = trust.keys.length > 0 || (identities.length > 0 && !hasCommits(source))
  admitSigning({source}, input.name, trusted, env, context.projectRoot, `marketplace ${sourceLabel(source)}`)
  return withStateLock(env, async () => {
    const records = readMarketplaces(env)
    const visible = visibleMarketplaces(records, context.projectRoot)
    const same = visible.find((r) => r.scope === context.scope && sourceKey(r.source, env) === key && (r.ref ?? '') === (input.ref ?? ''))
    if (same && (input.name === undefined || input.name === same.name)) {
      // keys or identities asked for now are never silently dropped: the record would not check them
      const sameTrust = (a: readonly string[] | undefined, b: readonly string[]) => [...(a ?? [])].sort().join('\n') === [...b].sort().join('\n')
      if (
        input.declaredSignedBy === undefined &&
        trust.keys.length + identities.length > 0 &&
        (!sameTrust(
          same.signedBy?.map((k) => k.fingerprint),
          trust.keys.map((k) => k.fingerprint),
        ) ||
          !sameTrust(
            same.signedByIdentity?.map((i) => `${i.issuer}=${i.subject}`),
            identityTexts,
          ))
      )
        throw conflict('marketplace-trust-differs', `marketplace "${same.name}" is already added from this source with other signing keys or identities`, {
          suggestions: [`remove it and add it again with the keys you trust: loadout marketplace remove ${same.name}`],
        })
      return {
        status: 'already-added',
        name: same.name,
        scope: same.scope,
        source: same.input,
        kind: same.source.kind,
        ...(same.commit ? {commit: same.commit} : {}),
        pluginCount: same.pluginCount,
        warnings: [],
      }
    }
    const nameTaken = (name: string) =>
      name === BUILTIN_NAME ? 'the built-in marketplace' : visible.find((r) => r.name === name && r.scope === context.scope)?.input
    // a name given up front is checked before anything is cloned or downloaded
    const takenEarly = input.name === undefined ? undefined : nameTaken(input.name)
    if (takenEarly) throw nameConflict(input.name!, takenEarly)
    const fetched = await fetchCatalogSource(source, {
      env,
      offline: input.offline,
      ...(input.ref ? {ref: input.ref} : {}),
      ...(input.sparse ? {sparse: input.sparse} : {}),
      ...(input.onProgress ? {onProgress: input.onProgress} : {}),
      ...(identities.length > 0 ? {identities} : {}),
    })
    let signer: SignerSeen | undefined = fetched.signer
    const read = readFetchedCatalog(fetched)
    const name = input.name ?? read.catalog.name
    try {
      if (input.name === undefined) {
        admitMarketplace(source, name, env, context.projectRoot, sourceLabel(source))
        admitSigning({source}, name, trusted, env, context.projectRoot, `marketplace ${sourceLabel(source)}`)
      }
      if (trust.keys.length > 0)
        signer = await verifyMirrorPin(
          env,
          {url: gitUrlOf(source, env), commit: fetched.commit!, ref: input.ref ?? ('ref' in source ? source.ref : undefined)},
          trust.keys,
          `marketplace ${sourceLabel(source)}`,
        )
    } catch (error) {
      discardDownload(fetched)
      throw error
    }
    const signed = {...signing, ...(signer ? {signer} : {})}
    const taken = nameTaken(name)
    if (taken) {
      discardDownload(fetched)
      throw nameConflict(name, taken)
    }
    const recorded = withCatalogFolder(source, fetched.subdir)
    if (input.dryRun) {
      discardDownload(fetched)
      return {
        status: 'would-add',
        name,
        scope: context.scope,
        source: sourceLabel(source),
        kind: source.kind,
        ...(fetched.commit ? {commit: fetched.commit} : {}),
        pluginCount: read.catalog.plugins.length,
        ...signed,
        warnings: read.problems,
      }
    }
    const final = commitDownload(fetched)
    const now = (input.now ?? (() => new Date()))().toISOString()
    const record: MarketplaceRecord = {
      name,
      scope: context.scope,
      ...(project ? {project} : {}),
      input: sourceLabel(source),
      source: recorded,
      ...(input.ref ? {ref: input.ref} : {}),
      ...(input.sparse && input.sparse.length > 0 ? {sparse: input.sparse} : {}),
      ...(kindOf(source).onGithub && env.vars.LOADOUT_GITHUB_URL ? {githubUrl: env.vars.LOADOUT_GITHUB_URL} : {}),
      addedAt: now,
      updatedAt: now,
      ...(final.commit ? {commit: final.commit} : {}),
      ...(final.etag ? {etag: final.etag} : {}),
      ...(final.lastModified ? {lastModified: final.lastModified} : {}),
      ...(final.root ? {root: final.root} : {}),
      catalogFile: final.catalogFile,
      pluginCount: read.catalog.plugins.length,
      warningCount: read.problems.length,
      ...(trust.keys.length > 0 ? {signedBy: trust.keys} : {}),
      ...(identities.length > 0 ? {signedByIdentity: identities} : {}),
      ...(signer ? {signer} : {}),
      ...(autoUpdate && autoUpdate !== 'off' ? {autoUpdate} : {}),
    }
    writeMarketplaces(env, [...records, record])
    if (project && input.declare !== false) {
      const manifest = readProjectManifest(project)
      manifest.marketplaces = {
        ...manifest.marketplaces,
        [name]: {
          source: portableInput(source, parseSource(input.input, {cwd: env.cwd, home: env.home}), record.input, project),
          ...(record.ref ? {ref: record.ref} : {}),
          ...(record.sparse ? {sparse: record.sparse} : {}),
          ...(trust.portable.length > 0 ? {signedBy: trust.portable} : {}),
          ...(identities.length > 0 ? {signedByIdentity: identityTexts} : {}),
          ...(record.autoUpdate ? {autoUpdate: record.autoUpdate} : {}),
        },
      }
      writeProjectManifest(project, manifest)
    }
    return {
      status: 'added',
      name,
      scope: context.scope,
      source: record.input,
      kind: source.kind,
      ...(record.commit ? {commit: record.commit} : {}),
      pluginCount: record.pluginCount,
      ...signed,
      warnings: read.problems,
    }
  })
}
