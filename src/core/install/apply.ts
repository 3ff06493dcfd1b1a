import {existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, unlinkSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {editJsonMember, getJsonMember, removeJsonMember, undoJsonEdit, type JsonEditUndo} from '../config/json-edit.js'
import {editTomlTable, removeTomlTable, type TomlEditUndo} from '../config/toml-edit.js'
import {assertNoLinksBelow} from '../fs/contain.js'
import {copyTree} from '../fs/copy.js'
import {readJsonFile, writeJsonFile} from '../fs/json.js'
import {stagingDirFor, swapDirectoryIn, writeFileAtomic} from '../fs/write.js'
import {jsonEqual, mergeHookEvents, removeHookEvents} from '../formats/hooks.js'
import {substitutePluginVars, type PluginVars} from '../formats/substitute.js'
import {fileSha256Sync} from './hash.js'
import {splitFrontmatter} from '../skills/frontmatter.js'
import type {HookEvents} from '../plugin/types.js'
import type {RecordedConfigEdit, RecordedFile} from '../state/records.js'
import type {Operation} from './plan.js'

/** What applying one operation left behind: enough to record it and to take it back. */
export interface Applied {
  files: RecordedFile[]
  dirs: string[]
  /** folders loadout wrote whole (a skill, a cst-agent plugin): anything else in them was added */
  trees?: string[]
  config: RecordedConfigEdit[]
}

const empty = (): Applied => ({files: [], dirs: [], trees: [], config: []})

const modeOf = (file: string): number | undefined => {
  try {
    return statSync(file).mode & 0o777
  } catch {
    return undefined
  }
}

const readText = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')

/** Creates the missing folders of `dir` below `root`; returns the ones it made, outermost first. */
const makeDirs = (root: string, dir: string): string[] => {
  assertNoLinksBelow(root, dir)
  const made: string[] = []
  // Up to the first folder that exists, the root itself included (an agent's base may not exist yet).
  for (let d = dir; !existsSync(d) && dirname(d) !== d; d = dirname(d)) made.unshift(d)
  mkdirSync(dir, {recursive: true})
  return made
}

const listFiles = (dir: string, component: string): RecordedFile[] => {
  const files: RecordedFile[] = []
  const walk = (d: string) => {
    for (const entry of readdirSync(d, {withFileTypes: true})) {
      const full = join(d, entry.name)
      if (entry.isDirectory()) walk(full)
      else files.push({path: full, sha256: entry.isSymbolicLink() ? 'link' : fileSha256Sync(full), component})
    }
  }
  walk(dir)
  return files
}

/** Writes the installed plugin's paths for `${CLAUDE_PLUGIN_ROOT}` and friends in a copied SKILL.md. */
const substituteSkillFile = (skillDir: string, vars: PluginVars) => {
  const file = join(skillDir, 'SKILL.md')
  if (!existsSync(file)) return
  const text = readFileSync(file, 'utf8')
  const replaced = substitutePluginVars(text, vars) as string
  if (replaced !== text) writeFileAtomic(file, replaced)
}

/** Rewrites the `name:` line of a copied SKILL.md (for --prefix), leaving the rest untouched. */
const renameSkill = (skillDir: string, name: string) => {
  const file = join(skillDir, 'SKILL.md')
  const text = readFileSync(file, 'utf8')
  const split = splitFrontmatter(text)
  if (split.kind !== 'ok') return
  const yaml = /^name:.*$/m.test(split.yaml) ? split.yaml.replace(/^name:.*$/m, `name: ${name}`) : `name: ${name}\n${split.yaml}`
  writeFileAtomic(file, `---\n${yaml}---\n${split.body}`)
}

const writeConfig = (file: string, root: string, text: string, created: boolean): string[] => {
  const made = makeDirs(root, dirname(file))
  assertNoLinksBelow(root, file)
  writeFileAtomic(file, text, created ? 0o644 : (modeOf(file) ?? 0o644))
  return made
}

/** Applies one operation. The caller journals `op` first, so a crash can be undone. */
export const applyOperation = (op: Operation): Applied => {
  const done = empty()
  switch (op.kind) {
    case 'copy-dir': {
      done.dirs.push(...makeDirs(op.root, dirname(op.dest)))
      assertNoLinksBelow(op.root, op.dest)
      const staging = stagingDirFor(op.dest)
      try {
        copyTree(op.from, staging)
        if (op.pluginVars) substituteSkillFile(staging, op.pluginVars)
        if (op.renameSkillTo) renameSkill(staging, op.renameSkillTo)
        swapDirectoryIn(staging, op.dest, false)
      } catch (error) {
        rmSync(staging, {recursive: true, force: true})
        throw error
      }
      done.dirs.push(op.dest)
      done.trees!.push(op.dest)
      done.files.push(...listFiles(op.dest, op.component))
      return done
    }
    case 'write-file': {
      done.dirs.push(...makeDirs(op.root, dirname(op.dest)))
      assertNoLinksBelow(op.root, op.dest)
      writeFileAtomic(op.dest, op.content)
      done.files.push({path: op.dest, sha256: fileSha256Sync(op.dest), component: op.component})
      return done
    }
    case 'json-member': {
      const createdFile = !existsSync(op.file)
      const text = readText(op.file)
      if (op.hooks) {
        const existing = text.trim() === '' ? undefined : (getJsonMember(text, op.path, op.key, op.file) as HookEvents | undefined)
        const merge = mergeHookEvents(existing, op.hooks)
        const edit = editJsonMember(text, op.path, op.key, merge.events, op.file)
        done.dirs.push(...writeConfig(op.file, op.root, edit.text, createdFile))
        done.config.push({component: op.component, file: op.file, format: 'json', path: op.path, key: op.key, value: merge.events, addedHooks: op.hooks, createdEvents: merge.createdEvents, undo: edit.undo, createdFile})
        return done
      }
      const edit = editJsonMember(text, op.path, op.key, op.value, op.file)
      done.dirs.push(...writeConfig(op.file, op.root, edit.text, createdFile))
      done.config.push({component: op.component, file: op.file, format: 'json', path: op.path, key: op.key, value: op.value, undo: edit.undo, createdFile})
      return done
    }
    case 'toml-table': {
      const createdFile = !existsSync(op.file)
      const edit = editTomlTable(readText(op.file), op.table, op.entries, op.file)
      done.dirs.push(...writeConfig(op.file, op.root, edit.text, createdFile))
      done.config.push({component: op.component, file: op.file, format: 'toml', path: op.table, key: '', value: op.entries, undo: edit.undo, createdFile})
      return done
    }
    default: {
      const never: never = op
      return never
    }
  }
}

export interface RemovalReport {
  /** files the user changed since, kept (unless forced) */
  kept: string[]
  /** config entries that were no longer as written */
  drifted: string[]
}

const removeEmptyDirs = (dirs: readonly string[]) => {
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(dir)
    } catch {
      // not empty (the user put something there) or already gone
    }
  }
}

