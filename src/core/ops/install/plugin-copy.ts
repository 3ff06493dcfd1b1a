/**
 * The installed copy of a plugin: the folder `${CLAUDE_PLUGIN_ROOT}` points at, which hooks and MCP
 * servers execute. Its file list (path, mode, content hash) is kept beside it, so that `verify` can
 * name the file that changed; the list is trusted only when it hashes to the integrity in the
 * install record (state.json), which the list itself cannot change.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {EXIT, LoadoutError} from '../../model/errors.js'
import {copyTree} from '../../kernel/fs/copy.js'
import {removeEntry} from '../../kernel/fs/exists.js'
import {readOnceTreeMoved} from '../../kernel/fs/read-once.js'
import {readJsonFile, stableStringify} from '../../kernel/fs/json.js'
import {writeFileAtomic} from '../../kernel/fs/write.js'
import type {Guard} from '../../kernel/state/transaction.js'
import {integrityOf, MODE_EXECUTABLE, MODE_FILE, MODE_SYMLINK, sortEntries, treeEntries, type TreeEntry} from '../../kernel/fs/integrity.js'
import type {CopiedFile} from '../../kernel/fs/copy.js'

/**
 * The file list of the copy at `<data>/plugins/<market>/<name>/<revision>`: kept apart, in
 * `<data>/plugin-files/<market>/<name>/<revision>.json`, so the plugins folder holds only copies.
 */
export const listFile = (root: string): string => {
  const name = dirname(root)
  const market = dirname(name)
  const data = dirname(dirname(market))
  return join(data, 'plugin-files', basename(market), basename(name), `${basename(root)}.json`)
}

export interface PluginFiles {
  /** integrity of the plugin tree (see treeIntegrity) */
  integrity: string
  entries: TreeEntry[]
}

/** A copy's file list as kept: its files, and what they were copied from when that names them (FetchedPlugin's `origin`). */
type KeptList = PluginFiles & {origin?: string}

/** The files of a plugin folder, as consent shows them and the copy must match. */
export const pluginFiles = async (root: string): Promise<PluginFiles> => {
  const entries = await treeEntries(root)
  return {integrity: integrityOf(entries), entries}
}

/**
 * The files of the copy at `root` when it was made from `origin` and they are still exactly those its
 * file list says it was made with: a copy is only ever made of files that were hashed and shown, so an
 * install of the same files can read it instead of the cached tree it came from (one tree hashed
 * instead of two; under the lock the copy is checked again, from the bytes this run read while they are
 * still the same files: kernel/fs/read-once.ts). The copy's folder is named by the commit alone, which
 * does not say which folder of the repository it holds: hence the origin. No list, another origin, a
 * changed file, a copy being replaced: undefined.
 */
export const intactCopy = async (root: string, origin: string): Promise<PluginFiles | undefined> => {
  let list: KeptList | undefined
  try {
    list = readJsonFile<KeptList | undefined>(listFile(root), undefined)
  } catch {
    return undefined
  }
  if (typeof list?.integrity !== 'string' || list.origin !== origin) return undefined
  try {
    const files = await pluginFiles(root)
    return files.integrity === list.integrity ? files : undefined
  } catch {
    return undefined
  }
}

const writeList = (root: string, files: PluginFiles, origin: string | undefined): void => {
  const file = listFile(root)
  const text = stableStringify(origin === undefined ? files : ({...files, origin} satisfies KeptList))
  // a reinstall of the same revision finds the list it wrote before: written again only when it differs
  if (readTextIfAny(file) === text) return
  mkdirSync(dirname(file), {recursive: true})
  writeFileAtomic(file, text)
}

const readTextIfAny = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** The tree entries of a copy as it was written, in the order `integrityOf` wants (UTF-8 bytes of the paths). */
export const entriesOf = (copied: readonly CopiedFile[]): TreeEntry[] =>
  sortEntries(
    copied.map((c): TreeEntry => ({hash: c.sha256, mode: c.mode === 0o120000 ? MODE_SYMLINK : c.mode & 0o100 ? MODE_EXECUTABLE : MODE_FILE, path: c.path})),
  )

