/**
 * What a Claude Code plugin runs besides hooks, MCP and language servers, once the agent loads it as
 * its own: its monitors (`monitors` in `.claude-plugin/plugin.json`, an array or a path to a JSON
 * file, else `monitors/monitors.json`: shell commands run for the whole session) and the executables
 * in `bin/`, which Claude Code puts on the PATH of the commands it runs. loadout writes no loose file
 * for either; consent shows each. Read leniently, like lsp-servers.ts.
 */
import {existsSync, lstatSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {readContainedText} from './paths.js'

export interface Monitor {
  name: string
  command: string
}

const MAX_JSON_BYTES = 1024 * 1024

const readJson = (root: string, file: string): unknown => {
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readContainedText(file, {root, file, maxBytes: MAX_JSON_BYTES}))
  } catch {
    return undefined
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export const readMonitors = (root: string): Monitor[] => {
  const manifest = readJson(root, join(root, '.claude-plugin', 'plugin.json'))
  const field = isObject(manifest) ? manifest.monitors : undefined
  const declared = typeof field === 'string' ? readJson(root, join(root, field)) : (field ?? readJson(root, join(root, 'monitors', 'monitors.json')))
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
