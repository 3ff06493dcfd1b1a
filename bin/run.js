#!/usr/bin/env node
// `loadout --version` is answered without loading oclif (most of start-up is importing it); the
// text is oclif's own user agent, which test/startup.test.ts checks.
const args = process.argv.slice(2)
// The hot read-only commands have a fast path that skips oclif too (src/ui/fast, bundled into
// dist/fast/ by bin/build.js): it hands
// back to oclif whatever it is not sure of, and LOADOUT_NO_FAST=1 turns it off.
const FAST = new Set(['list', 'verify', 'search', 'targets', 'skills', 'agents', 'install', 'marketplace'])
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const {readFileSync} = await import('node:fs')
  const {name, version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`)
} else if (!(FAST.has(args[0]) && !process.env.LOADOUT_NO_FAST && (await (await import('../dist/fast/run.js')).runFast(args)))) {
  // oclif's own engine check loads all of semver at import; loadout's `engines` field still applies.
  process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1'
  const {flush, run} = await import('@oclif/core')
  try {
    await run(args, import.meta.url)
    // as oclif's execute does: not awaited, since a closed stdout (`| head`) never drains
    flush()
  } catch (error) {
    // loadout's commands report their own failures; this catches what oclif and its plugins throw
    // (a bad flag to `help`, an unknown shell for `autocomplete`) and says it in loadout's words.
    const {reportFailure} = await import('../dist/ui/base-command.js')
    reportFailure(error, args)
  }
}
