import {closeSync, fstatSync, lstatSync, openSync, readdirSync} from 'node:fs'
import {join, relative, sep} from 'node:path'
import {validationFailed} from '../../model/errors.js'
import {rememberRead, readOnceBytes} from '../fs/read-once.js'
import {readOpenFile} from '../fs/read.js'
import {MANIFEST_FILES} from './manifest-formats/index.js'
import type {PluginModel} from '../../model/plugin.js'
import {findHiddenText, type HiddenChar} from '../text/hidden-text.js'

export interface HiddenTextFinding extends HiddenChar {
  file: string
}

/** Agents read text files far smaller than this; a larger one is read only this far. */
const MAX_SCAN_BYTES = 8 * 1024 * 1024
const MAX_DEPTH = 12

const readHead = (path: string): string | undefined => {
  const known = readOnceBytes(path)
  if (known) return known.bytes.subarray(0, MAX_SCAN_BYTES).toString('utf8')
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) return undefined
    const bytes = readOpenFile(fd, Math.min(stat.size, MAX_SCAN_BYTES))
    if (bytes.length === stat.size) rememberRead(path, bytes, stat)
    return bytes.toString('utf8')
  } finally {
    closeSync(fd)
  }
}

export const scanFile = (file: string): HiddenTextFinding[] => {
  const text = readHead(file)
  return text === undefined ? [] : findHiddenText(text).map((f) => ({file, ...f}))
}

/** Files below `dir` whose names pass `keep`, without following links. */
export const filesBelow = (dir: string, keep: (name: string) => boolean, depth = 0): string[] => {
  if (depth > MAX_DEPTH) return []
  let entries
  try {
    entries = readdirSync(dir, {withFileTypes: true})
  } catch {
    return []
  }
  return entries.flatMap((e) => {
    const full = join(dir, e.name)
    if (e.isDirectory()) return filesBelow(full, keep, depth + 1)
    return e.isFile() && keep(e.name) ? [full] : []
  })
}

export const isMarkdown = (name: string): boolean => /\.(?:md|mdc|markdown)$/i.test(name)

const exists = (path: string): boolean => {
  try {
    return lstatSync(path).isFile()
  } catch {
    return false
  }
}

/** The files of a plugin that agents read as instructions: every Markdown file of each skill, subagents, commands, manifests. */
export const agentReadFiles = (model: PluginModel): string[] => {
  const manifests = MANIFEST_FILES.filter((f) => !f.shared)
    .map((f) => join(model.root, f.path))
    .filter(exists)
  return [
    ...new Set([
      ...model.skills.flatMap((s) => filesBelow(s.dir, isMarkdown)),
      ...model.subagents.map((s) => s.file),
      ...model.commands.map((c) => c.file),
      ...manifests,
      ...(model.cstAgentManifest ? [model.cstAgentManifest] : []),
    ]),
  ]
}

export const formatFinding = (f: HiddenTextFinding): string => `${f.file}:${f.line}:${f.column} ${f.codePoint} ${f.name}`

/** Refuses a plugin whose agent-read text hides characters (`--allow-hidden-text` skips this). */
export const refuseHiddenText = (model: PluginModel, id: string): void => {
  const findings = agentReadFiles(model)
    .flatMap(scanFile)
    .map((f) => ({...f, file: relative(model.root, f.file).split(sep).join('/')}))
  if (findings.length === 0) return
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
