/**
 * The path rules for everything a plugin names. A plugin is untrusted: every path a manifest gives
 * is checked as text (relative, no `..`, `./` where the format wants it) and then on disk (its real
 * path stays inside the plugin root), and a walk finds every symbolic link that leads out. Nothing
 * here follows a link to read what is behind it.
 */
import {closeSync, constants, fstatSync, openSync, readlinkSync, type Dirent} from 'node:fs'
import {basename, dirname, isAbsolute, normalize, relative, resolve, sep} from 'node:path'
import {errnoCode, isLoadoutError, validationFailed, type LoadoutError} from '../../model/errors.js'
import {isInside, listFolder, lstatIfAny, relativeBelow, safeRealpath} from '../fs/contain.js'
import {entryPath} from '../fs/entry-path.js'
import {problem, type Problem} from '../../model/problems.js'
import {readOpenFile} from '../fs/read.js'
import {decodeAgentText} from '../fs/utf8.js'

/** Where a path came from: the manifest file (or label) and the JSON path inside it. */
export interface PathOrigin {
  file: string
  jsonPath?: string
}

export interface ManifestPathContext extends PathOrigin {
  root: string
  jsonPath: string
  /** Claude and Codex manifests write `./skills`; cst-agent and Lexora paths need no `./` */
  requireDotSlash: boolean
}

/** A rule broken by plugin input, thrown as a LoadoutError that carries the Problem in `details`. */
export const ruleBroken = (code: string, message: string, origin: PathOrigin, suggestions: string[] = []): LoadoutError => {
  const found = problem('error', code, message, {file: origin.file, ...(origin.jsonPath ? {path: origin.jsonPath} : {})})
  const where = [origin.file, origin.jsonPath].filter(Boolean).join(' ')
  return validationFailed(code, `${where}: ${message}`, {suggestions, details: {problems: [found]}})
}

/** The problems a thrown rule break carries, or undefined for any other error. */
export const problemsOf = (error: unknown): Problem[] | undefined => {
  if (!isLoadoutError(error)) return undefined
  const details = error.details as {problems?: Problem[]} | undefined
  return Array.isArray(details?.problems) ? details.problems : undefined
}

/** `~/.ssh` for a path under `home`, so a message says plainly where a link leads. */
export const displayPath = (path: string, home?: string): string => {
  if (!home) return path
  for (const base of new Set([resolve(home), safeRealpath(home)])) {
    if (base && isInside(base, path)) {
      const rel = relative(base, path)
      return rel === '' ? '~' : `~/${rel.split(sep).join('/')}`
    }
  }
  return path
}

const WINDOWS_DRIVE = /^[A-Za-z]:/

/** Why `raw` is not a relative path, or undefined. Windows forms are refused on every platform. */
const absoluteForm = (raw: string): string | undefined => {
  if (raw.startsWith('\\\\') || raw.startsWith('//')) return 'is a network (UNC) path'
  if (WINDOWS_DRIVE.test(raw)) return /^[A-Za-z]:[\\/]/.test(raw) ? 'is an absolute Windows path' : 'names a Windows drive (a drive-relative path)'
  if (raw.startsWith('/') || raw.startsWith('\\') || isAbsolute(raw)) return 'is absolute'
  if (raw === '~' || raw.startsWith('~/') || raw.startsWith('~\\')) return 'starts with "~" (a home folder)'
  return undefined
}

const hasParentSegment = (raw: string): boolean => raw.split(/[\\/]/).includes('..')

/** The text rules: a string, relative, no `..`, `./` first where required. Returns the text; throws. */
export const checkPathText = (raw: unknown, ctx: ManifestPathContext): string => {
  const broken = (code: string, rule: string, suggestions: string[] = []) => ruleBroken(code, rule, ctx, suggestions)
  if (typeof raw !== 'string') throw broken('path-not-string', `must be a path (a string), not ${typeName(raw)}`)
  const shown = JSON.stringify(raw)
  if (raw.length === 0) throw broken('path-empty', 'is an empty path')
  if (raw.includes('\0')) throw broken('path-nul', `path ${shown} contains a NUL character`)
  const absolute = absoluteForm(raw)
  if (absolute) throw broken('path-absolute', `path ${shown} ${absolute}; paths must be relative to the plugin root`)
  if (hasParentSegment(raw)) throw broken('path-parent-segment', `path ${shown} has a ".." segment; paths may not climb out of the plugin root`)
  if (ctx.requireDotSlash && !raw.startsWith('./')) {
    throw broken('path-not-dot-slash', `path ${shown} must start with "./" (relative to the plugin root)`, [`write "./${raw.replace(/^\.\/?|^\.\\/, '')}"`])
  }
  return raw
}

