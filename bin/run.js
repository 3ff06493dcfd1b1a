#!/usr/bin/env node
// CommonJS (bin/package.json), as is all it loads before a command's code: an ES module here would
// start Node's ES module loader, ~10 ms of every run. Most of oclif's start-up is importing it, so
// four kinds of run skip it:
// - `loadout --version`: the text is oclif's own user agent, which test/startup.test.ts checks;
// - help (`--help`, `<command> --help`, `help [command]`): the text oclif rendered at build time
//   (dist/help.json, src/ui/fast/help-cache.ts), when that is what it would print now;
// - `update --auto` when no marketplace is due (src/ui/fast/auto-idle.ts);
// - the commands' fast path (src/ui/fast, bundled into dist/fast/ by bin/build.mjs), which hands
//   back to oclif whatever it is not sure of.
// LOADOUT_NO_FAST=1 turns the last three off. The three are required from dist/start/ (bin/build.mjs).
'use strict'
const {readFileSync} = require('node:fs')
const {join} = require('node:path')

const root = join(__dirname, '..')
const args = process.argv.slice(2)
const userAgent = () => {
  const {name, version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return `${name}/${version} ${process.platform}-${process.arch} node-${process.version}`
}
const storedHelp = () =>
  (args.length === 0 || args.at(-1) === '--help' || args[0] === 'help') &&
  require('../dist/start/help-cache.cjs').printStoredHelp(args, join(root, 'dist', 'help.json'), userAgent())
// which commands it takes is its own list (FAST_COMMANDS): a flag first is always oclif's
const fast = async () =>
  /^[a-z]/.test(args[0] ?? '') &&
  !process.env.LOADOUT_NO_FAST &&
  (await require('../dist/start/load-bundle.cjs')
    .loadBundle(join(root, 'dist', 'fast', 'run.cjs'), args, require)
    .runFast(args))
// `update --auto` with nothing due (a SessionStart hook's every run): one file read, no request
const idleAutoUpdate = () => args[0] === 'update' && require('../dist/start/auto-idle.cjs').answerIdleAutoUpdate(args)

// Which of process.stdout and process.stderr a run made: the fast path writes to the descriptors
// itself (src/ui/output.ts), and asking a stream whether it holds text would make it (~8 ms on a pipe).
const madeStreams = []
for (const name of ['stdout', 'stderr']) {
  const {get, ...rest} = Object.getOwnPropertyDescriptor(process, name) ?? {}
  // a Node that makes its streams otherwise: take them as made
  if (typeof get !== 'function' || !rest.configurable) {
    madeStreams.push(name)
    continue
  }
  Object.defineProperty(process, name, {
    ...rest,
    get() {
      if (!madeStreams.includes(name)) madeStreams.push(name)
      return get.call(process)
    },
  })
}

// The command is done and said all it had to: exit now. Left to itself Node turns its event loop once
// more, and V8 runs there the garbage collection it scheduled while the command allocated (~5 ms of
// `list`, a collection whose work is thrown away). Not while a stream made holds unwritten text (a
// pipe is asynchronous on macOS, a full non-blocking one everywhere); the 'exit' handlers (the code
// cache) still run.
const exitDone = () => {
  if (madeStreams.every((name) => process[name].writableLength === 0)) process.exit()
}

const main = async () => {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
    process.stdout.write(`${userAgent()}\n`)
    return
  }
  if (idleAutoUpdate() || storedHelp()) return
  if (await fast()) return exitDone()
  // oclif's own engine check loads all of semver at import; loadout's `engines` field still applies.
  process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'
  const {flush, run} = await import('@oclif/core')
  try {
    // the package's folder: bin/package.json (type only) is not the package
    await run(args, root)
    // as oclif's execute does: not awaited, since a closed stdout (`| head`) never drains
    flush()
  } catch (error) {
    // loadout's commands report their own failures; this catches what oclif and its plugins throw
    // (a bad flag to `help`, an unknown shell for `autocomplete`) and says it in loadout's words.
    const {reportFailure} = await import('../dist/ui/base-command.js')
    reportFailure(error, args)
  }
}
main()
