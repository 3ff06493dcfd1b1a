import {appendFileSync} from 'node:fs'

/**
 * Named steps of every change (the mutex taken, each journal line, each staged write, rename, swap
 * and removal, the journal dropped), so a crash test can kill a run at each one exactly instead of
 * at random moments:
 *
 *   LOADOUT_FAILPOINT=<point>[#<n>]    SIGKILL this process the n-th time (default the first) it passes <point>
 *   LOADOUT_FAILPOINT_TRACE=<file>     append each point's name to <file>, one a line, as it is passed
 *
 * Both are read once, when this module loads. With neither set, `failpoint` is a function that does
 * nothing, so the calls cost nothing a user could measure.
 */
const armed = (spec: string | undefined, trace: string | undefined): ((point: string) => void) => {
  if (!spec && !trace) return () => {}
  const hash = spec ? spec.lastIndexOf('#') : -1
  const target = spec && hash > 0 ? spec.slice(0, hash) : spec
  const nth = spec && hash > 0 ? Number(spec.slice(hash + 1)) : 1
  let passes = 0
  return (point) => {
    if (trace) appendFileSync(trace, `${point}\n`)
    // a real kill, exactly what a crash or `kill -9` does: no handler, no cleanup, no flush
    if (point === target && ++passes === nth) process.kill(process.pid, 'SIGKILL')
  }
}

export const failpoint: (point: string) => void = armed(process.env.LOADOUT_FAILPOINT, process.env.LOADOUT_FAILPOINT_TRACE)