const integrityAt = async (root: string): Promise<string | undefined> => {
  try {
    return integrityOf(await treeEntries(root))
  } catch {
    return undefined
  }
}

/**
 * Journals what a copy into `to` will create (the outermost missing folder of the copy and of its
 * file list), so that a rolled-back install leaves no installed copy behind.
 */
export const journalCopy = (guard: Guard, to: string): void => {
  for (const path of [to, listFile(to)]) {
    let top: string | undefined
    for (let d = path; !existsSync(d) && dirname(d) !== d; d = dirname(d)) top = d
    if (top) guard.creating(top, dirname(top), top === path && path !== to ? 'file' : 'tree')
  }
}

/**
 * Makes `to` a copy of `from` whose files are exactly `expected`. A copy already there is kept only
 * when it still hashes to that (someone may have edited it); otherwise it is replaced. A source that
 * changed since it was hashed (and shown for consent) is refused: what runs is what was approved.
 */
export const materializeCopy = async (from: string, to: string, expected: PluginFiles, origin: string | undefined): Promise<void> => {
  // called under the lock: a staging or set-aside copy beside `to` is a killed run's, and goes
  const parent = dirname(to)
  if (existsSync(parent)) {
    for (const name of readdirSync(parent)) {
      if (name.startsWith(`${basename(to)}.stage-`) || name.startsWith(`${basename(to)}.old-`)) rmSync(join(parent, name), {recursive: true, force: true})
    }
  }
  if (existsSync(to) && (await integrityAt(to)) === expected.integrity) {
    writeList(to, expected, origin)
    return
  }
  const staging = `${to}.stage-${process.pid}`
  removeEntry(staging)
  try {
    // the bytes written are the bytes hashed: the copy's integrity needs no second read of it
    const copied = integrityOf(entriesOf(copyTree(from, staging)))
    if (copied !== expected.integrity) {
      throw new LoadoutError(
        'plugin-changed',
        EXIT.integrity,
        `${from} changed after it was read and shown (its files no longer hash to ${expected.integrity}); nothing was installed`,
        {
          suggestions: ['run the install again'],
        },
      )
    }
    const aside = `${to}.old-${process.pid}`
    if (existsSync(to)) renameSync(to, aside)
    renameSync(staging, to)
    readOnceTreeMoved(staging, to)
    rmSync(aside, {recursive: true, force: true})
    writeList(to, expected, origin)
  } finally {
    removeEntry(staging)
  }
}

export interface CopyCheck {
  missing: string[]
  changed: string[]
  added: string[]
}

/**
 * Re-hashes an installed copy against the integrity recorded at install. Each differing file is
 * named when the kept file list is the one recorded; otherwise the copy as a whole is reported.
 */
export const checkCopy = async (root: string, recorded: string): Promise<CopyCheck> => {
  const result: CopyCheck = {missing: [], changed: [], added: []}
  if (!existsSync(root)) return {...result, missing: [root]}
  let entries: TreeEntry[]
  try {
    entries = await treeEntries(root)
  } catch (error) {
    return {...result, changed: [`${root} (${(error as Error).message})`]}
  }
  if (integrityOf(entries) === recorded) return result
  let list: PluginFiles | undefined
  try {
    list = readJsonFile<PluginFiles | undefined>(listFile(root), undefined)
  } catch {
    list = undefined
  }
  if (!list || !Array.isArray(list.entries) || integrityOf(list.entries) !== recorded)
    return {...result, changed: [`${root} (its files no longer hash to ${recorded})`]}
  const now = new Map(entries.map((e) => [e.path, e]))
  const then = new Map(list.entries.map((e) => [e.path, e]))
  for (const [path, old] of then) {
    const current = now.get(path)
    if (!current) result.missing.push(`${root}/${path}`)
    else if (current.hash !== old.hash || current.mode !== old.mode) result.changed.push(`${root}/${path}`)
  }
  for (const path of now.keys()) if (!then.has(path)) result.added.push(`${root}/${path}`)
  return result
}
