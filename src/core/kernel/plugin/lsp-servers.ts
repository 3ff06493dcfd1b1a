/**
 * The language servers a Claude Code plugin declares: `lspServers` in `.claude-plugin/plugin.json`
 * (an object, or a path to a JSON file inside the plugin), else a `.lsp.json` at its root. loadout
 * writes no loose file for them; an agent that loads the plugin as its own runs them, so consent shows
 * each command. Read leniently: what is not a server with a string command is passed over.
 */
import {isObject, readDeclared} from './declared-json.js'

export interface LspServer {
  name: string
  command: string
  args: string[]
}

export const readLspServers = (root: string): LspServer[] => {
  const declared = readDeclared(root, 'lspServers', '.lsp.json')
  if (!isObject(declared)) return []
  return Object.entries(declared).flatMap(([name, server]) =>
    isObject(server) && typeof server.command === 'string'
      ? [{name, command: server.command, args: Array.isArray(server.args) ? server.args.filter((a): a is string => typeof a === 'string') : []}]
      : [],
  )
}
