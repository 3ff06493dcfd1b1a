/**
 * What a Claude Code plugin declares for a part its manifest names (`lspServers`, `monitors`): the
 * field of `.claude-plugin/plugin.json` as written, or the JSON file it names inside the plugin, else
 * the part's own file at its default path. Read leniently: a missing or broken file reads as nothing.
 */
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {readContainedText} from './paths.js'

const MAX_JSON_BYTES = 1024 * 1024

const readJson = (root: string, file: string): unknown => {
  if (!existsSync(file)) return undefined
  try {
    return JSON.parse(readContainedText(file, {root, file, maxBytes: MAX_JSON_BYTES}))
  } catch {
    return undefined
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export const readDeclared = (root: string, field: string, defaultFile: string): unknown => {
  const manifest = readJson(root, join(root, '.claude-plugin', 'plugin.json'))
  const declared = isObject(manifest) ? manifest[field] : undefined
  return typeof declared === 'string' ? readJson(root, join(root, declared)) : (declared ?? readJson(root, join(root, defaultFile)))
}
