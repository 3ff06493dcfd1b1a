#!/usr/bin/env node
// Most of oclif's start-up is importing it, so three kinds of run skip it:
// - `loadout --version`: the text is oclif's own user agent, which test/startup.test.ts checks;
// - help (`--help`, `<command> --help`, `help [command]`): the text oclif rendered at build time
//   (dist/help.json, src/ui/fast/help-cache.ts), when that is what it would print now;
// - the commands' fast path (src/ui/fast, bundled into dist/fast/ by bin/build.js), which hands
//   back to oclif whatever it is not sure of.
// - `update --auto` when no marketplace is due (src/ui/fast/auto-idle.ts).
// LOADOUT_NO_FAST=1 turns the last three off.
const args = process.argv.slice(2)
const userAgent = async () => {
  const {readFileSync} = await import('node:fs')
  const {name, version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  return `${name}/${version} ${process.platform}-${process.arch} node-${process.version}`
}
const storedHelp = async () =>
  (args.length === 0 || args.at(-1) === '--help' || args[0] === 'help') &&
  (await import('../dist/ui/fast/help-cache.js')).printStoredHelp(args, new URL('../dist/help.json', import.meta.url), await userAgent())
// which commands it takes is its own list (FAST_COMMANDS): a flag first is always oclif's
const fast = async () =>
  /^[a-z]/.test(args[0] ?? '') &&
  !process.env.LOADOUT_NO_FAST &&
  (await (await import('../dist/ui/fast/load-bundle.js')).loadBundle(new URL('../dist/fast/run.cjs', import.meta.url), args).runFast(args))

// `update --auto` with nothing due (a SessionStart hook's every run): one file read, no request
const idleAutoUpdate = async () => args[0] === 'update' && (await import('../dist/ui/fast/auto-idle.js')).answerIdleAutoUpdate(args)

if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write(`${await userAgent()}\n`)
} else if (!(await idleAutoUpdate()) && !(await storedHelp()) && !(await fast())) {
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
