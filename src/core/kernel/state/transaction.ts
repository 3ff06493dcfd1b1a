/**
 * The one shape every change to the agents' folders and loadout's state takes:
 *
 *   take the lock → recover what a killed run left → read state → plan → journal → apply → write
 *   state → commit (drop the journal).
 *
 * API (everything else in this file is its machinery):
 *
 *   const result = await transaction(env, projectRoot, 'install review@acme', async (tx) => {
 *     const records = tx.records()        // read now, under the lock, after recovery: plan on these
 *     tx.creating(path, root, 'tree')     // BEFORE making a path that does not exist ('file' | 'dir' | 'tree')
 *     tx.touch(file)                      // BEFORE changing or deleting an existing file (a config, a state file):
 *                                         //   keeps its bytes (a hard link when it can) to put back; refuses a file
 *                                         //   without a write bit
 *     tx.remove(path)                     // removes a file or folder so that a rollback can put it back
 *     tx.pruneLater(dir, 'dir' | 'tree')  // removes a folder at commit if it is (or its insides are) empty
 *     await tx.checkpoint()               // a safe point: SIGINT/SIGTERM stop the run here, rolled back
 *     tx.writeRecords(scope, records)     // the install records of one scope (touches the file first)
 *     return value
 *   })
 *
 * A throw anywhere in the body (a signal at a checkpoint included) undoes every journalled step, newest
 * first, and the error goes on. `Guard` is the part `apply.ts` needs, so code that writes can be
 * called with a transaction without knowing the rest.
 *
 * The journal (`<config>/journal.jsonl`) is appended to, one JSON line per step, each written before
 * the step it describes; a line cut short by a kill is the last one and is ignored (its step never
 * started). Kept bytes live in `<config>/journal.d/`. Recovery, always under the lock: a journal that
 * reached its `commit` line is finished (removed files and kept bytes deleted, emptied folders
 * pruned); any other is rolled back. Then loadout's temporary names (`.<name>.loadout-tmp|stage|old-*`)
 * left in the folders it touched are swept away.
 *
 *   await recoverIfFree(env)             // read-only commands: recover if the lock is free, else say what is pending
 *   await withStateLock(env, fn)         // a change of one atomic rename (a marketplace record, a skill made by
 *                                        //   hand): the lock and recovery, without a journal of its own
 *
 * The lock waits `LOADOUT_LOCK_WAIT` seconds (default 30), then fails with exit 9.
 */
import {randomBytes} from '../crypto/node-crypto.js'
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs'
import {dirname, isAbsolute, join, normalize} from 'node:path'
import {journalFile, loadoutPaths, type Environment} from '../env/environment.js'
import {explainIoError, isLoadoutError} from '../../model/errors.js'
import {isInside} from '../fs/contain.js'
import {removeEntry, surelyMissing} from '../fs/exists.js'
import {acquireLock, lockHolder, type LockOwner} from './mutex.js'
import {assertWritableFile, removeEntries, TEMP_NAME, tmpName} from '../fs/write.js'
import {hasMarketplacesLeftover, isMarketplacesLeftover, marketplacesFile, stateLockDir} from './marketplaces.js'
import type {Scope} from '../env/scope.js'
import {failpoint} from '../env/failpoint.js'
import {missingOwnFolders, noteCreatedFolders, removeOwnFoldersIfUnused} from './own-folders.js'
import {enterCritical, interruptedError, leaveCritical, pendingSignal, throwIfInterrupted} from '../env/signals.js'
import {projectLockFile, readInstallRecords, userStateFile, writeInstallRecords, type InstallRecord} from './records.js'

export interface Guard {
  creating(path: string, root: string, kind: 'file' | 'dir' | 'tree'): void
  touch(file: string): void
  remove(path: string): void
  pruneLater(dir: string, kind: 'dir' | 'tree'): void
}

export interface Transaction extends Guard {
  readonly env: Environment
  readonly projectRoot: string
  /** what recovery found and did before this transaction began, if anything */
  readonly recovered?: Recovery
  records(): InstallRecord[]
  writeRecords(scope: Scope, records: InstallRecord[]): void
  checkpoint(): Promise<void>
}

