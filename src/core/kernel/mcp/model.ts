/**
 * A standalone server's installed copy: the folder holding the spec it was made from, read back as
 * a one-server plugin whose server keeps its own name as its key.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {readForInstall} from '../plugin/leniency.js'
import type {PluginModel} from '../../model/plugin.js'
import {isMcpId, type McpServerSpec} from './spec.js'

/** The file in the server's folder that says what it is, read back by enable, update and `install` in a project. */
export const SPEC_FILE = 'loadout-mcp.json'

/** The one-server plugin of a spec, read from `root`. */
export const serverModel = (spec: McpServerSpec, root: string): PluginModel => {
  const version = spec.origin.kind === 'registry' ? spec.origin.version : undefined
  return {
    name: spec.name,
    ...(version ? {version} : {}),
    root,
    manifests: ['none'],
    skills: [],
    subagents: [],
    mcpServers: [{kind: 'mcp', name: spec.name, key: spec.name, config: spec.config}],
    hooks: [],
    commands: [],
    tools: [],
    problems: [],
  }
}

/** The spec a server folder (an installed record's copy) was made from. */
export const readServerSpec = (folder: string): McpServerSpec => JSON.parse(readFileSync(join(folder, SPEC_FILE), 'utf8')) as McpServerSpec

/**
 * The model of an installed copy, for putting it back (enable, a failed update's restore): a
 * standalone server is read from its spec, so it keeps its own key; anything else as a plugin.
 */
export const readInstalledCopy = (id: string, root: string, home: string): PluginModel =>
  isMcpId(id) ? serverModel(readServerSpec(root), root) : readForInstall(root, {home})
