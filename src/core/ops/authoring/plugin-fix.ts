/**
 * `plugin validate --fix`: the repairs that need no judgement. A byte-order mark is dropped; in
 * the path fields a format names (Claude's and Codex's) `.` becomes `./` and a path without `./`
 * gets one; a trailing `/` on a
 * path that names a file goes; a plugin name (or a skill's frontmatter name) that is right but for
 * its case is lowercased. Each file is edited in place, value by value, so the author's layout and
 * key order stay; every change is returned to be shown.
 */
import {lstatSync} from 'node:fs'
import {basename, join} from 'node:path'
import {writeFileAtomic} from '../../kernel/fs/write.js'
import {formatOf, MANIFEST_FILES, type ClaimedFile, type FormatChecks} from '../../kernel/plugin/manifest-formats/index.js'
import {checkPluginName} from '../../kernel/text/names.js'
import {isRecord, type Json} from '../../kernel/plugin/components.js'
import {MAX_MANIFEST_BYTES} from '../../kernel/plugin/manifest-fields.js'
import {checkManifestPath, entryKind, followedKind, readContainedText} from '../../kernel/plugin/paths.js'
import {jsonPathJoin} from '../../kernel/json/path.js'
import {splitFrontmatter} from '../../kernel/text/frontmatter.js'
import {checkSkillName} from '../../kernel/skills/name.js'
import {SKILL_FILE} from '../../kernel/skills/read.js'
import {BOM, hasBom} from '../../kernel/plugin/plugin-json.js'
import {jsonLayout} from '../../kernel/json/scan.js'

export interface PluginFix {
  /** the file changed, relative to the plugin root */
  file: string
  path?: string
  /** the rule the change satisfies: `json-bom`, `path-not-dot-slash`, `path-trailing-slash`, `name-case` */
  rule: string
  before: string
  after: string
}

const readText = (root: string, rel: string): string | undefined => {
  const file = join(root, rel)
  if (entryKind(file) !== 'file') return undefined
  try {
    return readContainedText(file, {root, file, maxBytes: MAX_MANIFEST_BYTES})
  } catch {
    return undefined
  }
}