export interface Recovery {
  /** what the killed run was doing */
  label: string
  action: 'rolled-back' | 'completed'
  steps: number
}

export interface PendingRun {
  label: string
  pid?: number
  /** whether a live process holds the lock (a run in progress), or it was left by a run that died */
  running: boolean
}

type Entry =
  | {t: 'begin'; id: string; label: string; pid: number}
  | {t: 'create'; path: string; root: string; kind: 'file' | 'dir' | 'tree'}
  | {t: 'backup'; file: string; copy?: string}
  | {t: 'aside'; path: string; aside: string}
  | {t: 'prune'; path: string; kind: 'dir' | 'tree'}
  | {t: 'commit'}

const keptDir = (env: Environment): string => join(loadoutPaths(env).config, 'journal.d')

// ---------------------------------------------------------------------------------------------
// Reading a journal: loadout's own file, still untrusted.

const str = (v: unknown): v is string => typeof v === 'string' && v !== ''
const cleanPath = (v: unknown): v is string => str(v) && isAbsolute(v) && normalize(v) === v && !v.includes('\0')

const validEntry = (e: Record<string, unknown>, kept: string): Entry | undefined => {
  switch (e.t) {
    case 'begin':
      return str(e.label) ? {t: 'begin', id: String(e.id), label: e.label, pid: Number(e.pid)} : undefined
    case 'create':
      if (!cleanPath(e.path) || !cleanPath(e.root) || dirname(e.root) === e.root || !isInside(e.root, e.path)) return undefined
      // a whole tree or file is never an agent's root itself: only a folder made empty is removed there
      if (e.kind === 'dir') return {t: 'create', path: e.path, root: e.root, kind: 'dir'}
      return (e.kind === 'file' || e.kind === 'tree') && e.path !== e.root ? {t: 'create', path: e.path, root: e.root, kind: e.kind} : undefined
    case 'backup':
      if (!cleanPath(e.file) || (e.copy !== undefined && !(cleanPath(e.copy) && dirname(e.copy) === kept))) return undefined
      return {t: 'backup', file: e.file, ...(e.copy === undefined ? {} : {copy: e.copy as string})}
    case 'aside':
      // an aside is always a sibling named after its path
      if (!cleanPath(e.path) || !cleanPath(e.aside) || dirname(e.aside) !== dirname(e.path) || !TEMP_NAME.test(e.aside.slice(dirname(e.aside).length + 1)))
        return undefined
      return {t: 'aside', path: e.path, aside: e.aside}
    case 'prune':
      return cleanPath(e.path) && dirname(e.path) !== e.path && (e.kind === 'dir' || e.kind === 'tree') ? {t: 'prune', path: e.path, kind: e.kind} : undefined
    case 'commit':
      return {t: 'commit'}
    default:
      return undefined
  }
}

const readEntries = (env: Environment): Entry[] | undefined => {
  let text: string
  // no journal is the usual case: asked, not thrown
  if (surelyMissing(journalFile(env))) return undefined
  try {
    text = readFileSync(journalFile(env), 'utf8')
  } catch {
    return undefined
  }
  const entries: Entry[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      continue // cut short by a kill: its step never began
    }
    if (parsed && typeof parsed === 'object') {
      const entry = validEntry(parsed as Record<string, unknown>, keptDir(env))
      if (entry) entries.push(entry)
    }
  }
  return entries
}

// ---------------------------------------------------------------------------------------------
// Undoing and finishing.

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/** No link between root and path: a path the journal names is never followed out of its root. */
const linkFree = (root: string, path: string): boolean => {
  for (let p = path; p !== root && isInside(root, p); p = dirname(p)) if (isLink(p) && p !== path) return false
  return true
}

const rmdirQuiet = (dir: string): void => {
  try {
    rmdirSync(dir)
  } catch {
    // not empty, or gone
  }
}

const pruneTree = (dir: string): void => {
  let entries
  try {
    entries = readdirSync(dir, {withFileTypes: true})
  } catch {
    return
  }
  for (const entry of entries) if (entry.isDirectory() && !entry.isSymbolicLink()) pruneTree(join(dir, entry.name))
  rmdirQuiet(dir)
}

