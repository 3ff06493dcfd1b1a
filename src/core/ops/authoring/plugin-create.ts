/**
 * `loadout plugin create`: a working plugin folder for the chosen formats, with one example of each
 * part asked for, that passes `plugin validate` and installs unchanged. Everything is checked before
 * anything is written (the name, the parts and formats, the target folder); the folder is built
 * beside its destination, validated, given a git repository, and renamed into place.
 */
import {lstatSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {expandHome, type Environment} from '../../kernel/env/environment.js'
import {localGitContext, runGit as runHardenedGit} from '../../kernel/sources/git-process.js'
import {conflict, usageError, validationFailed} from '../../model/errors.js'
import {assertNoLinksBelow, isInside, safeRealpath} from '../../kernel/fs/contain.js'
import {explainWriteError, stagingDirFor, swapDirectoryIn} from '../../kernel/fs/write.js'
import {checkPluginName} from '../../kernel/text/names.js'
import {entryKind} from '../../kernel/plugin/paths.js'
import {formatProblem} from '../../model/problems.js'
import {MAX_DESCRIPTION} from '../../kernel/skills/validate.js'
import {MANIFEST_FORMATS} from '../../kernel/plugin/manifest-formats/index.js'
import {gitIdentity} from './git-identity.js'
import {scaffoldPlugin} from './plugin-scaffold.js'
import {validatePlugin} from './plugin-validate.js'
import {PLUGIN_PARTS, title, type PluginAuthor, type PluginFormat, type PluginPart} from '../../kernel/plugin/manifest-formats/scaffold-kit.js'

export {PLUGIN_PARTS, type PluginAuthor, type PluginFormat, type PluginPart} from '../../kernel/plugin/manifest-formats/scaffold-kit.js'

/** The formats `plugin create` can write. */
export const PLUGIN_FORMATS: readonly PluginFormat[] = MANIFEST_FORMATS.filter((f) => f.scaffold).map((f) => f.id)

/** What --with tools and the like need: the format that alone carries each such part. */
const PART_NOUN: Partial<Record<PluginPart, string>> = {tools: 'exec tools'}

/** Without --with: one skill, the part every agent reads. Without --format: the first format's manifest (Claude Code's). */
export const DEFAULT_PARTS: readonly PluginPart[] = ['skills']
export const DEFAULT_FORMATS: readonly PluginFormat[] = [PLUGIN_FORMATS[0]!]

export interface CreatePluginInput {
  name: string
  /** --with, split on commas; empty for the default */
  parts: readonly string[]
  /** --format, split on commas (`all` for every format); empty for the default */
  formats: readonly string[]
  description?: string
  /** `Name <email>`, or just a name; default: git config user.name and user.email */
  author?: string
  /** the folder to create; default: ./<name> */
  dir?: string
  env: Environment
  git: boolean
  force: boolean
  dryRun: boolean
}

export interface CreatedPlugin {
  name: string
  /** the plugin folder, absolute */
  path: string
  formats: PluginFormat[]
  parts: PluginPart[]
  /** every file written, relative to the plugin folder */
  files: string[]
  author?: PluginAuthor
  authorFrom: 'flag' | 'git-config' | 'none'
  git: {initialized: boolean; skipped?: string}
  /** an existing folder was replaced (--force) */
  replaced: boolean
  dryRun: boolean
  notes: string[]
  /** commands to run next */
  next: string[]
}

// ---------------------------------------------------------------------------------------------
// Inputs, all checked before anything is written

const choose = <T extends string>(given: readonly string[], allowed: readonly T[], fallback: readonly T[], flag: string, all?: string): T[] => {
  if (given.length === 0) return [...fallback]
  const chosen = new Set<T>()
  for (const value of given) {
    if (all !== undefined && value === all) allowed.forEach((a) => chosen.add(a))
    else if ((allowed as readonly string[]).includes(value)) chosen.add(value as T)
    else {
      const choices = [...allowed, ...(all ? [all] : [])].join(', ')
      throw usageError(`bad-${flag}`, `unknown --${flag} value "${value}"`, {suggestions: [`choose from ${choices} (comma-separated)`]})
    }
  }
  return allowed.filter((a) => chosen.has(a))
}

const checkName = (name: string): void => {
  const broken = checkPluginName(name)
  if (broken) {
    throw usageError('plugin-name-invalid', `plugin name ${JSON.stringify(name)} ${broken}`, {
      suggestions: ['use kebab-case: 1-64 lowercase letters and digits in words joined by single hyphens, e.g. code-review'],
    })
  }
}

const checkDescription = (description: string): void => {
  if (description.trim() === '') throw usageError('description-empty', 'the description is empty')
  const length = [...description].length
  if (length > MAX_DESCRIPTION) throw usageError('description-too-long', `the description is ${length} characters; the limit is ${MAX_DESCRIPTION}`)
}

/** `Jane Doe <jane@example.com>` or `Jane Doe`. */
export const parseAuthor = (text: string): PluginAuthor => {
  const match = /^\s*([^<>]*?)\s*(?:<([^<>\s]+)>)?\s*$/.exec(text)

  if (!match || !match[1] || /[\u0000-\u001f]/.test(text)) {
    throw usageError('author-invalid', `--author ${JSON.stringify(text)} is not a name, or a name and <email>`, {
      suggestions: ['e.g. --author "Jane Doe <jane@example.com>"'],
    })
  }
  return {name: match[1], ...(match[2] ? {email: match[2]} : {})}
}

// ---------------------------------------------------------------------------------------------
// git, run as loadout runs it everywhere: hardened, no prompts, nothing fetched

const GIT_TIMEOUT_MS = 20_000

const runGit = (args: readonly string[], cwd: string, env: Environment): Promise<{ok: boolean; stdout: string; reason: string}> =>
  runHardenedGit(localGitContext(env, GIT_TIMEOUT_MS), cwd, [...args]).then(
    (stdout) => ({ok: true, stdout: stdout.trim(), reason: ''}),
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error)
      return {ok: false, stdout: '', reason: /spawn \S+ ENOENT/.test(message) ? 'git is not installed' : message.replace(/^git \S+ failed: /, '')}
    },
  )