/**
 * The disk rule: `abs` (lexically inside `root`) must also really be inside it. The deepest part of
 * the path that exists is resolved; a link to outside, or a dangling link aimed outside, is refused.
 */
export const checkResolvesInside = (abs: string, root: string, origin: PathOrigin, label?: string): string => {
  const realRoot = safeRealpath(root) ?? resolve(root)
  const shown = () => JSON.stringify(label ?? (relative(root, abs) || '.'))
  if (!isInside(root, abs)) throw ruleBroken('path-outside-root', `path ${shown()} is outside the plugin root`, origin)
  const target = outsideTarget(abs, realRoot)
  if (target !== undefined) {
    throw ruleBroken('path-outside-root', `path ${shown()} resolves through a symbolic link to ${target}, outside the plugin root; it is not read`, origin)
  }
  return abs
}

/** Every path rule at once: returns the absolute path of `raw` under `root`, or throws naming the rule. */
export const checkManifestPath = (raw: unknown, ctx: ManifestPathContext): string => {
  const text = checkPathText(raw, ctx)
  return checkResolvesInside(resolve(ctx.root, text), ctx.root, ctx, text)
}

/** Where a dangling link points, judged from the real folder that holds it. */
const danglingTarget = (link: string): string => resolve(safeRealpath(dirname(link)) ?? dirname(link), readlinkSync(link))

/** The real place outside `realRoot` that `abs` leads to, or undefined when it stays inside. */
const outsideTarget = (abs: string, realRoot: string): string | undefined => {
  let probe = abs
  while (lstatIfAny(probe) === undefined) {
    const up = dirname(probe)
    if (up === probe) return undefined
    probe = up
  }
  const real = safeRealpath(probe)
  if (real !== undefined) return isInside(realRoot, real) ? undefined : real
  const target = danglingTarget(probe)
  return isInside(realRoot, target) ? undefined : `${target} (which does not exist)`
}

/** Folders a plugin tree walk skips: version-control data is never installed. */
const SKIPPED_FOLDERS = new Set(['.git'])
export const MAX_TREE_ENTRIES = 100_000

export interface LinkWalkOptions {
  /** the user's home, to show link targets as `~/...` */
  home?: string
  /** what the root is, in messages: `the plugin root` (default), `its skill folder` */
  what?: string
  /** also refuse hard-linked files (see hardLinkProblems); default true */
  hardLinks?: boolean
}

/** The problem with one symbolic link, or undefined when its target resolves inside the root. */
const linkProblem = (link: string, root: string, realRoot: string, home?: string, what = 'the plugin root'): Problem | undefined => {
  const shownLink = relative(root, link) || basename(link)
  const real = safeRealpath(link)
  if (real !== undefined && isInside(realRoot, real)) return undefined
  let target: string
  if (real !== undefined) target = displayPath(real, home)
  else {
    const aimed = danglingTarget(link)
    if (isInside(realRoot, aimed)) return undefined
    target = `${displayPath(aimed, home)} (which does not exist)`
  }
  return problem('error', 'link-outside-root', `symbolic link ${shownLink} points outside ${what}, to ${target}; it is refused and never followed`, {
    file: link,
  })
}

const specialFileProblem = (path: string, root: string): Problem =>
  problem('error', 'special-file', `${relative(root, path)} is not a regular file, folder or symbolic link (a device, socket or pipe)`, {file: path})

const isSpecial = (entry: Dirent): boolean => entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()

/**
 * Walks `dir` without following links and returns a problem for every symbolic link whose target
 * does not resolve inside `root` (including a dangling one aimed outside), and for device files.
 */
export const linksOutside = (dir: string, root: string, options: LinkWalkOptions = {}): Problem[] => {
  const realRoot = safeRealpath(root) ?? resolve(root)
  const problems: Problem[] = []
  const start = lstatIfAny(dir)
  if (start?.isSymbolicLink()) {
    const found = linkProblem(dir, root, realRoot, options.home, options.what)
    return found ? [found] : []
  }
  const linked = new Map<string, {nlink: number; paths: string[]}>()
  if (!start?.isDirectory()) return []
  let seen = 0
  const walk = (current: string): boolean => {
    let entries: readonly Dirent[]
    try {
      entries = listFolder(current)
    } catch (error) {
      problems.push(
        problem('error', 'path-unreadable', `cannot read the folder ${relative(root, current) || '.'}: ${errnoCode(error) ?? String(error)}`, {file: current}),
      )
      return true
    }
    for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (++seen > MAX_TREE_ENTRIES) {
        problems.push(problem('error', 'plugin-too-many-files', `the plugin has more than ${MAX_TREE_ENTRIES} files and folders`, {file: root}))
        return false
      }
      const full = entryPath(current, entry.name)
      if (entry.isSymbolicLink()) {
        const found = linkProblem(full, root, realRoot, options.home, options.what)
        if (found) problems.push(found)
      } else if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !walk(full)) return false
      } else if (isSpecial(entry)) problems.push(specialFileProblem(full, root))
      else if (entry.isFile() && options.hardLinks !== false) noteHardLink(full, linked)
    }
    return true
  }
  walk(normalize(dir))
  return [...problems, ...hardLinkProblems(linked, root, options.what)]
}