const unchanged = (file: string, copy: string): boolean => {
  try {
    const a = statSync(file)
    const b = statSync(copy)
    if (a.ino === b.ino && a.dev === b.dev) return true
    return a.size === b.size && readFileSync(file).equals(readFileSync(copy))
  } catch {
    return false
  }
}

const restoreBackup = (entry: {file: string; copy?: string}): void => {
  if (!entry.copy) {
    rmSync(entry.file, {force: true})
    return
  }
  if (!existsSync(entry.copy)) return // put back already, by a recovery that was itself cut short
  if (unchanged(entry.file, entry.copy)) {
    // never written (the run stopped before): nothing to put back, and no space needed to do it
    rmSync(entry.copy, {force: true})
    return
  }
  try {
    renameSync(entry.copy, entry.file)
  } catch {
    const tmp = tmpName(entry.file, 'tmp')
    copyFileSync(entry.copy, tmp)
    renameSync(tmp, entry.file)
    rmSync(entry.copy, {force: true})
  }
}

const undo = (entry: Entry): void => {
  switch (entry.t) {
    case 'create':
      if (!linkFree(entry.root, entry.path)) return
      if (entry.kind === 'dir') {
        // a write killed inside it left its temporary file there, an orphan that would keep the folder
        if (!isLink(entry.path)) removeEntries(entry.path, (name) => TEMP_NAME.test(name))
        rmdirQuiet(entry.path)
      } else rmSync(entry.path, {recursive: true, force: true})
      return
    case 'backup':
      restoreBackup(entry)
      return
    case 'aside':
      if (!existsSync(entry.aside) && !isLink(entry.aside)) return
      rmSync(entry.path, {recursive: true, force: true})
      renameSync(entry.aside, entry.path)
      return
    default:
  }
}

const finish = (entries: readonly Entry[]): void => {
  for (const entry of entries) if (entry.t === 'aside') rmSync(entry.aside, {recursive: true, force: true})
  const prunes = entries.filter((e): e is Extract<Entry, {t: 'prune'}> => e.t === 'prune').sort((a, b) => b.path.length - a.path.length)
  for (const p of prunes) {
    if (p.kind === 'tree') pruneTree(p.path)
    else rmdirQuiet(p.path)
  }
}

/** Removes loadout's temporary names left beside the paths a journal touched (they are all orphans under the lock). */
const sweep = (entries: readonly Entry[]): void => {
  const dirs = new Set<string>()
  for (const e of entries) {
    if (e.t === 'create' || e.t === 'aside' || e.t === 'prune') dirs.add(dirname(e.path))
    if (e.t === 'backup') dirs.add(dirname(e.file))
    if (e.t === 'create' && e.kind !== 'file') dirs.add(e.path)
  }
  for (const dir of dirs) removeEntries(dir, (name) => TEMP_NAME.test(name))
}

const dropJournal = (env: Environment): void => {
  removeEntry(keptDir(env))
  removeEntry(journalFile(env))
}

/** Rolls back, newest step first; every step is tried, the first failure is thrown after. */
const rollBackEntries = (entries: readonly Entry[]): void => {
  let failure: unknown
  for (const entry of [...entries].reverse()) {
    try {
      undo(entry)
    } catch (error) {
      failure ??= error
    }
  }
  if (failure) throw explainIoError(failure)
}

/**
 * Finishes or rolls back what a killed run left (see the top of this file). Call only under the lock.
 * A rollback that cannot complete (a folder made read-only since) keeps the journal and throws.
 */
export const recoverPending = (env: Environment): Recovery | undefined => {
  removeEntries(dirname(marketplacesFile(env)), isMarketplacesLeftover(env))
  const entries = readEntries(env)
  if (!entries) {
    removeEntry(keptDir(env))
    return undefined
  }
  const begin = entries.find((e) => e.t === 'begin')
  const label = begin?.t === 'begin' ? begin.label : 'an earlier run'
  const committed = entries.some((e) => e.t === 'commit')
  if (committed) finish(entries)
  else rollBackEntries(entries)
  sweep(entries)
  dropJournal(env)
  return {label, action: committed ? 'completed' : 'rolled-back', steps: entries.filter((e) => e.t !== 'begin' && e.t !== 'commit').length}
}

