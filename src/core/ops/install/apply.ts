import {existsSync, mkdirSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {
  editJsonMember,
  editJsonMembers,
  getJsonMember,
  objectValue,
  removeJsonMember,
  removeJsonMembers,
  undoJsonEdit,
  type JsonEditUndo,
} from '../../kernel/agent-config/json-edit.js'
import {editTomlTable, editTomlTables, removeTomlTable, removeTomlTables, type TomlEditUndo} from '../../kernel/agent-config/toml-edit.js'
import {assertNoLinksBelow, isInside} from '../../kernel/fs/contain.js'
import {copyTree, type CopiedFile} from '../../kernel/fs/copy.js'
import {explainIoError} from '../../model/errors.js'
import {swapDirectoryIn, tmpName, writeFileAtomic} from '../../kernel/fs/write.js'
import {jsonEqual} from '../../kernel/json/equal.js'
import {mergeHookEvents, removeHookEvents} from '../../kernel/writers/hooks.js'
import {substitutePluginVars, type PluginVars} from '../../kernel/writers/substitute.js'
import {fileSha256Sync} from '../../kernel/fs/integrity.js'
import {splitFrontmatter} from '../../kernel/text/frontmatter.js'
import type {HookEvents} from '../../model/plugin.js'
import type {RecordedConfigEdit, RecordedFile} from '../../kernel/state/records.js'
import {ownedEdits, type OwnedEditsOptions} from './owned-edits.js'
import type {Operation} from './plan.js'
import type {Guard} from '../../kernel/state/transaction.js'

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

/** Creates the missing folders of `dir` below `root`, each journalled first; returns the ones it made, outermost first. */
const makeDirs = (guard: Guard, root: string, dir: string): string[] => {
  assertNoLinksBelow(root, dir)
  const made: string[] = []
  // Up to the first folder that exists, the root itself included (an agent's base may not exist yet).
  for (let d = dir; !existsSync(d) && dirname(d) !== d; d = dirname(d)) made.unshift(d)
  for (const d of made) {
    guard.creating(d, isInside(root, d) ? root : dirname(d), 'dir')
    try {
      mkdirSync(d)
    } catch (error) {
      throw explainIoError(error, d)
    }
  }
  return made
}

/** Writes the installed plugin's paths for `${CLAUDE_PLUGIN_ROOT}` and friends in a copied SKILL.md. */
const substituteSkillFile = (skillDir: string, vars: PluginVars): boolean => {
  const file = join(skillDir, 'SKILL.md')
  if (!existsSync(file)) return false
  const text = readFileSync(file, 'utf8')
  const replaced = substitutePluginVars(text, vars) as string
  if (replaced === text) return false
  writeFileAtomic(file, replaced)
  return true
}

/** Rewrites the `name:` line of a copied SKILL.md (for --prefix), leaving the rest untouched. */
const renameSkill = (skillDir: string, name: string): boolean => {
  const file = join(skillDir, 'SKILL.md')
  const text = readFileSync(file, 'utf8')
  const split = splitFrontmatter(text)
  if (split.kind !== 'ok') return false
  const yaml = /^name:.*$/m.test(split.yaml) ? split.yaml.replace(/^name:.*$/m, `name: ${name}`) : `name: ${name}\n${split.yaml}`
  writeFileAtomic(file, `---\n${yaml}---\n${split.body}`)
  return true
}

/**
 * Agent config files edited by a run of operations, kept in memory and written once each at the end
 * (`flushConfigs`): a plugin with n MCP servers edits one file n times, and writing (and syncing) the
 * whole file after each edit made an install quadratic in n.
 */
export type PendingConfigs = Map<string, {text: string; root: string; created: boolean}>

const readConfig = (file: string, pending: PendingConfigs | undefined): {text: string; created: boolean} => {
  const held = pending?.get(file)
  if (held) return {text: held.text, created: false}
  return {text: readText(file), created: !existsSync(file)}
}

const writeConfig = (guard: Guard, file: string, root: string, text: string, created: boolean, pending: PendingConfigs | undefined): string[] => {
  const held = pending?.get(file)
  if (held) {
    held.text = text
    return []
  }
  const made = makeDirs(guard, root, dirname(file))
  assertNoLinksBelow(root, file)
  guard.touch(file)
  if (pending) pending.set(file, {text, root, created})
  else writeFileAtomic(file, text, created ? 0o644 : (modeOf(file) ?? 0o644))
  return made
}

/** Writes each config file the operations edited, once (each was journalled at its first edit). */
export const flushConfigs = (pending: PendingConfigs): void => {
  for (const [file, {text, root, created}] of pending) {
    assertNoLinksBelow(root, file)
    writeFileAtomic(file, text, created ? 0o644 : (modeOf(file) ?? 0o644))
  }
  pending.clear()
}

/** Files of a copied tree given new bytes (a filtered plugin copy's hooks or MCP file): their hashes are of what is there now. */
const rewriteInTree = (staging: string, copied: CopiedFile[], rewrite: Record<string, string> | undefined): CopiedFile[] => {
  if (!rewrite) return copied
  for (const [path, content] of Object.entries(rewrite)) writeFileAtomic(join(staging, path), content)
  return copied.map((c) => (Object.hasOwn(rewrite, c.path) ? {...c, sha256: fileSha256Sync(join(staging, c.path))} : c))
}

/** Applies one operation, journalling each path through `guard` before it is made or changed. */
export const applyOperation = (op: Operation, guard: Guard, pending?: PendingConfigs): Applied => {
  const done = empty()
  switch (op.kind) {
    case 'shared':
      // written by another agent's operation: the caller records its entries for this agent too
      return done
    case 'copy-dir': {
      done.dirs.push(...makeDirs(guard, op.root, dirname(op.dest)))
      assertNoLinksBelow(op.root, op.dest)
      const staging = tmpName(op.dest, 'stage')
      guard.creating(staging, op.root, 'tree')
      let copied: CopiedFile[]
      try {
        mkdirSync(staging, {mode: 0o755})
        copied = copyTree(op.from, staging, op.from, op.leaveOut ? (path) => op.leaveOut!.includes(path) : undefined)
        copied = rewriteInTree(staging, copied, op.rewrite)
        const substituted = op.pluginVars ? substituteSkillFile(staging, op.pluginVars) : false
        const renamed = op.renameSkillTo ? renameSkill(staging, op.renameSkillTo) : false
        // SKILL.md rewritten after the copy: its recorded hash is of what is there now
        if (substituted || renamed) copied = copied.map((c) => (c.path === 'SKILL.md' ? {...c, sha256: fileSha256Sync(join(staging, 'SKILL.md'))} : c))
        guard.creating(op.dest, op.root, 'tree')
        swapDirectoryIn(staging, op.dest, false)
      } catch (error) {
        throw explainIoError(error, op.dest)
      }
      done.dirs.push(op.dest)
      done.trees!.push(op.dest)
      // the hashes of the bytes the copy wrote: the tree is not read again to record it
      done.files.push(...copied.map((c) => ({path: join(op.dest, c.path), sha256: c.mode === 0o120000 ? 'link' : c.sha256, component: op.component})))
      return done
    }
    case 'write-file': {
      done.dirs.push(...makeDirs(guard, op.root, dirname(op.dest)))
      assertNoLinksBelow(op.root, op.dest)
      if (existsSync(op.dest)) guard.touch(op.dest)
      else guard.creating(op.dest, op.root, 'file')
      writeFileAtomic(op.dest, op.content)
      done.files.push({path: op.dest, sha256: fileSha256Sync(op.dest), component: op.component})
      return done
    }
    case 'json-member': {
      const {text, created: createdFile} = readConfig(op.file, pending)
      if (op.hooks) {
        const existing = text.trim() === '' ? undefined : (getJsonMember(text, op.path, op.key, op.file) as HookEvents | undefined)
        const merge = mergeHookEvents(existing, op.hooks)
        const edit = editJsonMember(text, op.path, op.key, merge.events, op.file)
        done.dirs.push(...writeConfig(guard, op.file, op.root, edit.text, createdFile, pending))
        done.config.push({
          component: op.component,
          file: op.file,
          format: 'json',
          path: op.path,
          key: op.key,
          value: merge.events,
          addedHooks: op.hooks,
          createdEvents: merge.createdEvents,
          undo: edit.undo,
          createdFile,
        })
        return done
      }
      const edit = editJsonMember(text, op.path, op.key, op.value, op.file)
      done.dirs.push(...writeConfig(guard, op.file, op.root, edit.text, createdFile, pending))
      done.config.push({component: op.component, file: op.file, format: 'json', path: op.path, key: op.key, value: op.value, undo: edit.undo, createdFile})
      return done
    }
    case 'toml-table': {
      const {text, created: createdFile} = readConfig(op.file, pending)
      const edit = editTomlTable(text, op.table, op.entries, op.file)
      done.dirs.push(...writeConfig(guard, op.file, op.root, edit.text, createdFile, pending))
      done.config.push({component: op.component, file: op.file, format: 'toml', path: op.table, key: '', value: op.entries, undo: edit.undo, createdFile})
      return done
    }
    default: {
      const never: never = op
      return never
    }
  }
}

type MemberOp = Extract<Operation, {kind: 'json-member'}>
type TableOp = Extract<Operation, {kind: 'toml-table'}>

/** Whether `op` sets a plain member (not hooks) of the same object, or a table, of the same file as `first`. */
const sameObject = (first: Operation, op: Operation): boolean => {
  if (first.kind === 'toml-table') return op.kind === 'toml-table' && op.file === first.file
  return (
    first.kind === 'json-member' &&
    op.kind === 'json-member' &&
    !op.hooks &&
    !first.hooks &&
    op.file === first.file &&
    op.path.join('\0') === first.path.join('\0')
  )
}

/**
 * How many operations from `start` on set members of one object, or tables, of one file (a plugin's
 * MCP servers): `applyOperations` edits them as one, reading and checking the file once for all.
 */
export const memberRun = (ops: readonly Operation[], start: number): number => {
  const first = ops[start] as Operation
  let end = start + 1
  while (end < ops.length && sameObject(first, ops[end] as Operation)) end++
  return end - start
}

/**
 * Applies `ops` (a run `memberRun` found, or any single operation): the same records as applying
 * them one by one, in time linear in their number.
 */
export const applyOperations = (ops: readonly Operation[], guard: Guard, pending?: PendingConfigs): Applied[] => {
  const first = ops[0] as Operation
  if (ops.length === 1 || (first.kind !== 'json-member' && first.kind !== 'toml-table')) return ops.map((op) => applyOperation(op, guard, pending))
  const {text, created: createdFile} = readConfig(first.file, pending)
  const edited = (next: string): string[] => writeConfig(guard, first.file, first.root, next, createdFile, pending)
  const applied = (config: RecordedConfigEdit, n: number, dirs: string[]): Applied => ({...empty(), dirs: n === 0 ? dirs : [], config: [config]})
  if (first.kind === 'toml-table') {
    const run = ops as readonly TableOp[]
    const edit = editTomlTables(
      text,
      run.map((op) => ({tablePath: op.table, entries: op.entries})),
      first.file,
    )
    const dirs = edited(edit.text)
    return run.map((op, n) =>
      applied({component: op.component, file: op.file, format: 'toml', path: op.table, key: '', value: op.entries, undo: edit.undos[n]!, createdFile}, n, dirs),
    )
  }
  const run = ops as readonly MemberOp[]
  const edit = editJsonMembers(
    text,
    first.path,
    run.map((op) => ({key: op.key, value: op.value})),
    first.file,
  )
  const dirs = edited(edit.text)
  return run.map((op, n) =>
    applied({component: op.component, file: op.file, format: 'json', path: op.path, key: op.key, value: op.value, undo: edit.undos[n]!, createdFile}, n, dirs),
  )
}

export interface RemovalReport {
  /** files the user changed since, kept (unless forced) */
  kept: string[]
  /** config entries that were no longer as written */
  drifted: string[]
}

/** `text` with one config edit taken back: exactly when the entry is as loadout wrote it, else structurally. */
const revertConfigText = (edit: RecordedConfigEdit, text: string, report: RemovalReport): string => {
  if (edit.format === 'toml') return removeTomlTable(text, edit.path, edit.file, edit.undo as TomlEditUndo)
  if (edit.addedHooks) {
    const current = getJsonMember(text, edit.path, edit.key, edit.file) as HookEvents | undefined
    if (jsonEqual(current, edit.value)) return undoJsonEdit(text, edit.undo as JsonEditUndo, edit.file)
    const removal = removeHookEvents(current, edit.addedHooks, edit.createdEvents)
    if (removal.missing.length > 0) report.drifted.push(`${edit.file} ${edit.key}`)
    const undo = edit.undo as JsonEditUndo
    // the key was loadout's and nothing is left in it: it goes, rather than staying as `{}`
    const emptied = Object.values(removal.events).every((groups) => Array.isArray(groups) && groups.length === 0)
    return emptied && undo.previous === undefined
      ? removeJsonMember(text, edit.path, edit.key, edit.file, undo)
      : editJsonMember(text, edit.path, edit.key, removal.events, edit.file).text
  }
  return revertMembers([edit], text, report)
}

/** `text` without the plain members `run` set in one object (a plugin's MCP servers), reading it once for all of them. */
const revertMembers = (run: readonly RecordedConfigEdit[], text: string, report: RemovalReport): string => {
  const first = run[0] as RecordedConfigEdit
  const current = objectValue(text, first.path, first.file)
  for (const edit of run) {
    const value = current && Object.hasOwn(current, edit.key) ? current[edit.key] : undefined
    if (value !== undefined && !jsonEqual(value, edit.value)) report.drifted.push(`${edit.file} ${[...edit.path, edit.key].join('.')}`)
  }
  const removals = run.map((edit) => ({key: edit.key, undo: edit.undo as JsonEditUndo}))
  return removeJsonMembers(text, first.path, removals, first.file)
}

const plainMember = (edit: RecordedConfigEdit): boolean => !edit.addedHooks

/** Whether `edit` takes back a plain member of the same object, or a table, of the same file as `first`. */
const sameRun = (first: RecordedConfigEdit, edit: RecordedConfigEdit): boolean =>
  plainMember(edit) && edit.file === first.file && edit.format === first.format && (first.format === 'toml' || edit.path.join('\0') === first.path.join('\0'))

/**
 * Takes back config edits, in the order given: each file is read once and written once (a plugin's
 * 256 MCP servers are one read, one check and one write of the agent's config, not 256 of each);
 * a file loadout created goes when nothing is left in it.
 */
export const revertConfigEdits = (edits: readonly RecordedConfigEdit[], report: RemovalReport, guard: Guard): void => {
  const files = new Map<string, {before: string; text: string; created: boolean}>()
  for (let start = 0; start < edits.length;) {
    const edit = edits[start] as RecordedConfigEdit
    let end = start + 1
    if (plainMember(edit)) while (end < edits.length && sameRun(edit, edits[end]!)) end++
    const run = edits.slice(start, end)
    start = end
    if (!files.has(edit.file) && !existsSync(edit.file)) continue
    let held = files.get(edit.file)
    if (!held) {
      const text = readFileSync(edit.file, 'utf8')
      files.set(edit.file, (held = {before: text, text, created: false}))
    }
    if (run.length === 1) held.text = revertConfigText(edit, held.text, report)
    else if (edit.format === 'toml')
      held.text = removeTomlTables(
        held.text,
        run.map((e) => ({tablePath: e.path, undo: e.undo as TomlEditUndo})),
        edit.file,
      )
    else held.text = revertMembers(run, held.text, report)
    held.created ||= run.some((e) => e.createdFile)
  }
  for (const [file, {before, text, created}] of files) {
    if (text === before) continue
    guard.touch(file)
    if (created && isEmptyDocument(text)) guard.remove(file)
    else writeFileAtomic(file, text, modeOf(file) ?? 0o644)
  }
}

/** What a config file loadout created holds once its last entry is gone: nothing, or an empty object. */
const isEmptyDocument = (text: string): boolean => /^\s*(\{\s*\})?\s*$/.test(text)

/** Files below `tree` that no record lists (the user put them there): the tree then stays. */
const unrecordedBelow = (tree: string, recorded: ReadonlySet<string>): boolean => {
  const walk = (dir: string): boolean => {
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      return false
    }
    return entries.some((e) => (e.isDirectory() ? walk(join(dir, e.name)) : !recorded.has(join(dir, e.name))))
  }
  return walk(tree)
}

