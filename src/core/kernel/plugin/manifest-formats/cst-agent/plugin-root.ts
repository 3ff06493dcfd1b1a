/**
 * cst-agent expands no `${CLAUDE_PLUGIN_ROOT}`: the paths in its plugin.json are plugin-relative and
 * a server starts in its `cwd` (itself plugin-relative). So a converted server names its files
 * relative to its working folder, and gets `cwd: "."` (the plugin folder) when it had none:
 * `${CLAUDE_PLUGIN_ROOT}/servers/x.mjs` becomes `servers/x.mjs`. `${CLAUDE_PLUGIN_DATA}` is left for
 * `loadout install` to fill in, as before.
 */
import {posix} from 'node:path'
import {isRecord, type Json} from '../../components.js'

const ROOTED = /\$\{(?:CLAUDE_)?PLUGIN_ROOT\}((?:\/[^\s"'`;,]*)?)/g

const mentionsRoot = (value: unknown): boolean => /\$\{(?:CLAUDE_)?PLUGIN_ROOT\}/.test(JSON.stringify(value ?? null))

/** The folder a server starts in, relative to the plugin; undefined when it is outside the plugin or absolute. */
const workingFolder = (cwd: unknown): string | undefined => {
  if (cwd === undefined) return '.'
  if (typeof cwd !== 'string') return undefined
  const inner = posix.normalize(cwd.replace(ROOTED, (_m, rest: string) => `.${rest}`))
  return inner.startsWith('/') || inner === '..' || inner.startsWith('../') || inner.includes('${') ? undefined : inner
}

const rewrite = (value: unknown, cwd: string): unknown => {
  if (typeof value === 'string') return value.replace(ROOTED, (_m, rest: string) => posix.relative(cwd, posix.normalize(`.${rest}`) || '.') || '.')
  if (Array.isArray(value)) return value.map((v) => rewrite(v, cwd))
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, cwd)]))
  return value
}

/** The server with its plugin-root paths made relative to its working folder; `kept` when that cannot be done. */
export const relativeToPlugin = (server: Json): {server: Json; changed: boolean} => {
  if (!mentionsRoot(server)) return {server, changed: false}
  const cwd = workingFolder(server.cwd)
  if (cwd === undefined) return {server, changed: false}
  const {cwd: _cwd, ...rest} = server
  return {server: {...(rewrite(rest, cwd) as Json), cwd}, changed: true}
}