/** A journal on disk, if any: what it was doing, and whether a live process is doing it now. */
export const peekPending = (env: Environment): PendingRun | undefined => {
  const entries = readEntries(env)
  if (!entries) return undefined
  const begin = entries.find((e) => e.t === 'begin')
  const holder: LockOwner | undefined = lockHolder(stateLockDir(env))
  return {label: begin?.t === 'begin' ? begin.label : 'an earlier run', ...(holder ? {pid: holder.pid} : {}), running: Boolean(holder)}
}

/**
 * For read-only commands: recovers a pending journal when the lock is free, without waiting; when
 * another process holds it, says what is pending instead, so nothing is reported as if it were whole.
 */
export const recoverIfFree = async (env: Environment): Promise<{recovered?: Recovery; pending?: PendingRun}> => {
  if (!existsSync(journalFile(env)) && !hasMarketplacesLeftover(env)) return {}
  let lock
  try {
    lock = await acquireLock(stateLockDir(env), 0)
  } catch (error) {
    if (isLoadoutError(error) && error.code === 'locked') {
      const pending = peekPending(env)
      return pending ? {pending} : {}
    }
    throw error
  }
  try {
    const recovered = recoverPending(env)
    return recovered ? {recovered} : {}
  } finally {
    lock.release()
  }
}

// ---------------------------------------------------------------------------------------------
// Running one.

class Journal implements Transaction {
  private readonly file: string
  private readonly kept: string
  private readonly entries: Entry[] = []
  private readonly touched = new Set<string>()
  private cached?: InstallRecord[]
  private counter = 0

  constructor(
    readonly env: Environment,
    readonly projectRoot: string,
    readonly label: string,
    readonly recovered?: Recovery,
  ) {
    this.file = journalFile(env)
    this.kept = keptDir(env)
  }

  private append(entry: Entry): void {
    try {
      appendFileSync(this.file, `${JSON.stringify(entry)}\n`)
    } catch (error) {
      throw explainIoError(error, this.file)
    }
    failpoint(`journal.${entry.t}`)
    this.entries.push(entry)
  }

  begin(): void {
    this.append({t: 'begin', id: randomBytes(4).toString('hex'), label: this.label, pid: process.pid})
  }

  records(): InstallRecord[] {
    this.cached ??= readInstallRecords(this.env, this.projectRoot)
    return this.cached
  }

  creating(path: string, root: string, kind: 'file' | 'dir' | 'tree'): void {
    this.append({t: 'create', path, root, kind})
  }

  touch(file: string): void {
    if (this.touched.has(file)) return
    if (!existsSync(file)) {
      this.append({t: 'backup', file})
      this.touched.add(file)
      return
    }
    assertWritableFile(file)
    mkdirSync(this.kept, {recursive: true})
    const copy = join(this.kept, `${++this.counter}.kept`)
    try {
      // every write of loadout's renames a new file in, so the old inode stays as it was: a link keeps it at no cost
      linkSync(file, copy)
    } catch {
      try {
        copyFileSync(file, copy)
      } catch (error) {
        rmSync(copy, {force: true})
        throw explainIoError(error, copy)
      }
    }
    failpoint('journal.kept')
    this.append({t: 'backup', file, copy})
    this.touched.add(file)
  }

  remove(path: string): void {
    const aside = tmpName(path, 'old')
    this.append({t: 'aside', path, aside})
    try {
      renameSync(path, aside)
    } catch (error) {
      throw explainIoError(error, path)
    }
    failpoint('tx.removed')
  }

  pruneLater(dir: string, kind: 'dir' | 'tree'): void {
    this.append({t: 'prune', path: dir, kind})
  }

  writeRecords(scope: Scope, records: InstallRecord[]): void {
    this.touch(scope === 'user' ? userStateFile(this.env) : projectLockFile(this.projectRoot))
    writeInstallRecords(this.env, this.projectRoot, scope, records)
    this.cached = undefined
  }

  async checkpoint(): Promise<void> {
    await throwIfInterrupted()
    await testDelay(this.env)
  }

