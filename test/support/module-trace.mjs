// Preloaded with NODE_OPTIONS=--import (see test/startup.test.ts, test/e2e/fast-path.test.ts): appends
// every module the CLI resolves (ESM, through a resolve hook) and every CommonJS module it loaded
// (require.cache, at exit) to the file named by LOADOUT_TRACE_MODULES, one URL or path a line.
import {appendFileSync} from 'node:fs'
import {createRequire, register} from 'node:module'

const out = process.env.LOADOUT_TRACE_MODULES
if (out) {
  register(new URL('./module-trace-hooks.mjs', import.meta.url), {data: {out}})
  process.on('exit', () => {
    appendFileSync(out, `${Object.keys(createRequire(import.meta.url).cache).join('\n')}\n`)
  })
}
