import {randomBytes} from '../crypto/node-crypto.js'
import {mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {failpoint} from '../env/failpoint.js'
import {errnoCode, EXIT, explainIoError, LoadoutError} from '../../model/errors.js'

/** Who holds a lock: a pid is reused, so the owner is the pid plus the moment that process started. */
export interface LockOwner {
  pid: number
  /** the process's start time in clock ticks since boot (/proc/<pid>/stat field 22), where there is a /proc */
  start?: string
  token: string
}

/** The start time of a process, or undefined where /proc does not say (not Linux, or it is gone). */
export const processStart = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the command name (field 2) is in parentheses and may hold spaces: count from the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/** Whether the process that wrote `owner` still runs: same pid and, where known, the same start time. */
export const ownerAlive = (owner: LockOwner): boolean => {
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    if (errnoCode(error) !== 'EPERM') return false
  }
  if (owner.start === undefined) return true
  const now = processStart(owner.pid)
  return now === undefined || now === owner.start
}

const readOwner = (lockDir: string): LockOwner | undefined => {
  try {
    const data = JSON.parse(readFileSync(join(lockDir, 'owner.json'), 'utf8')) as Partial<LockOwner>
    if (!Number.isInteger(data.pid) || data.pid! <= 0 || typeof data.token !== 'string') return undefined
    return {pid: data.pid!, token: data.token, ...(typeof data.start === 'string' ? {start: data.start} : {})}
  } catch {
    return undefined
  }
}

/** A lock folder with no owner file is being made (or its maker died in between): after this long, it is stale. */
const UNOWNED_GRACE_MS = 2000

const ageMs = (path: string): number => {
  try {
    return Date.now() - statSync(path).mtimeMs
  } catch {
    return 0
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Takes a stale lock out of the way by renaming it (one process wins), then checks it was the stale
 * one: when another process replaced it meanwhile, its lock is put back.
 */
const takeOver = (lockDir: string, seen: LockOwner | undefined): void => {
  const aside = `${lockDir}.stale-${randomBytes(4).toString('hex')}`
  try {
    renameSync(lockDir, aside)
  } catch {
    return
  }
  const moved = readOwner(aside)
  if (seen ? moved?.token !== seen.token : moved !== undefined) {
    try {
      renameSync(aside, lockDir)
      return
    } catch {
      // a third process took the lock: the one moved aside lost it
    }
  }
  rmSync(aside, {recursive: true, force: true})
}

export interface LockHandle {
  owner: LockOwner
  release(): void
}

/**
 * Takes the lock: a folder made with mkdir (atomic everywhere) holding owner.json, written whole
 * before it is renamed in. An owner that is gone (or whose pid now names another process) is taken
 * over; a live one is waited for, up to `waitMs`. Throws `locked` (exit 9) when the wait runs out.
 */
export const acquireLock = async (lockDir: string, waitMs = 30_000): Promise<LockHandle> => {
  try {
    mkdirSync(dirname(lockDir), {recursive: true})
  } catch (error) {
    throw explainIoError(error, dirname(lockDir))
  }
  const start = processStart(process.pid)
  const owner: LockOwner = {pid: process.pid, token: randomBytes(8).toString('hex'), ...(start ? {start} : {})}
  const deadline = Date.now() + waitMs
  for (;;) {
    let made = false
    try {
      mkdirSync(lockDir)
      made = true
      failpoint('mutex.made')
      const tmp = join(lockDir, `.owner-${owner.token}`)
      writeFileSync(tmp, JSON.stringify(owner))
      renameSync(tmp, join(lockDir, 'owner.json'))
      failpoint('mutex.taken')
      break
    } catch (error) {
      if (errnoCode(error) === 'ENOENT' && !made) {
        // the folder above went meanwhile (a user cleaning up): make it again
        try {
          mkdirSync(dirname(lockDir), {recursive: true})
        } catch (again) {
          throw explainIoError(again, dirname(lockDir))
        }
        continue
      }
      if (errnoCode(error) !== 'EEXIST' || made) {
        if (made) rmSync(lockDir, {recursive: true, force: true})
        throw explainIoError(error, lockDir)
      }
      const holder = readOwner(lockDir)
      if (holder ? !ownerAlive(holder) : ageMs(lockDir) > UNOWNED_GRACE_MS) {
        takeOver(lockDir, holder)
        continue
      }
      if (Date.now() >= deadline) {
        throw new LoadoutError('locked', EXIT.locked, `another loadout process${holder ? ` (pid ${holder.pid})` : ''} holds ${lockDir}`, {
          suggestions: ['wait for it to finish, then try again'],
          details: {lock: lockDir, ...(holder ? {pid: holder.pid} : {})},
        })
      }
      await sleep(50 + Math.floor(Math.random() * 50))
    }
  }
  return {
    owner,
    release() {
      // only our own lock: one taken over from us (we looked dead) is not ours to remove
      if (readOwner(lockDir)?.token === owner.token) removeLockDir(lockDir)
    },
  }
}

/** Removes a lock folder: its owner file and the folder, or (something else left in it) all of it. */
const removeLockDir = (lockDir: string): void => {
  try {
    unlinkSync(join(lockDir, 'owner.json'))
    rmdirSync(lockDir)
  } catch {
    rmSync(lockDir, {recursive: true, force: true})
  }
}

/** Who holds the lock now, if anyone alive does (for read-only commands that do not wait). */
export const lockHolder = (lockDir: string): LockOwner | undefined => {
  const holder = readOwner(lockDir)
  return holder && ownerAlive(holder) ? holder : undefined
}
