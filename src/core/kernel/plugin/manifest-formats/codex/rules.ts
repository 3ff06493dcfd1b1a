/**
 * Codex's manifest rules beyond its schema: identity, paths that must exist, `interface` assets and
 * URLs, and the name its marketplace entry gives the plugin.
 */
import {statSync} from 'node:fs'
import {entryKindOf} from '../../../sources/kinds/entries.js'
import {dirname, join, relative, resolve} from 'node:path'
import {add, checkIdentity, checkPathExists, checkTrailingSlash, isUrl, pathsAt, type RuleContext} from '../plugin-rules.js'
import {readCatalog} from '../../../marketplace/catalog.js'
import {parseJsonBounded} from '../../../json/json-depth.js'
import {isRecord, type Json} from '../../components.js'
import {followedKind, readContainedText} from '../../paths.js'
import {jsonPathJoin} from '../../../json/path.js'

export const CODEX_ASSET_FIELDS = ['composerIcon', 'logo', 'logoDark'] as const
const CODEX_URL_FIELDS = ['websiteURL', 'privacyPolicyURL', 'termsOfServiceURL'] as const

export const codexRules = (json: Json, ctx: RuleContext): void => {
  checkIdentity(json, ctx)
  for (const key of ['skills', 'mcpServers']) for (const {raw, at} of pathsAt(json, key)) checkTrailingSlash(raw, at, ctx)
  for (const key of ['hooks', 'apps']) {
    for (const {raw, at} of pathsAt(json, key)) {
      checkTrailingSlash(raw, at, ctx)
      checkPathExists(raw, at, true, ctx)
    }
  }
  const ui = json.interface
  if (!isRecord(ui)) return
  for (const key of CODEX_ASSET_FIELDS) {
    // the reader checks composerIcon and logo for ./ and containment; only their existence is left
    for (const {raw, at} of pathsAt(ui, key, 'interface')) if (!isUrl(raw)) checkPathExists(raw, at, true, ctx, key === 'logoDark')
  }
  for (const {raw, at} of pathsAt(ui, 'screenshots', 'interface')) if (!isUrl(raw)) checkPathExists(raw, at, true, ctx, false)
  for (const key of CODEX_URL_FIELDS) {
    const value = ui[key]
    if (typeof value !== 'string') continue
    let url: URL | undefined
    try {
      url = new URL(value)
    } catch {
      url = undefined
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      add(ctx, 'error', 'codex-interface-url', `"${key}" is ${JSON.stringify(value)}, not an http(s) URL`, jsonPathJoin('interface', key))
    }
  }
  if (typeof ui.defaultPrompt === 'string' && ui.defaultPrompt.trim() === '')
    add(ctx, 'error', 'manifest-field-empty', '"defaultPrompt" is empty', 'interface.defaultPrompt')
}

/** A Codex marketplace beside the plugin, found by walking up at most this many folders. */
const MARKETPLACE_DEPTH = 6
const CODEX_MARKETPLACE = join('.agents', 'plugins', 'marketplace.json')
const catalogs = new Map<string, {stamp: string; entries: Array<{name: string; path: string}>}>()

/** The local entries of the Codex marketplace at `file` (cached while its size and mtime stay). */
const codexEntries = (file: string, root: string): Array<{name: string; path: string}> => {
  let entries: Array<{name: string; path: string}> = []
  let stamp = ''
  try {
    const stat = statSync(file)
    stamp = `${stat.size}:${stat.mtimeMs}`
    const cached = catalogs.get(file)
    if (cached?.stamp === stamp) return cached.entries
    const text = readContainedText(file, {root, file, maxBytes: 10 * 1024 * 1024})
    const {catalog} = readCatalog(parseJsonBounded(text, file), {file, origin: 'local', format: 'codex'})
    entries = catalog.plugins.flatMap((e) => {
      const folder = entryKindOf(e.source).folder?.(e.source as never)
      return folder === undefined ? [] : [{name: e.name, path: resolve(root, folder)}]
    })
  } catch {
    // a broken catalog is `marketplace validate`'s to report; here it names no plugin
  }
  catalogs.set(file, {stamp, entries})
  return entries
}

/**
 * Codex lists a plugin under its marketplace entry's name, so the manifest's name must be the
 * same. The entry is looked for in the nearest `.agents/plugins/marketplace.json` above the plugin.
 */
export const codexMarketplaceRule = (json: Json, ctx: RuleContext): void => {
  if (typeof json.name !== 'string') return
  let dir = dirname(ctx.root)
  for (let depth = 0; depth < MARKETPLACE_DEPTH; depth++) {
    const file = join(dir, CODEX_MARKETPLACE)
    if (followedKind(file) === 'file') {
      const entry = codexEntries(file, dir).find((e) => e.path === ctx.root)
      if (entry && entry.name !== json.name) {
        add(
          ctx,
          'error',
          'codex-name-mismatch',
          `name ${JSON.stringify(json.name)} differs from the plugin's entry ${JSON.stringify(entry.name)} in ${relative(ctx.root, file)}; Codex knows the plugin by its entry's name, so the two must be equal`,
          'name',
        )
      }
      return
    }
    const up = dirname(dir)
    if (up === dir) return
    dir = up
  }
}
