import type {Environment} from '../../kernel/env/environment.js'
import {conflict, usageError} from '../../model/errors.js'
import {withStateLock} from '../../kernel/state/transaction.js'
import type {Problem} from '../../model/problems.js'
import type {ScopeContext} from '../../kernel/env/scope.js'
import {parseSource, sourceLabel} from '../../kernel/sources/parse.js'
import {kindOf} from '../../kernel/sources/kinds/index.js'
import type {Source, SourceKind} from '../../model/source.js'
import {isInside} from '../../kernel/fs/contain.js'
import {admitMarketplace} from '../../kernel/policy/gate.js'
import {relative, sep} from 'node:path'
import {commitDownload, discardDownload, fetchCatalogSource, readFetchedCatalog, sourceKey} from '../../kernel/marketplace/fetch.js'
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
  env: Environment
  context: ScopeContext
  offline: boolean
  /** fetch and check, but register nothing */
  dryRun?: boolean
  /** project scope: also declare it in loadout.json (default); false when registering what loadout.json declares */
  declare?: boolean
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
  warnings: Problem[]
}

/** A local folder inside the project is declared relative to it, so loadout.json works in every clone. */
const portableInput = (source: Source, label: string, project: string): string => {
  const path = kindOf(source).localPath(source)
  if (path === undefined || !isInside(project, path)) return label
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
  return withStateLock(env, async () => {
    const records = readMarketplaces(env)
    const visible = visibleMarketplaces(records, context.projectRoot)
    const same = visible.find((r) => r.scope === context.scope && sourceKey(r.source, env) === key && (r.ref ?? '') === (input.ref ?? ''))
    if (same && (input.name === undefined || input.name === same.name)) {
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
    })
    const read = readFetchedCatalog(fetched)
    const name = input.name ?? read.catalog.name
    if (input.name === undefined) {
      try {
        admitMarketplace(source, name, env, context.projectRoot, sourceLabel(source))
      } catch (error) {
        discardDownload(fetched)
        throw error
      }
    }
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
    }
    writeMarketplaces(env, [...records, record])
    if (project && input.declare !== false) {
      const manifest = readProjectManifest(project)
      manifest.marketplaces = {
        ...manifest.marketplaces,
        [name]: {
          source: portableInput(source, record.input, project),
          ...(record.ref ? {ref: record.ref} : {}),
          ...(record.sparse ? {sparse: record.sparse} : {}),
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
      warnings: read.problems,
    }
  })
}