const parse = (text: string): Json | undefined => {
  try {
    const value: unknown = JSON.parse(text.startsWith(BOM) ? text.slice(1) : text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

const isUrl = (raw: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(raw)

/** The repaired form of a manifest path, or undefined when it needs none (or more than a mechanical one). */
export const repairPath = (raw: string, root: string, requireDotSlash: boolean): {text: string; rule: string} | undefined => {
  if (
    raw === '' ||
    isUrl(raw) ||
    raw.startsWith('/') ||
    raw.startsWith('\\') ||
    raw.startsWith('~') ||
    /^[A-Za-z]:/.test(raw) ||
    raw.split(/[\\/]/).includes('..')
  )
    return undefined
  let text = raw
  let rule: string | undefined
  if (requireDotSlash && !text.startsWith('./')) {
    text = text === '.' ? './' : `./${text.replace(/^\.\\/, '')}`
    rule = 'path-not-dot-slash'
  }
  if (/[^./\\][\\/]+$/.test(text)) {
    const bare = text.replace(/[\\/]+$/, '')
    let abs: string | undefined
    try {
      abs = checkManifestPath(bare, {root, file: root, jsonPath: '', requireDotSlash: false})
    } catch {
      abs = undefined
    }
    if (abs !== undefined && followedKind(abs) === 'file') {
      text = bare
      rule ??= 'path-trailing-slash'
    }
  }
  return rule && text !== raw ? {text, rule} : undefined
}

interface ManifestEdit {
  rel: string
  text: string
  fixes: PluginFix[]
  /** string values to replace, by JSON path; applied together at the end so offsets stay right */
  values: Map<string, string>
}

const replace = (edit: ManifestEdit, path: string, value: string, rule: string, before: string): void => {
  edit.values.set(path, value)
  edit.fixes.push({file: edit.rel, path, rule, before, after: value})
}

/** Replaces just the bytes of each string value that changed: the rest of the file stays as written. */
const applyValues = (edit: ManifestEdit): void => {
  const spans = jsonLayout(edit.text).spans
  const changes = [...edit.values].flatMap(([path, value]) => {
    const span = spans.get(path)
    return span?.string ? [{start: span.start, end: span.end, value}] : []
  })
  for (const {start, end, value} of changes.sort((a, b) => b.start - a.start)) {
    edit.text = edit.text.slice(0, start) + JSON.stringify(value) + edit.text.slice(end)
  }
}

const fixPaths = (edit: ManifestEdit, holder: Json, base: string, key: string, root: string, requireDotSlash: boolean): void => {
  const value = holder[key]
  const at = jsonPathJoin(base, key)
  const items =
    typeof value === 'string'
      ? [{raw: value, path: at}]
      : Array.isArray(value)
        ? value.flatMap((raw, i) => (typeof raw === 'string' ? [{raw, path: jsonPathJoin(at, i)}] : []))
        : []
  for (const {raw, path} of items) {
    const repaired = repairPath(raw, root, requireDotSlash)
    if (repaired) replace(edit, path, repaired.text, repaired.rule, raw)
  }
}

const fixNameCase = (edit: ManifestEdit, json: Json): void => {
  if (typeof json.name !== 'string' || !checkPluginName(json.name)) return
  const lower = json.name.toLowerCase()
  if (lower !== json.name && !checkPluginName(lower)) replace(edit, 'name', lower, 'name-case', json.name)
}

/** `claimed` for a manifest, undefined for a hooks or MCP file. */
const fixManifest = (root: string, rel: string, claimed: ClaimedFile | undefined, checks: ReadonlyMap<string, FormatChecks>, fixes: PluginFix[]): void => {
  const original = readText(root, rel)
  if (original === undefined) return
  // a shared file (a package.json without `contributes`) that no format marks is npm's, not loadout's to touch
  const format = claimed && formatOf(claimed, parse(original))
  if (claimed && !format) return
  const edit: ManifestEdit = {rel, text: original, fixes: [], values: new Map()}
  // the text was decoded without its byte-order mark: writing it back is the repair
  const bom = edit.text.startsWith(BOM) || hasBom(join(root, rel))
  if (bom) {
    edit.text = edit.text.replace(/^\uFEFF/, '')
    edit.fixes.push({file: rel, rule: 'json-bom', before: 'a byte-order mark (U+FEFF)', after: 'none'})
  }
  const json = parse(edit.text)
  if (json && format) {
    fixNameCase(edit, json)
    for (const {holder, base, key} of checks.get(format.id)?.fixablePaths?.(json) ?? []) fixPaths(edit, holder, base, key, root, true)
    applyValues(edit)
  }
  if (edit.text === original && !bom) return
  const file = join(root, rel)
  writeFileAtomic(file, edit.text, lstatSync(file).mode & 0o777)
  fixes.push(...edit.fixes)
}

/** A skill whose frontmatter `name` differs from its folder only in case gets the folder's name. */
const fixSkillNameCase = (root: string, dir: string, fixes: PluginFix[]): void => {
  const file = join(dir, SKILL_FILE)
  const rel = file.slice(root.length + 1)
  const text = readText(root, rel)
  if (text === undefined) return
  const split = splitFrontmatter(text)
  if (split.kind !== 'ok') return
  const folder = basename(dir)
  const line = /^(name:[ \t]*)(["']?)([^"'\r\n#]*?)\2([ \t]*(?:#[^\r\n]*)?)$/m.exec(split.yaml)
  if (!line) return
  const value = line[3]!
  if (value === folder || value.toLowerCase() !== folder || checkSkillName(folder)) return
  const start = text.indexOf(split.yaml) + line.index
  const replaced = `${line[1]}${line[2]}${folder}${line[2]}${line[4]}`
  const next = text.slice(0, start) + replaced + text.slice(start + line[0].length)
  writeFileAtomic(file, next, lstatSync(file).mode & 0o777)
  fixes.push({file: rel, path: 'name', rule: 'name-case', before: value, after: folder})
}

/**
 * Applies every mechanical repair under `root`. `skillDirs` lists the plugin's skill folders; it is
 * asked after the manifests are repaired, since a repaired path may name skills the broken one hid.
 */
export const fixPlugin = (root: string, checks: ReadonlyMap<string, FormatChecks>, skillDirs: () => readonly string[]): PluginFix[] => {
  const fixes: PluginFix[] = []
  for (const claimed of MANIFEST_FILES) fixManifest(root, join(...claimed.path.split('/')), claimed, checks, fixes)
  for (const file of [join('hooks', 'hooks.json'), '.mcp.json']) fixManifest(root, file, undefined, checks, fixes)
  for (const dir of new Set(skillDirs())) if (dir.startsWith(root + '/') || dir.startsWith(root + '\\')) fixSkillNameCase(root, dir, fixes)
  return fixes
}