/**
 * Removes what an install wrote, through `guard` so a rollback can put it back: config entries first,
 * then files (one the user changed since is kept unless `force`); the folders loadout created go at
 * commit, if empty. A tree loadout wrote whole goes in one step when nothing in it is the user's.
 * `keep` holds paths another install still records (two agents sharing a folder), which stay.
 */
export const removeApplied = (
  applied: Applied,
  options: {force: boolean; keep?: ReadonlySet<string>; owned: OwnedEditsOptions},
  guard: Guard,
): RemovalReport => {
  const report: RemovalReport = {kept: [], drifted: []}
  revertConfigEdits([...ownedEdits(applied.config, options.owned)].reverse(), report, guard)
  const keep = options.keep ?? new Set<string>()
  const changed = (file: RecordedFile) => existsSync(file.path) && file.sha256 !== 'link' && fileSha256Sync(file.path) !== file.sha256
  const recorded = new Set(applied.files.map((f) => f.path))
  const gone = new Set<string>()
  for (const tree of applied.trees ?? []) {
    if (keep.has(tree) || !existsSync(tree)) continue
    const inside = applied.files.filter((f) => f.path.startsWith(tree + '/'))
    if (inside.some((f) => keep.has(f.path)) || unrecordedBelow(tree, recorded)) continue
    if (!options.force && inside.some(changed)) continue
    guard.remove(tree)
    for (const f of inside) gone.add(f.path)
  }
  for (const file of applied.files) {
    if (gone.has(file.path) || keep.has(file.path) || !existsSync(file.path)) continue
    if (changed(file) && !options.force) {
      report.kept.push(file.path)
      continue
    }
    guard.remove(file.path)
  }
  // Folders go only when empty: a file someone added inside one is never removed with it.
  for (const tree of applied.trees ?? []) if (!keep.has(tree) && existsSync(tree)) guard.pruneLater(tree, 'tree')
  for (const dir of applied.dirs) if (!keep.has(dir)) guard.pruneLater(dir, 'dir')
  return report
}