const noteHardLink = (path: string, linked: Map<string, {nlink: number; paths: string[]}>): void => {
  const stat = lstatIfAny(path)
  if (!stat || stat.nlink <= 1) return
  const key = `${stat.dev}:${stat.ino}`
  const seen = linked.get(key) ?? {nlink: stat.nlink, paths: []}
  seen.paths.push(path)
  linked.set(key, seen)
}

/**
 * A hard-linked file is the same bytes as another path, and which path that is cannot be asked of
 * the file: it may be `~/.ssh/id_ed25519`. It is accepted only when every one of its links was found
 * inside the root (two names for one file of the plugin); otherwise it is refused.
 */
const hardLinkProblems = (linked: Map<string, {nlink: number; paths: string[]}>, root: string, what = 'the plugin root'): Problem[] =>
  [...linked.values()]
    .filter((l) => l.paths.length < l.nlink)
    .flatMap((l) =>
      l.paths.map((path) =>
        problem(
          'error',
          'hard-link-outside',
          `${relative(root, path)} is a hard link (${l.nlink} names for one file) and ${l.nlink - l.paths.length} of its other names are outside ${what}; copy the file instead of linking it`,
          {file: path},
        ),
      ),
    )

/** Throws, naming each link and its target, when any link under `dir` leads outside `root`. */
export const checkLinksInside = (dir: string, root: string, options: LinkWalkOptions = {}): void => {
  const problems = linksOutside(dir, root, options)
  if (problems.length === 0) return
  const lines = problems.map((p) => `${p.file}: ${p.message}`)
  throw validationFailed(problems[0]!.code, lines.length === 1 ? lines[0]! : `${lines.length} symbolic links lead outside ${root}:\n  ${lines.join('\n  ')}`, {
    suggestions: ['replace each link with the file it points to, or remove it'],
    details: {problems},
  })
}

export interface ContainedReadOptions extends PathOrigin {
  root: string
  maxBytes: number
}

/**
 * Reads a file that must be a regular file (or a link resolving inside `root`), at most `maxBytes`,
 * valid UTF-8. The size is checked on the open descriptor before a byte is read.
 */
export const readContainedText = (abs: string, options: ContainedReadOptions): string => {
  const shown = relativeBelow(options.root, abs) || basename(abs)
  if (lstatIfAny(abs) === undefined) throw ruleBroken('path-missing', `${shown} does not exist`, options)
  checkResolvesInside(abs, options.root, options, shown)
  let fd: number
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw ruleBroken('path-unreadable', `cannot read ${shown}: ${errnoCode(error) ?? String(error)}`, options)
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) throw ruleBroken('path-not-file', `${shown} is not a regular file`, options)
    if (info.size > options.maxBytes) {
      throw ruleBroken('file-too-large', `${shown} is ${info.size} bytes; the limit is ${options.maxBytes}`, options)
    }
    const decoded = decodeAgentText(readOpenFile(fd, info.size))
    if ('fault' in decoded) throw ruleBroken(decoded.fault.code, `${shown} ${decoded.fault.why}`, options)
    return decoded.text
  } finally {
    closeSync(fd)
  }
}

/** What exists at `path` without following a link: 'missing', 'dir', 'file', 'link' or 'other'. */
export const entryKind = (path: string): 'missing' | 'dir' | 'file' | 'link' | 'other' => {
  const stat = lstatIfAny(path)
  if (!stat) return 'missing'
  if (stat.isSymbolicLink()) return 'link'
  if (stat.isDirectory()) return 'dir'
  return stat.isFile() ? 'file' : 'other'
}

/** `entryKind`, but a link inside the root counts as what it points to. */
export const followedKind = (path: string): 'missing' | 'dir' | 'file' | 'other' => {
  const kind = entryKind(path)
  if (kind !== 'link') return kind
  const real = safeRealpath(path)
  return real === undefined ? 'missing' : followedKind(real)
}

/** A file as a message shows it: relative to the plugin root when inside it; a label (`marketplace entry "x"`) as it is. */
export const shownFile = (root: string, file: string): string => {
  if (!isAbsolute(file)) return file
  return isInside(root, file) ? relative(root, file) || '.' : file
}

export const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value)
