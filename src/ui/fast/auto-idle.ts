/**
 * `loadout update --auto` when nothing is due, answered before oclif or the fast path loads (bin/run.js):
 * a SessionStart hook runs it at every session, so that run must cost little more than `--version`.
 * It reads one file, the marketplace records, and makes no request. Whatever it is not sure of (other
 * flags, a record due, a file it cannot read) it leaves to the command, having printed nothing.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {environmentFromProcess, loadoutPaths} from '../../core/kernel/env/environment.js'
import {findGitRoot} from '../../core/kernel/env/scope.js'
import {autoUpdateIntervalMs, isDue} from '../../core/ops/marketplace/due.js'

const onlyAuto = (args: readonly string[]): boolean =>
  args[0] === 'update' && args.includes('--auto') && args.slice(1).every((a) => a === '--auto' || a === '--json')

const records = (file: string): unknown[] | undefined => {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? [] : undefined
  }
  try {
    const data = JSON.parse(text) as {marketplaces?: unknown}
    return Array.isArray(data.marketplaces) ? data.marketplaces : undefined
  } catch {
    return undefined
  }
}

/** True when it answered (nothing due); false: run the command. */
export const answerIdleAutoUpdate = (args: readonly string[]): boolean => {
  if (!onlyAuto(args) || process.env.LOADOUT_NO_FAST || process.env.DEBUG) return false
  const env = environmentFromProcess()
  // an interval it cannot read is the command's to refuse
  const interval = autoUpdateIntervalMs(env.vars)
  if (interval === undefined) return false
  const all = records(join(loadoutPaths(env).config, 'marketplaces.json'))
  if (!all) return false
  const projectRoot = findGitRoot(env.cwd) ?? env.cwd
  const now = Date.now()
  type Stored = {scope?: unknown; project?: unknown; autoUpdate?: unknown; updatedAt?: unknown}
  const visible = all.filter(
    (r): r is Stored => typeof r === 'object' && r !== null && ((r as Stored).scope === 'user' || (r as Stored).project === projectRoot),
  )
  if (visible.some((r) => isDue(r, now, interval))) return false
  if (args.includes('--json'))
    process.stdout.write(`${JSON.stringify({due: [], refreshed: [], available: [], updates: [], waiting: [], failed: []}, null, 2)}\n`)
  else process.stdout.write('update --auto: no marketplace is due\n')
  return true
}
