import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {errnoCode, EXIT, LoadoutError} from '../errors.js'

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errnoCode(error) === 'EPERM'
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * One inter-process lock: a folder made with mkdir (atomic on every filesystem), holding the owner's
 * pid. A lock whose owner is gone is taken over; a live one is waited for, up to `waitMs`.
 */
export const withLock = async <T>(lockDir: string, fn: () => Promise<T> | T, waitMs = 30_000): Promise<T> => {
  mkdirSync(dirname(lockDir), {recursive: true})
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      mkdirSync(lockDir)
      writeFileSync(join(lockDir, 'pid'), String(process.pid))
      break
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error
      let owner = Number.NaN
      try {
        owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8'))
      } catch {
        // being created or removed right now
      }
      if (Number.isFinite(owner) && owner > 0 && !alive(owner)) {
        rmSync(lockDir, {recursive: true, force: true})
        continue
      }
      if (Date.now() > deadline) {
        throw new LoadoutError('locked', EXIT.locked, `another loadout process${Number.isFinite(owner) ? ` (pid ${owner})` : ''} holds ${lockDir}`, {
          suggestions: ['wait for it to finish, then try again'],
        })
      }
      await sleep(100)
    }
  }
  try {
    return await fn()
  } finally {
    rmSync(lockDir, {recursive: true, force: true})
  }
}