/** Takes back one config edit: exactly when the entry is as loadout wrote it, else structurally. */
export const revertConfigEdit = (edit: RecordedConfigEdit, report: RemovalReport): void => {
  if (!existsSync(edit.file)) return
  const text = readFileSync(edit.file, 'utf8')
  let next: string
  if (edit.format === 'toml') {
    next = removeTomlTable(text, edit.path, edit.file, edit.undo as TomlEditUndo)
  } else if (edit.addedHooks) {
    const current = getJsonMember(text, edit.path, edit.key, edit.file) as HookEvents | undefined
    if (jsonEqual(current, edit.value)) next = undoJsonEdit(text, edit.undo as JsonEditUndo, edit.file)
    else {
      const removal = removeHookEvents(current, edit.addedHooks, edit.createdEvents)
      if (removal.missing.length > 0) report.drifted.push(`${edit.file} ${edit.key}`)
      next = editJsonMember(text, edit.path, edit.key, removal.events, edit.file).text
    }
  } else {
    const current = getJsonMember(text, edit.path, edit.key, edit.file)
    if (current !== undefined && !jsonEqual(current, edit.value)) report.drifted.push(`${edit.file} ${[...edit.path, edit.key].join('.')}`)
    next = removeJsonMember(text, edit.path, edit.key, edit.file, edit.undo as JsonEditUndo)
  }
  if (edit.createdFile && next.trim() === '') unlinkSync(edit.file)
  else if (next !== text) writeFileAtomic(edit.file, next, modeOf(edit.file) ?? 0o644)
}

/**
 * Removes what an install wrote: config entries first, then files (one the user changed since is
 * kept unless `force`), then the folders loadout created, if empty. `keep` holds paths another
 * install still records (two agents sharing a folder), which stay.
 */
export const removeApplied = (applied: Applied, options: {force: boolean; keep?: ReadonlySet<string>}): RemovalReport => {
  const report: RemovalReport = {kept: [], drifted: []}
  for (const edit of [...applied.config].reverse()) revertConfigEdit(edit, report)
  const keep = options.keep ?? new Set<string>()
  for (const file of applied.files) {
    if (keep.has(file.path) || !existsSync(file.path)) continue
    const changed = file.sha256 !== 'link' && fileSha256Sync(file.path) !== file.sha256
    if (changed && !options.force) {
      report.kept.push(file.path)
      continue
    }
    rmSync(file.path, {force: true})
  }
  // Folders go only when empty: a file someone added inside one is never removed with it.
  const dirs = applied.dirs.filter((d) => !keep.has(d))
  for (const tree of applied.trees ?? []) if (!keep.has(tree)) pruneEmptyFolders(tree)
  removeEmptyDirs(dirs)
  return report
}

/** Removes the empty folders inside a tree loadout wrote (bottom-up), then the tree if it is empty. */
const pruneEmptyFolders = (dir: string): void => {
  let entries
  try {
    entries = readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }
  for (const entry of entries) if (entry.isDirectory()) pruneEmptyFolders(join(dir, entry.name))
  try {
    rmdirSync(dir)
  } catch {
    // something is still in it
  }
}

// ---------------------------------------------------------------------------------------------
// The journal: what a run is doing, so that a run killed half way can be undone by the next one.

export interface Journal {
  plugin: string
  scope: string
  targets: string[]
  /** operations started, in order, with what they left once done */
  steps: Array<{op: Operation; applied?: Applied}>
}

export const readJournal = (file: string): Journal | undefined => readJsonFile<Journal | undefined>(file, undefined)

export const writeJournal = (file: string, journal: Journal): void => writeJsonFile(file, journal)

/** Undoes every journalled step, newest first; a step whose result was never recorded is undone by its destination. */
export const rollBack = (journal: Journal): void => {
  for (const step of [...journal.steps].reverse()) {
    if (step.applied) {
      removeApplied(step.applied, {force: true})
      continue
    }
    const op = step.op
    if (op.kind === 'copy-dir' || op.kind === 'write-file') {
      // The rename into place is the last step of a write: a present destination is ours only when
      // nothing was there before, which the plan checked.
      if (existsSync(op.dest)) rmSync(op.dest, {recursive: true, force: true})
    }
  }
}
