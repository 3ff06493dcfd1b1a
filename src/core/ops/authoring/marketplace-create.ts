/**
 * `loadout marketplace create`: a marketplace repository, ready to list plugins and to publish.
 * Everything is checked before a byte is written; a new folder is filled beside its destination and
 * renamed into place, so a failure leaves nothing half made.
 */
import {lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import type {Environment} from '../../kernel/env/environment.js'
import {conflict, errnoCode, usageError, validationFailed} from '../../model/errors.js'
import {localGitContext, runGit} from '../../kernel/sources/git-process.js'
import {assertNoLinksBelow, safeRealpath, unsafePath} from '../../kernel/fs/contain.js'
import {explainWriteError, stagingDirFor, swapDirectoryIn, writeFileAtomic} from '../../kernel/fs/write.js'
import {readCatalog} from '../../kernel/marketplace/catalog.js'
import {checkPluginName} from '../../kernel/text/names.js'
import type {PluginAuthor} from '../../model/marketplace.js'
import {loadValidator} from '../../kernel/json/schemas.js'
import {readTemplate, renderTemplate} from '../../kernel/env/templates.js'
import {CATALOG_FILES, refuseName, type MarketplaceFormat} from './marketplace-files.js'
import {gitIdentity} from './git-identity.js'

export const MARKETPLACE_FORMATS = ['claude', 'all'] as const
export type MarketplaceFormatChoice = (typeof MARKETPLACE_FORMATS)[number]

export interface CreateMarketplaceInput {
  name: string
  /** the folder to create (default: ./<name>), relative to env.cwd */
  dir?: string
  format: MarketplaceFormatChoice
  description?: string
  /** `Name` or `Name <email>`; default: git config user.name and user.email */
  owner?: string
  force: boolean
  dryRun: boolean
  git: boolean
  env: Environment
}

export type GitStatus = 'initialized' | 'already-a-repository' | 'skipped' | 'failed' | 'would-initialize'

export interface CreatedMarketplace {
  name: string
  path: string
  formats: MarketplaceFormat[]
  /** paths relative to the marketplace folder, with `/` */
  files: string[]
  /** files that were there before and were overwritten (only with --force) */
  replaced: string[]
  owner: PluginAuthor
  ownerFrom: 'flag' | 'git' | 'name'
  dryRun: boolean
  git: {status: GitStatus; message?: string}
  /** what to do next, as commands */
  next: string[]
}

const MAX_DESCRIPTION = 1024
const OWNER_FORM = /^\s*([^<>]*?)\s*(?:<([^<>\s]+)>)?\s*$/

const title = (name: string) =>
  name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ')

/** `{"name": "A", "email": "b"}` on one line, as a person would write it. */
const inlineJson = (value: Record<string, string>): string =>
  `{${Object.entries(value)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(', ')}}`

export const parseOwner = (text: string): PluginAuthor => {
  const match = OWNER_FORM.exec(text)
  const name = match?.[1]?.trim()
  if (!match || !name)
    throw usageError('bad-owner', `--owner ${JSON.stringify(text)} is not "Name" or "Name <email>"`, {
      suggestions: ['for example: --owner "Acme Tools <tools@acme.dev>"'],
    })
  return match[2] ? {name, email: match[2]} : {name}
}

const ownerFor = async (input: CreateMarketplaceInput): Promise<{owner: PluginAuthor; from: CreatedMarketplace['ownerFrom']}> => {
  if (input.owner !== undefined) return {owner: parseOwner(input.owner), from: 'flag'}
  const identity = await gitIdentity(input.env)
  if (identity) return {owner: identity, from: 'git'}
  return {owner: {name: input.name}, from: 'name'}
}

/** The files of a new marketplace, rendered from templates/marketplace, by path. */
export const renderMarketplace = (name: string, description: string, owner: PluginAuthor, formats: readonly MarketplaceFormat[]): Map<string, string> => {
  const catalogs = formats.map((f) => `\`${CATALOG_FILES[f]}\``).join(' (Claude Code and loadout) and ')
  const layout = [
    ...formats.map((f) => `${CATALOG_FILES[f].padEnd(36)} ${f === 'claude' ? 'the catalog Claude Code and loadout read' : 'the same catalog, for Codex'}`),
    `${'plugins/'.padEnd(36)} one folder per plugin`,
    `${'README.md'.padEnd(36)} this file`,
  ].join('\n')
  const values: Record<string, string> = {
    name,
    title: title(name),
    description,
    catalogs: formats.length > 1 ? `${catalogs} (Codex)` : catalogs,
    layout,
    nameJson: JSON.stringify(name),
    titleJson: JSON.stringify(title(name)),
    descriptionJson: JSON.stringify(description),
    ownerJson: inlineJson({...owner} as Record<string, string>),
  }
  const files = new Map<string, string>()
  for (const file of readTemplate('marketplace')) {
    const [part, ...rest] = file.path.split('/')
    if (part === 'common' || (part === 'claude' && formats.includes('claude')) || (part === 'codex' && formats.includes('codex'))) {
      files.set(rest.join('/'), renderTemplate(file.text, values))
    }
  }
  return files
}

/** The rendered catalogs must pass the schema and the catalog reader, or nothing is written. */
const checkRendered = async (files: ReadonlyMap<string, string>, formats: readonly MarketplaceFormat[]): Promise<void> => {
  const validator = await loadValidator('claude-marketplace')
  for (const format of formats) {
    const rel = CATALOG_FILES[format]
    const data = JSON.parse(files.get(rel)!) as Record<string, unknown>
    // The schema is Claude's; a Codex catalog has no owner and has an interface instead.
    const {interface: _codexOnly, ...claudeShaped} = data
    const shaped = format === 'codex' ? {...claudeShaped, owner: {name: 'codex'}} : data
    const broken = !validator(shaped) || readCatalog(data, {file: rel, origin: 'local', format}).problems.length > 0
    if (broken) throw validationFailed('template-invalid', `the rendered ${rel} is invalid; this is a bug in loadout's templates`)
  }
}

type Destination = {kind: 'new'} | {kind: 'existing'; empty: boolean}

/** What is at the destination now; a link, a file, or a folder with files in it (without --force) is refused. */
const inspectDestination = (path: string, shown: string, force: boolean): Destination => {
  let stat
  try {
    stat = lstatSync(path)
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return {kind: 'new'}
    throw error
  }
  if (stat.isSymbolicLink()) {
    throw unsafePath(
      `refusing to create the marketplace through the symbolic link ${shown} (it points to ${safeRealpath(path) ?? 'a missing target'})`,
      'give the real folder as --dir, or remove the link',
    )
  }
  if (!stat.isDirectory()) throw conflict('dir-not-folder', `${shown} exists and is not a folder`, {suggestions: ['choose another --dir']})
  const empty = readdirSync(path).length === 0
  if (!empty && !force) {
    throw conflict('dir-exists', `${shown} already exists and is not empty`, {
      suggestions: ['choose another --dir, or pass --force to write the marketplace files into it (its other files are kept)'],
    })
  }
  return {kind: 'existing', empty}
}

export const createMarketplace = async (input: CreateMarketplaceInput): Promise<CreatedMarketplace> => {
  const {name, env} = input
  refuseName('marketplace', name, checkPluginName(name))
  const description = input.description ?? `Plugins for AI agents, published as the ${name} marketplace.`
  if (description.trim() === '') throw usageError('description-empty', 'the description is empty')
  if ([...description].length > MAX_DESCRIPTION)
    throw usageError('description-too-long', `the description is ${[...description].length} characters; the limit is ${MAX_DESCRIPTION}`)
  if (!(MARKETPLACE_FORMATS as readonly string[]).includes(input.format)) {
    throw usageError('bad-format', `unknown --format ${JSON.stringify(input.format)}`, {suggestions: [`choose from ${MARKETPLACE_FORMATS.join(', ')}`]})
  }
  const formats: MarketplaceFormat[] = input.format === 'all' ? ['claude', 'codex'] : ['claude']
  const shown = input.dir ?? `./${name}`
  const path = resolve(env.cwd, input.dir ?? name)
  const destination = inspectDestination(path, shown, input.force)
  const {owner, from} = await ownerFor(input)

  const files = renderMarketplace(name, description, owner, formats)
  await checkRendered(files, formats)

  const replaced: string[] = []
  if (destination.kind === 'existing') {
    for (const rel of files.keys()) {
      const abs = join(path, rel)
      assertNoLinksBelow(path, abs)
      let stat
      try {
        stat = lstatSync(abs)
      } catch {
        continue
      }
      if (!stat.isFile())
        throw conflict('file-in-the-way', `${join(shown, rel)} exists and is not a file`, {suggestions: ['move it away, or choose another --dir']})
      replaced.push(rel)
    }
  }
  const hasGit = destination.kind === 'existing' && existsAt(join(path, '.git'))
  const result: CreatedMarketplace = {
    name,
    path,
    formats,
    files: [...files.keys()],
    replaced,
    owner,
    ownerFrom: from,
    dryRun: input.dryRun,
    git: {status: !input.git ? 'skipped' : hasGit ? 'already-a-repository' : input.dryRun ? 'would-initialize' : 'initialized'},
    next: [...(input.dir === '.' ? [] : [`cd ${shown}`]), 'loadout marketplace add-plugin ./plugins/<plugin>', 'loadout marketplace validate .'],
  }
  if (input.dryRun) return result

  try {
    if (destination.kind === 'new') writeNew(path, files)
    else for (const [rel, text] of files) writeInto(path, rel, text)
  } catch (error) {
    throw explainWriteError(error)
  }
  if (result.git.status === 'initialized') {
    try {
      await runGit(localGitContext(env), path, ['-c', 'init.defaultBranch=main', 'init'])
    } catch (error) {
      result.git = {
        status: 'failed',
        message: `git init failed (${error instanceof Error ? error.message : String(error)}); the marketplace was created without a repository`,
      }
    }
  }
  return result
}

const existsAt = (path: string): boolean => {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** A new folder: filled beside its destination, then renamed into place. */
const writeNew = (path: string, files: ReadonlyMap<string, string>): void => {
  mkdirSync(dirname(path), {recursive: true})
  const staging = stagingDirFor(path)
  try {
    for (const [rel, text] of files) {
      const full = join(staging, rel)
      mkdirSync(dirname(full), {recursive: true})
      writeFileSync(full, text, {flag: 'wx'})
    }
    swapDirectoryIn(staging, path, false)
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
}

/** A folder that exists (empty, or --force): each file written beside itself and renamed over, never through a link. */
const writeInto = (path: string, rel: string, text: string): void => {
  const abs = join(path, rel)
  assertNoLinksBelow(path, abs)
  mkdirSync(dirname(abs), {recursive: true})
  assertNoLinksBelow(path, abs)
  writeFileAtomic(abs, text)
}
