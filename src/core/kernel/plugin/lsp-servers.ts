/**
 * The language servers a Claude Code plugin declares: `lspServers` in `.claude-plugin/plugin.json`
 * (an object, or a path to a JSON file inside the plugin), else a `.lsp.json` at its root. loadout
 * writes no loose file for them; an agent that loads the plugin as its own runs them, so consent shows
 * each command. Read leniently: what is not a server with a string command is passed over.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {readContainedText} from './paths.js'

export interface LspServer {
  name: string
  command: string
  args: string[]
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

export const readLspServers = (root: string): LspServer[] => {
  const manifest = readJson(root, join(root, '.claude-plugin', 'plugin.json'))
  const field = isObject(manifest) ? manifest.lspServers : undefined
  const declared = typeof field === 'string' ? readJson(root, join(root, field)) : (field ?? readJson(root, join(root, '.lsp.json')))
  if (!isObject(declared)) return []
  return Object.entries(declared).flatMap(([name, server]) =>
    isObject(server) && typeof server.command === 'string'
      ? [{name, command: server.command, args: Array.isArray(server.args) ? server.args.filter((a): a is string => typeof a === 'string') : []}]
      : [],
  )
}
