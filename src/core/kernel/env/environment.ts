import {lazyRequire} from './lazy.js'
import {join, resolve} from 'node:path'
import {isTerminal} from './terminal.js'

/** node:os, loaded only when HOME is unset (most runs never need it) */
const nodeOs = lazyRequire<typeof import('node:os')>('node:os')

/**
 * Everything loadout reads from the process (variables, home, working directory, terminal) comes in
 * through one Environment, so the library is testable against a temporary HOME.
 */
export interface Environment {
  vars: Readonly<Record<string, string | undefined>>
  home: string
  cwd: string
  platform: NodeJS.Platform
  interactive: boolean
  /**
   * The host check every request loadout makes passes, the first hop and every redirect (the
   * policy's `sources`, attached by the commands; see kernel/policy/gate.ts). Throws to refuse.
   */
  judgeUrl?: (url: URL) => void
  /**
   * The user state's records held as their lines, parsed when more than their plugin and target is
   * asked (kernel/state/held-lines.ts): for the commands that read the bodies of a few records among
   * many (install, uninstall), attached by them; any other reads every record parsed.
   */
  holdRecordLines?: boolean
}

export const environmentFromProcess = (): Environment => ({
  vars: process.env,
  home: process.env.HOME || nodeOs().homedir(),
  cwd: process.cwd(),
  platform: process.platform,
  // asked only where a command may prompt; by descriptor, since making process.stdout or process.stdin
  // loads all of node:stream when it is a pipe or a file (kernel/env/terminal.ts)
  get interactive() {
    return isTerminal(1) && isTerminal(0) && process.env.CI !== 'true'
  },
})

/**
 * `env` with `changes`, its other properties as they are: a getter stays a getter (spreading `env`
 * would call `interactive`'s, which makes process.stdin: ~6 ms of an install with stdin not a terminal).
 */
export const environmentWith = (env: Environment, changes: Partial<Environment>): Environment =>
  Object.defineProperties(Object.defineProperties({}, Object.getOwnPropertyDescriptors(env)), Object.getOwnPropertyDescriptors(changes)) as Environment

const nonEmpty = (value: string | undefined): string | undefined => (value && value.trim() ? value : undefined)

/** XDG base-directory variables count only when absolute (the specification says to ignore others). */
const xdg = (value: string | undefined): string | undefined => (nonEmpty(value) && value!.startsWith('/') ? value : undefined)

/** Expands a leading `~` against the environment's home; leaves other paths alone. */
export const expandHome = (path: string, env: Environment): string => (path === '~' ? env.home : path.startsWith('~/') ? join(env.home, path.slice(2)) : path)

export interface LoadoutPaths {
  /** loadout's own config and user-scope state */
  config: string
  /** git mirrors, downloads, extracted trees */
  cache: string
  /** installed plugin roots and per-plugin data */
  data: string
}

let lastPaths: {key: string; paths: LoadoutPaths} | undefined

/** loadout's folders for `env` (asked for dozens of times a run: the last answer is kept while what it depends on is the same) */
export const loadoutPaths = (env: Environment): LoadoutPaths => {
  const v = env.vars
  const key = [env.cwd, env.home, v.LOADOUT_HOME, v.LOADOUT_CACHE_DIR, v.LOADOUT_DATA_DIR, v.XDG_CONFIG_HOME, v.XDG_CACHE_HOME, v.XDG_DATA_HOME].join('\0')
  if (lastPaths?.key !== key) lastPaths = {key, paths: pathsOf(env)}
  return {...lastPaths.paths}
}

const pathsOf = (env: Environment): LoadoutPaths => {
  const v = env.vars
  const abs = (p: string) => resolve(env.cwd, expandHome(p, env))
  const config = nonEmpty(v.LOADOUT_HOME) ? abs(v.LOADOUT_HOME!) : join(abs(xdg(v.XDG_CONFIG_HOME) ?? '~/.config'), 'loadout')
  const cache = nonEmpty(v.LOADOUT_CACHE_DIR) ? abs(v.LOADOUT_CACHE_DIR!) : join(abs(xdg(v.XDG_CACHE_HOME) ?? '~/.cache'), 'loadout')
  const data = nonEmpty(v.LOADOUT_DATA_DIR)
    ? abs(v.LOADOUT_DATA_DIR!)
    : nonEmpty(v.LOADOUT_HOME)
      ? join(config, 'data')
      : join(abs(xdg(v.XDG_DATA_HOME) ?? '~/.local/share'), 'loadout')
  return {config, cache, data}
}

/** Where a run's journal lives (read-only commands look for one without loading the transaction code). */
export const journalFile = (env: Environment): string => join(loadoutPaths(env).config, 'journal.jsonl')

/** The project folder loadout keeps plugin copies and their data in. */
export const PROJECT_DIR = '.loadout'