/** --author, else git's user.name and user.email, else none. */
const resolveAuthor = async (input: CreatePluginInput): Promise<{author?: PluginAuthor; from: CreatedPlugin['authorFrom']}> => {
  if (input.author !== undefined) return {author: parseAuthor(input.author), from: 'flag'}
  const identity = await gitIdentity(input.env, GIT_TIMEOUT_MS)
  return identity ? {author: identity, from: 'git-config'} : {from: 'none'}
}

/** `git init` in the staged folder; skipped inside another work tree, where a nested repository is rarely wanted. */
const initGit = async (staging: string, parent: string, env: Environment): Promise<CreatedPlugin['git']> => {
  const inside = await runGit(['rev-parse', '--show-toplevel'], parent, env)
  if (inside.ok) return {initialized: false, skipped: `${parent} is inside the git work tree at ${inside.stdout}; no nested repository was made`}
  const init = await runGit(['init'], staging, env)
  return init.ok ? {initialized: true} : {initialized: false, skipped: `git init failed: ${init.reason}`}
}

// ---------------------------------------------------------------------------------------------
// The target folder

interface Target {
  path: string
  exists: boolean
}

const checkTarget = (input: CreatePluginInput): Target => {
  const {env} = input
  const path = resolve(env.cwd, input.dir === undefined ? input.name : expandHome(input.dir, env))
  const kind = entryKind(path)
  if (kind === 'link') {
    throw usageError(
      'dir-is-link',
      `${path} is a symbolic link (to ${safeRealpath(path) ?? 'a missing target'}); loadout does not create a plugin through a link`,
      {
        suggestions: ['give the real folder with --dir, or another path'],
      },
    )
  }
  if (isInside(env.cwd, path)) assertNoLinksBelow(env.cwd, path)
  if (kind === 'missing') return {path, exists: false}
  if (kind !== 'dir') throw conflict('plugin-dir-not-folder', `${path} exists and is not a folder`, {suggestions: ['choose another name or --dir']})
  if (!input.force) {
    throw conflict('plugin-dir-exists', `${path} already exists`, {suggestions: ['pass --force to replace it, or choose another name or --dir']})
  }
  if (isInside(path, env.cwd) || resolve(path) === resolve(env.home)) {
    throw usageError('plugin-dir-unsafe', `refusing to replace ${path}: it holds the current folder or is your home folder`, {
      suggestions: ['choose another --dir'],
    })
  }
  return {path, exists: true}
}

