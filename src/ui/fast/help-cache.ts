/**
 * `--help` without loading oclif: the build renders every help text once with oclif's own Help class
 * (root, each topic, each command) into dist/help.json, and bin/run.js prints the stored text when
 * the output would be the same: off a terminal (where oclif wraps at 80 columns) and with nothing
 * set that changes how oclif writes (a width, forced colour, debug output). Anything else goes to
 * oclif as before.
 */
import {readFileSync} from 'node:fs'

/** The help table's key for argv, when argv only asks for help: `''` for the root, else the command or topic words. */
export const helpKey = (argv: readonly string[]): string | undefined => {
  const words = (list: readonly string[]) => (list.every((w) => /^[a-z][a-z0-9-]*$/.test(w)) ? list.join(' ') : undefined)
  if (argv.length === 0) return ''
  if (argv.at(-1) === '--help') return words(argv.slice(0, -1))
  if (argv[0] === 'help') return words(argv.slice(1))
  return undefined
}

/** True when oclif's help would come out as stored: not a terminal, default width, no colour or debug. */
export const storedHelpApplies = (env: NodeJS.ProcessEnv, stdoutIsTty: boolean): boolean =>
  !stdoutIsTty && !env.OCLIF_COLUMNS && !env.FORCE_COLOR && !env.DEBUG && !env.LOADOUT_DEBUG && !env.LOADOUT_NO_FAST && process.platform !== 'win32'

/** Stands for oclif's user agent (`loadout/0.1.0 linux-x64 node-v20.20.2`), which names the Node that runs. */
const USER_AGENT = '\u0000user-agent\u0000'

/**
 * Prints the stored help for argv and returns true, or returns false (printing nothing) when there
 * is none to print. `userAgent` is this process's, spelled as oclif spells it.
 */
export const printStoredHelp = (argv: readonly string[], tableFile: string | URL, userAgent: string): boolean => {
  const key = helpKey(argv)
  if (key === undefined || !storedHelpApplies(process.env, process.stdout.isTTY === true)) return false
  let table: Record<string, string>
  try {
    table = JSON.parse(readFileSync(tableFile, 'utf8')) as Record<string, string>
  } catch {
    return false
  }
  const text = Object.hasOwn(table, key) ? table[key] : undefined
  if (text === undefined) return false
  process.stdout.write(text.replaceAll(USER_AGENT, userAgent))
  return true
}

/** Renders every help text with oclif's Help class, keyed as helpKey reads argv (run by bin/build.mjs). */
export const renderHelpTable = async (root: string): Promise<Record<string, string>> => {
  const {Config, loadHelpClass} = await import('@oclif/core')
  const config = await Config.load(root)
  const Help = await loadHelpClass(config)
  const render = async (words: string[]): Promise<string> => {
    const help = new Help(config, config.pjson.oclif.helpOptions ?? {})
    const out: string[] = []
    // oclif writes each block with `log`; collect them as it would print them, one line break each
    ;(help as unknown as {log: (...args: string[]) => void}).log = (...args) => out.push(`${args.join('\n')}\n`)
    await help.showHelp(words)
    return out.join('').replaceAll(config.userAgent, USER_AGENT)
  }
  const keys = ['', ...config.topics.map((t) => t.name), ...config.commands.filter((c) => !c.hidden).map((c) => c.id)]
  const table: Record<string, string> = {}
  for (const id of [...new Set(keys)].sort()) table[id.replaceAll(':', ' ')] = await render(id === '' ? [] : id.split(':'))
  return table
}
