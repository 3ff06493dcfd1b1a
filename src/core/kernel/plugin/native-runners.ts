/**
 * What a Claude Code plugin runs besides hooks, MCP and language servers, once the agent loads it as
 * its own: its monitors (`monitors` in `.claude-plugin/plugin.json`, an array or a path to a JSON
 * file, else `monitors/monitors.json`: shell commands run for the whole session) and the executables
 * in `bin/`, which Claude Code puts on the PATH of the commands it runs. loadout writes no loose file
 * for either; consent shows each. Read leniently, like lsp-servers.ts.
 */
import {lstatSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {isObject, readDeclared} from './declared-json.js'

export interface Monitor {
  name: string
  command: string
}

export const readMonitors = (root: string): Monitor[] => {
  const declared = readDeclared(root, 'monitors', 'monitors/monitors.json')
  const list = Array.isArray(declared) ? declared : isObject(declared) && Array.isArray(declared.monitors) ? declared.monitors : []
  return list.flatMap((m: unknown, i: number) =>
    isObject(m) && typeof m.command === 'string' ? [{name: typeof m.name === 'string' && m.name !== '' ? m.name : `monitor-${i + 1}`, command: m.command}] : [],
  )
}

/** The files directly in the plugin's `bin/` (links and folders left out): what Claude Code puts on PATH. */
export const readBinFiles = (root: string): string[] => {
  const dir = join(root, 'bin')
  try {
    if (!lstatSync(dir).isDirectory()) return []
    return readdirSync(dir, {withFileTypes: true})
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort()
  } catch {
    return []
  }
}
