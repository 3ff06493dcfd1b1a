/**
 * Preloaded into the CLI (`NODE_OPTIONS=--import <file URL of fs-trace.mjs>`): counts the reads of, and the
 * writes into place (a rename onto the path, how every staged write lands), of each file whose path
 * matches $LOADOUT_TEST_FS_TRACE_MATCH, and writes the counts as JSON to $LOADOUT_TEST_FS_TRACE at exit.
 */
import fs from 'node:fs'
import {syncBuiltinESMExports} from 'node:module'

const out = process.env.LOADOUT_TEST_FS_TRACE
const match = new RegExp(process.env.LOADOUT_TEST_FS_TRACE_MATCH || '^$')
if (out) {
  const counts = {}
  const note = (op, path) => {
    const file = String(path)
    if (!match.test(file)) return
    const entry = (counts[file] ??= {reads: 0, writes: 0})
    entry[op]++
  }
  const readFileSync = fs.readFileSync
  fs.readFileSync = function (path, ...rest) {
    if (typeof path === 'string' || path instanceof URL) note('reads', path)
    return readFileSync.call(this, path, ...rest)
  }
  const renameSync = fs.renameSync
  fs.renameSync = function (from, to) {
    note('writes', to)
    return renameSync.call(this, from, to)
  }
  syncBuiltinESMExports()
  process.on('exit', () => fs.writeFileSync(out, JSON.stringify(counts)))
}
