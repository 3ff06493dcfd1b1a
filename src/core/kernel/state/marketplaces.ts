import {readdirSync, rmSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {environmentWith, loadoutPaths, type Environment} from '../env/environment.js'
import {readJsonFile, writeJsonFile} from '../fs/json.js'
import {TEMP_NAME} from '../fs/write.js'
import type {Scope} from '../env/scope.js'
import type {Source} from '../../model/source.js'
import type {SignerSeen, SigstoreIdentity, TrustedKey} from '../../model/signing.js'
import type {AutoUpdate} from '../../model/marketplace.js'

/** A marketplace as registered and as last fetched on this machine. */
export interface MarketplaceRecord {
  name: string
  scope: Scope
  /** for project scope: the project root it belongs to */
  project?: string
  /** what the user typed, credentials redacted */
  input: string
  source: Source
  ref?: string
  sparse?: string[]
  /** the GitHub base URL (LOADOUT_GITHUB_URL) a GitHub-shorthand source was added with, so later runs reach the same server */
  githubUrl?: string
  addedAt: string
  updatedAt: string
  /** the git commit the catalog was read at */
  commit?: string
  etag?: string
  lastModified?: string
  /** the folder the catalog's relative plugin paths resolve against (git checkout or local folder) */
  root?: string
  /** absolute path of the catalog JSON last read successfully */
  catalogFile: string
  pluginCount: number
  warningCount: number
  /** the keys a commit of it must be signed by (`--signed-by`, loadout.json's signedBy) */
  signedBy?: TrustedKey[]
  /** the Sigstore identities an archive it lists must be signed by (`--signed-by-identity`) */
  signedByIdentity?: SigstoreIdentity[]
  /** who signed `commit` */
  signer?: SignerSeen
  /** `loadout update --auto`: off (absent), notify or apply, once the last refresh is a day old */
  autoUpdate?: AutoUpdate
}

interface StateFile {
  version: 1
  marketplaces: MarketplaceRecord[]
}

/** The environment to fetch a marketplace with: its own GitHub base URL, when it was added with one. */
export const marketEnv = (record: {githubUrl?: string}, env: Environment): Environment =>
  record.githubUrl ? environmentWith(env, {vars: {...env.vars, LOADOUT_GITHUB_URL: record.githubUrl}}) : env

export const marketplacesFile = (env: Environment): string => join(loadoutPaths(env).config, 'marketplaces.json')
export const stateLockDir = (env: Environment): string => join(loadoutPaths(env).config, '.lock')

/**
 * The marketplace records are written under the lock but with no journal (one atomic rename): a
 * temporary copy of them beside the file is a killed run's, and goes at the next recovery.
 */
export const isMarketplacesLeftover = (env: Environment): ((name: string) => boolean) => {
  const prefix = `.${basename(marketplacesFile(env))}.loadout-`
  return (name) => name.startsWith(prefix) && TEMP_NAME.test(name)
}

export const hasMarketplacesLeftover = (env: Environment): boolean => {
  try {
    return readdirSync(dirname(marketplacesFile(env))).some(isMarketplacesLeftover(env))
  } catch {
    return false
  }
}

export const readMarketplaces = (env: Environment): MarketplaceRecord[] =>
  readJsonFile<StateFile>(marketplacesFile(env), {version: 1, marketplaces: []}).marketplaces ?? []

export const writeMarketplaces = (env: Environment, records: MarketplaceRecord[]): void => {
  const sorted = [...records].sort((a, b) => a.name.localeCompare(b.name) || (a.project ?? '').localeCompare(b.project ?? ''))
  writeJsonFile(marketplacesFile(env), {version: 1, marketplaces: sorted} satisfies StateFile)
}

/** The records visible from here: every user-scope one, and project ones of this project. */
export const visibleMarketplaces = (records: readonly MarketplaceRecord[], projectRoot: string): MarketplaceRecord[] =>
  records.filter((r) => r.scope === 'user' || r.project === projectRoot)

/** The project's declarations in loadout.json (what the project says it uses). */
export interface ProjectManifest {
  marketplaces?: Record<string, {source: string; ref?: string; sparse?: string[]; signedBy?: string[]; signedByIdentity?: string[]; autoUpdate?: AutoUpdate}>
  [key: string]: unknown
}

export const projectManifestFile = (projectRoot: string): string => join(projectRoot, 'loadout.json')

export const readProjectManifest = (projectRoot: string): ProjectManifest => readJsonFile<ProjectManifest>(projectManifestFile(projectRoot), {})

/** Writes loadout.json; one left declaring nothing (the last plugin, server or marketplace taken out) goes, as before the first. */
export const writeProjectManifest = (projectRoot: string, manifest: ProjectManifest): void => {
  const declaresNothing = Object.values(manifest).every((v) => v !== null && typeof v === 'object' && Object.keys(v).length === 0)
  if (declaresNothing) rmSync(projectManifestFile(projectRoot), {force: true})
  else writeJsonFile(projectManifestFile(projectRoot), manifest)
}