  commit(): void {
    this.append({t: 'commit'})
    finish(this.entries)
    failpoint('tx.finished')
    dropJournal(this.env)
    failpoint('tx.journal-dropped')
  }

  rollBack(): void {
    rollBackEntries(this.entries)
    sweep(this.entries)
    dropJournal(this.env)
  }

  get steps(): number {
    return this.entries.length
  }
}

/** `LOADOUT_TEST_STEP_DELAY_MS` slows every safe point, so tests can signal a run in the middle. */
const testDelay = async (env: Environment): Promise<void> => {
  const ms = Number(env.vars.LOADOUT_TEST_STEP_DELAY_MS)
  if (Number.isFinite(ms) && ms > 0) await new Promise((r) => setTimeout(r, Math.min(ms, 10_000)))
}

/**
 * Runs `body` as one transaction (see the top of this file). Transactions do not nest: a body that
 * needs another change does it through the same `tx`.
 */
export const transaction = async <T>(env: Environment, projectRoot: string, label: string, body: (tx: Transaction) => Promise<T> | T): Promise<T> => {
  enterCritical()
  const missing = missingOwnFolders(env)
  try {
    const lock = await acquireLock(stateLockDir(env), lockWaitMs(env))
    try {
      noteCreatedFolders(env, missing)
      const recovered = recoverPending(env)
      const tx = new Journal(env, projectRoot, label, recovered)
      let result: T
      try {
        tx.begin()
        result = await body(tx)
        await tx.checkpoint()
      } catch (error) {
        try {
          tx.rollBack()
        } catch {
          // the journal stays: the next command finishes the rollback
        }
        throw error
      }
      tx.commit()
      const late = pendingSignal()
      if (late) throw interruptedError(late, true)
      return result
    } finally {
      noteMadeFolders(env, missing)
      lock.release()
      tidyOwnFolders(env)
    }
  } finally {
    leaveCritical()
  }
}

/**
 * For changes that are one atomic rename each and not journalled step by step (marketplace records,
 * a skill or subagent made by hand): the lock, after recovering what a killed run left, so they never
 * interleave with a transaction nor read its half-done state.
 */
export const withStateLock = async <T>(env: Environment, fn: () => Promise<T> | T, options: {optional?: boolean} = {}): Promise<T> => {
  // `optional` and loadout has no state yet: there is nothing to recover, and no lock folder is made
  if (options.optional && !existsSync(dirname(stateLockDir(env)))) return fn()
  let lock
  const missing = missingOwnFolders(env)
  try {
    lock = await acquireLock(stateLockDir(env), lockWaitMs(env))
  } catch (error) {
    // `optional`: a change that writes nothing of loadout's own (a skill made by hand) still runs when
    // loadout's config folder cannot be made (a read-only HOME); the folder it writes says the rest
    if (options.optional && isLoadoutError(error) && error.code !== 'locked') return fn()
    throw error
  }
  try {
    noteCreatedFolders(env, missing)
    recoverPending(env)
    return await fn()
  } finally {
    noteMadeFolders(env, missing)
    lock.release()
    tidyOwnFolders(env)
  }
}

/** The folders the command made for loadout itself, noted on its way out; noting never hides the command's own outcome. */
const noteMadeFolders = (env: Environment, missing: readonly string[]): void => {
  try {
    noteCreatedFolders(env, missing)
  } catch {
    // unnoted, such a folder is only left behind after the last uninstall, as before
  }
}

/** The folders loadout made for itself go once nothing of it is left there; tidying never fails a command. */
const tidyOwnFolders = (env: Environment): void => {
  try {
    removeOwnFoldersIfUnused(env)
  } catch {
    // a folder that cannot be read or removed stays, as before
  }
}

/** How long a change waits for another loadout process: `LOADOUT_LOCK_WAIT` seconds, default 30. */
export const lockWaitMs = (env: Environment): number => {
  const seconds = Number(env.vars.LOADOUT_LOCK_WAIT)
  return Number.isFinite(seconds) && seconds >= 0 && env.vars.LOADOUT_LOCK_WAIT !== '' && env.vars.LOADOUT_LOCK_WAIT !== undefined ? seconds * 1000 : 30_000
}