const writeStaged = (staging: string, files: ReadonlyMap<string, {text: string; mode: number}>): void => {
  for (const [rel, file] of files) {
    const full = join(staging, rel)
    mkdirSync(dirname(full), {recursive: true})
    writeFileSync(full, file.text, {flag: 'wx', mode: file.mode})
  }
}

/** A part only one format carries (cst-agent's exec tools) needs that format. */
const checkOwnParts = async (parts: readonly PluginPart[], formats: readonly PluginFormat[]): Promise<void> => {
  for (const format of MANIFEST_FORMATS.filter((f) => f.scaffold)) {
    const owned = Object.keys((await format.scaffold!()).ownParts ?? {}) as PluginPart[]
    const part = owned.find((p) => parts.includes(p))
    if (part === undefined || formats.includes(format.id)) continue
    throw usageError(
      `${part}-need-${format.id}`,
      `${PART_NOUN[part] ?? part} are a ${format.name} feature: --with ${part} needs --format ${format.id} (or all)`,
      {
        suggestions: [`add ${format.id}: --format ${[...formats, format.id].join(',')}`],
      },
    )
  }
}

/** Creates the plugin folder (or, with `dryRun`, says what it would hold). */
export const createPlugin = async (input: CreatePluginInput): Promise<CreatedPlugin> => {
  const {name, env} = input
  checkName(name)
  const parts = choose(input.parts, PLUGIN_PARTS, DEFAULT_PARTS, 'with')
  const formats = choose(input.formats, PLUGIN_FORMATS, DEFAULT_FORMATS, 'format', 'all')
  const scaffolds = await Promise.all(formats.map((id) => MANIFEST_FORMATS.find((f) => f.id === id)!.scaffold!()))
  await checkOwnParts(parts, formats)
  const description = input.description ?? `${title(name)}: describe what this plugin does and when to use it.`
  checkDescription(description)
  const {author, from} = await resolveAuthor(input)
  const target = checkTarget(input)
  const scaffold = scaffoldPlugin({name, description, parts, formats, ...(author ? {author} : {})}, scaffolds)
  const shown = input.dir === undefined ? `./${name}` : input.dir
  const result: CreatedPlugin = {
    name,
    path: target.path,
    formats,
    parts,
    files: [...scaffold.files.keys()],
    ...(author ? {author} : {}),
    authorFrom: from,
    git: {initialized: false, ...(input.git ? {} : {skipped: '--no-git'})},
    replaced: target.exists,
    dryRun: input.dryRun,
    notes: scaffold.notes,
    next: [`loadout plugin validate ${shown}`, `loadout install ${shown.startsWith('/') || shown.startsWith('.') ? shown : `./${shown}`}`],
  }
  if (input.dryRun) return {...result, git: {initialized: false, skipped: 'dry run'}}

  const parent = dirname(target.path)
  let staging: string | undefined
  try {
    mkdirSync(parent, {recursive: true})
    staging = stagingDirFor(target.path)
    writeStaged(staging, scaffold.files)
    const check = await validatePlugin(staging)
    if (!check.valid) {
      throw validationFailed('template-invalid', `the new plugin does not pass validation (a bug in loadout): ${check.problems.map(formatProblem).join('; ')}`)
    }
    if (input.git) result.git = await initGit(staging, parent, env)
    // the destination may have changed while we worked: never rename onto a link
    if (lstatSync(target.path, {throwIfNoEntry: false})?.isSymbolicLink())
      throw usageError('dir-is-link', `${target.path} became a symbolic link; nothing was created`)
    swapDirectoryIn(staging, target.path, target.exists)
    staging = undefined
  } catch (error) {
    throw explainWriteError(error)
  } finally {
    if (staging) rmSync(staging, {recursive: true, force: true})
  }
  return result
}
