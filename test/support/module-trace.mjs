// Preloaded with NODE_OPTIONS=--import (see test/startup.test.ts, test/e2e/fast-path.test.ts): appends
// every module the CLI resolves (ESM, through a resolve hook), every CommonJS module it loaded
// (require.cache, at exit), every file of the fast path's bundle it opened (its loader keeps a
// registry of its own, src/ui/fast/load-bundle.ts) and every public module of Node's own it loaded
// (`node:crypto`) to the file named by LOADOUT_TRACE_MODULES, one URL, path or name a line.
import fs, {appendFileSync} from 'node:fs'
import {createRequire, register, syncBuiltinESMExports} from 'node:module'

const out = process.env.LOADOUT_TRACE_MODULES
if (out) {
  register(new URL('./module-trace-hooks.mjs', import.meta.url), {data: {out}})
  const bundleFiles = []
  const openSync = fs.openSync
  fs.openSync = function (path, ...rest) {
    if (String(path).includes('/dist/fast/')) bundleFiles.push(String(path))
    return openSync.call(this, path, ...rest)
  }
  syncBuiltinESMExports()
  process.on('exit', () => {
    const builtins = process.moduleLoadList.filter((m) => /^NativeModule [a-z]/.test(m)).map((m) => `node:${m.slice('NativeModule '.length)}`)
    appendFileSync(out, `${[...Object.keys(createRequire(import.meta.url).cache), ...bundleFiles, ...builtins].join('\n')}\n`)
  })
}
