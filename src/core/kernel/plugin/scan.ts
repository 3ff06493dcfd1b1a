import {closeSync, fstatSync, lstatSync, openSync} from 'node:fs'
import {join, normalize, sep} from 'node:path'
import {validationFailed} from '../../model/errors.js'
import {entryPath} from '../fs/entry-path.js'
import {listFolder, relativeBelow} from '../fs/contain.js'
import {rememberRead, readOnceBytes} from '../fs/read-once.js'
import {readOpenFile} from '../fs/read.js'
import {MANIFEST_FILES} from './manifest-formats/index.js'
import type {PluginModel} from '../../model/plugin.js'
import {findHiddenText, type HiddenChar} from '../text/hidden-text.js'

export interface HiddenTextFinding extends HiddenChar {
  file: string
  /** the file is larger than loadout scans (MAX_SCAN_BYTES): it was not read, and counts as a finding */
  tooLarge?: true
}

/**
 * Agents read text files far smaller than this. A larger file is not scanned in part (text past the
 * cut would go unseen): it is a finding of its own, which refuses the install like hidden text.
 */
export const MAX_SCAN_BYTES = 64 * 1024 * 1024
/** A file whose first bytes hold a NUL is binary: no agent reads it as text. */
const SNIFF_BYTES = 8192

type Read = {text: string} | {tooLarge: true} | {binary: true} | undefined

const decode = (bytes: Buffer, textOnly: boolean): Read =>
  textOnly && bytes.subarray(0, SNIFF_BYTES).includes(0) ? {binary: true} : {text: bytes.toString('utf8')}

const readWhole = (path: string, textOnly: boolean): Read => {
  const known = readOnceBytes(path)
  if (known) return known.bytes.length > MAX_SCAN_BYTES ? {tooLarge: true} : decode(known.bytes, textOnly)
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return undefined
    if (stat.size > MAX_SCAN_BYTES) return {tooLarge: true}
    const bytes = readOpenFile(fd, stat.size)
    if (bytes.length === stat.size) rememberRead(path, bytes, stat)
    return decode(bytes, textOnly)
  } finally {
    closeSync(fd)
  }
}

/**
 * The hidden characters of one file, read whole. `textOnly`: a file that looks binary (a NUL in its
 * first bytes) is skipped; without it (files agents read as text by their kind) every file is read.
 */
export const scanFile = (file: string, textOnly = false): HiddenTextFinding[] => {
  const read = readWhole(file, textOnly)
  if (read === undefined || 'binary' in read) return []
  if ('tooLarge' in read)
    return [{file, line: 0, column: 0, codePoint: '-', name: `LARGER THAN ${MAX_SCAN_BYTES / 1024 / 1024} MB, NOT SCANNED`, tooLarge: true}]
  return findHiddenText(read.text).map((f) => ({file, ...f}))
}

/** Every file below `dir` whose name passes `keep`, at any depth, without following links. */
export const filesBelow = (dir: string, keep: (name: string) => boolean = () => true): string[] => walkFiles(dir, keep).files

/** The files below `dir` (sorted), and every folder the walk entered (links are not entered). */
const walkFiles = (dir: string, keep: (name: string) => boolean = () => true): {files: string[]; folders: Set<string>} => {
  const found: string[] = []
  const folders = new Set<string>()
  const pending = [normalize(dir)]
  while (pending.length > 0) {
    const current = pending.pop()!
    let entries
    try {
      entries = listFolder(current)
    } catch {
      continue
    }
    folders.add(current)
    for (const e of entries) {
      const full = entryPath(current, e.name)
      if (e.isDirectory()) pending.push(full)
      else if (e.isFile() && keep(e.name)) found.push(full)
    }
  }
  return {files: found.sort(), folders}
}

/** A file's path relative to `root`, `/`-separated. */
const relativeShown = (root: string): ((file: string) => string) => {
  const base = normalize(root)
  return (file) => relativeBelow(base, file).split(sep).join('/')
}

export const isMarkdown = (name: string): boolean => /\.(?:md|mdc|markdown)$/i.test(name)

const exists = (path: string): boolean => {
  try {
    return lstatSync(path, {throwIfNoEntry: false})?.isFile() ?? false
  } catch {
    return false
  }
}

/**
 * The files of a plugin that agents read as instructions: every file of each skill (its Markdown, and
 * the scripts and references it points the agent to), subagents, commands, manifests.
 */
export const agentReadFiles = (model: PluginModel, tree?: {files: string[]; folders: Set<string>}): string[] => {
  const manifests = MANIFEST_FILES.filter((f) => !f.shared)
    .map((f) => join(model.root, f.path))
    .filter(exists)
  // a skill folder the plugin's own walk entered (no link on its way): its files are that walk's
  const skillFiles = (dir: string): string[] => {
    const start = normalize(dir)
    if (!tree?.folders.has(start)) return filesBelow(dir)
    const below = `${start}${sep}`
    return tree.files.filter((f) => f.startsWith(below))
  }
  return [
    ...new Set([
      ...model.skills.flatMap((s) => skillFiles(s.dir)),
      ...model.subagents.map((s) => s.file),
      ...model.commands.map((c) => c.file),
      ...manifests,
      ...(model.cstAgentManifest ? [model.cstAgentManifest] : []),
    ]),
  ]
}

export const formatFinding = (f: HiddenTextFinding): string => `${f.file}:${f.line}:${f.column} ${f.codePoint} ${f.name}`

/** Hidden characters in the names of files (a bidi control can make `run.sh` of `hs.nur`), relative to `root`. */
export const hiddenInNames = (files: readonly string[], root: string): HiddenTextFinding[] => {
  const shown = relativeShown(root)
  return files.flatMap((file) => findHiddenText(shown(file)).map((f) => ({...f, file, line: 0, name: `${f.name} IN THE FILE NAME`})))
}

/** Refuses a plugin whose agent-read text hides characters (`--allow-hidden-text` skips this). */
export const refuseHiddenText = (model: PluginModel, id: string): void => {
  const tree = walkFiles(model.root)
  const shown = relativeShown(model.root)
  const findings = [...hiddenInNames(tree.files, model.root), ...agentReadFiles(model, tree).flatMap((file) => scanFile(file, !isMarkdown(file)))].map((f) => ({
    ...f,
    file: shown(f.file),
  }))
  if (findings.length === 0) return
  const large = findings.filter((f) => f.tooLarge).map((f) => f.file)
  if (large.length > 0)
    throw validationFailed(
      'text-too-large-to-scan',
      `${id} has text its agents read that is larger than loadout scans for hidden characters (${MAX_SCAN_BYTES / 1024 / 1024} MB): ${large.slice(0, 5).join(', ')}`,
      {suggestions: ['no agent reads instructions that large; if you trust it, install anyway with --allow-hidden-text'], details: {files: large}},
    )
  const files = new Set(findings.map((f) => f.file)).size
  throw validationFailed(
    'hidden-text',
    `${id} hides characters from people in text its agents read (${findings.length} in ${files} file(s)): ${findings.slice(0, 5).map(formatFinding).join('; ')}`,
    {
      suggestions: [
        'look at the file with a tool that shows invisible characters (cat -A, or an editor)',
        'if you trust it, install anyway with --allow-hidden-text',
      ],
      details: {findings},
    },
  )
}
