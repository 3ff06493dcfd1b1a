/**
 * `loadout marketplace add-plugin <path>`: lists a plugin folder of the marketplace in its
 * catalog(s), by a `./` path, with the name, description and version its manifest gives. The
 * catalog's text is edited in place (one entry appended after the last, laid out like the others),
 * so the rest of the file keeps its bytes.
 */
import {lstatSync, statSync} from 'node:fs'
import {basename, join, relative, resolve} from 'node:path'
import {conflict, errnoCode, notFound, usageError, validationFailed} from '../../model/errors.js'
import {isInside, safeRealpath, unsafePath} from '../../kernel/fs/contain.js'
import {explainWriteError, writeFileAtomic} from '../../kernel/fs/write.js'
import {readCatalog} from '../../kernel/marketplace/catalog.js'
import {parseJsonBounded} from '../../kernel/json/json-depth.js'
import {checkPluginName} from '../../kernel/text/names.js'
import type {PluginAuthor} from '../../model/marketplace.js'
import {CATALOG_FILES, MAX_AUTHORING_CATALOG_BYTES, readPluginManifests, toSlash, type MarketplaceFormat} from './marketplace-files.js'
import {appendToArray, applyEdits, jsonLayout, readAuthoringJson} from './marketplace-json.js'
import {CODEX_AUTHENTICATION, CODEX_INSTALLATION} from './marketplace-validate.js'

export interface AddPluginInput {
  /** the plugin folder, relative to cwd */
  plugin: string
  /** the marketplace folder, relative to cwd */
  marketplaceDir: string
  cwd: string
  dryRun: boolean
}

export interface PluginAddedToMarketplace {
  /** the marketplace's name */
  marketplace: string
  root: string
  plugin: string
  /** the entry's source, a `./` path */
  source: string
  /** the manifest the name came from (relative to the marketplace), or none when the folder named it */
  manifest?: string
  /** the catalogs changed, each with the entry appended to it */
  catalogs: Array<{file: string; format: MarketplaceFormat; entry: Record<string, unknown>}>
  dryRun: boolean
}

interface OpenCatalog {
  abs: string
  rel: string
  format: MarketplaceFormat
  text: string
  bom: boolean
  mode: number
  data: Record<string, unknown>
  plugins: unknown[]
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Opens the catalogs of the marketplace at `root` for editing; each must be a readable JSON object with a plugins list. */
const openCatalogs = (root: string, shownRoot: string): OpenCatalog[] => {
  const open: OpenCatalog[] = []
  for (const [format, rel] of Object.entries(CATALOG_FILES) as Array<[MarketplaceFormat, string]>) {
    const abs = join(root, rel)
    let stat
    try {
      stat = lstatSync(abs)
    } catch {
      continue
    }
    if (stat.isSymbolicLink())
      throw unsafePath(`refusing to edit ${rel}: it is a symbolic link (to ${safeRealpath(abs) ?? 'a missing file'})`, 'replace the link with the file itself')
    const read = readAuthoringJson(abs, {root, file: rel, maxBytes: MAX_AUTHORING_CATALOG_BYTES})
    const broken = read.problems.find((p) => p.code !== 'json-bom')
    if (!read.json || broken) {
      const p = broken ?? read.problems[0]!
      throw validationFailed(p.code, `${p.path ? `${p.path}: ` : ''}${p.message}`, {
        suggestions: [`fix it first; see: loadout marketplace validate ${shownRoot}`],
      })
    }
    const {data} = read.json
    if (!isObject(data) || !Array.isArray(data.plugins)) {
      throw validationFailed('catalog-no-plugins', `${rel} must be a JSON object with a "plugins" list`, {
        suggestions: [`see: loadout marketplace validate ${shownRoot}`],
      })
    }
    open.push({abs, rel, format, text: read.json.text, bom: read.json.bom, mode: stat.mode & 0o777, data, plugins: data.plugins})
  }
  if (open.length === 0) {
    throw notFound('marketplace-missing', `${shownRoot} is not a marketplace: it has neither ${CATALOG_FILES.claude} nor ${CATALOG_FILES.codex}`, {
      suggestions: ['pass the marketplace folder with --marketplace-dir, or create one with: loadout marketplace create <name>'],
    })
  }
  return open
}

const authorOf = (value: unknown): PluginAuthor | undefined => {
  if (typeof value === 'string' && value.trim() !== '') return {name: value.trim()}
  if (!isObject(value) || typeof value.name !== 'string' || value.name.trim() === '') return undefined
  const author: PluginAuthor = {name: value.name}
  if (typeof value.email === 'string' && value.email !== '') author.email = value.email
  if (typeof value.url === 'string' && value.url !== '') author.url = value.url
  return author
}

/** The `./` path an entry of this catalog gives, resolved, or undefined for a remote one. */
const entryPath = (raw: unknown): string | undefined => {
  if (!isObject(raw)) return undefined
  const source = raw.source
  const path = typeof source === 'string' ? source : isObject(source) && source.source === 'local' && typeof source.path === 'string' ? source.path : undefined
  if (path === undefined || !(path === '.' || path.startsWith('./'))) return undefined
  const segments = path.split('/').filter((s) => s !== '' && s !== '.')
  return `./${segments.join('/')}`
}

export const addPluginToMarketplace = (input: AddPluginInput): PluginAddedToMarketplace => {
  const root = resolve(input.cwd, input.marketplaceDir)
  const shownRoot = input.marketplaceDir
  const realRoot = safeRealpath(root)
  if (!realRoot || !statSync(realRoot).isDirectory()) throw notFound('marketplace-missing', `the marketplace folder ${shownRoot} does not exist`)
  const catalogs = openCatalogs(root, shownRoot)

  const pluginAbs = resolve(input.cwd, input.plugin)
  let pluginIsDir: boolean
  try {
    pluginIsDir = statSync(pluginAbs).isDirectory()
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') throw notFound('plugin-missing', `${input.plugin} does not exist`)
    throw error
  }
  if (!pluginIsDir)
    throw usageError('plugin-not-folder', `${input.plugin} is not a folder; a plugin is a folder with a .claude-plugin/plugin.json or skills/, agents/, ...`)
  const realPlugin = safeRealpath(pluginAbs)!
  if (!isInside(realRoot, realPlugin)) {
    const via = isInside(root, pluginAbs) ? ` (it leads through a symbolic link to ${realPlugin})` : ''
    throw usageError(
      'plugin-outside-marketplace',
      `${input.plugin} is outside the marketplace folder ${shownRoot}${via}; a marketplace lists its own plugins by "./" path`,
      {
        suggestions: [`move or copy the plugin into ${join(shownRoot, 'plugins', basename(pluginAbs))}, then run this again`],
      },
    )
  }
  const rel = toSlash(relative(realRoot, realPlugin))
  const source = rel === '' ? './' : `./${rel}`

  const {manifests, problems} = readPluginManifests(realPlugin, realRoot)
  if (problems.length > 0) throw validationFailed(problems[0]!.code, `${problems[0]!.file}: ${problems[0]!.message}`)
  const named = manifests.filter((m) => typeof m.name === 'string')
  const names = [...new Set(named.map((m) => m.name as string))]
  if (names.length > 1) {
    throw validationFailed(
      'plugin-names-disagree',
      `the plugin's manifests disagree on its name: ${named.map((m) => `${m.file} says ${JSON.stringify(m.name)}`).join(', ')}`,
      {
        suggestions: ['give every manifest the same name'],
      },
    )
  }
  const manifest = named[0]
  const name = manifest ? (manifest.name as string) : basename(realPlugin)
  const rule = checkPluginName(name)
  if (rule) {
    const whence = manifest ? `${manifest.file} names the plugin` : `the plugin has no manifest, so its folder names it`
    throw validationFailed('invalid-name', `${whence} ${JSON.stringify(name)}, which ${rule}`, {
      suggestions: ['a plugin name is kebab-case: lowercase letters and digits in words joined by "-"'],
    })
  }
  const pick = (key: 'description' | 'version' | 'category'): string | undefined => {
    for (const m of manifests) if (typeof m[key] === 'string' && m[key] !== '') return m[key]
    return undefined
  }
  const description = pick('description')
  const version = pick('version')
  const author = manifests.map((m) => authorOf(m.author)).find(Boolean)

  for (const catalog of catalogs) {
    catalog.plugins.forEach((raw, index) => {
      if (isObject(raw) && raw.name === name) {
        throw conflict('plugin-already-listed', `${catalog.rel} already lists a plugin named "${name}" (plugins[${index}])`, {
          suggestions: ['rename the plugin, or remove the old entry first'],
        })
      }
      if (entryPath(raw) === source) {
        const other = isObject(raw) && typeof raw.name === 'string' ? `"${raw.name}"` : `plugins[${index}]`
        throw conflict('plugin-path-listed', `${catalog.rel} already lists ${source}, as ${other}`, {suggestions: ['each plugin folder is listed once']})
      }
    })
  }

  const added: PluginAddedToMarketplace['catalogs'] = []
  const writes: Array<{abs: string; text: string; mode: number}> = []
  for (const catalog of catalogs) {
    const entry: Record<string, unknown> =
      catalog.format === 'claude'
        ? {name, source, ...(description ? {description} : {}), ...(version ? {version} : {}), ...(author ? {author} : {})}
        : {
            name,
            source: {source: 'local', path: source},
            policy: {installation: CODEX_INSTALLATION[0], authentication: CODEX_AUTHENTICATION[0]},
            category: pick('category') ?? 'Productivity',
          }
    const text = applyEdits(catalog.text, [appendToArray(catalog.text, jsonLayout(catalog.text), 'plugins', entry)])
    // The edited catalog must read back with the new entry intact: the reader's rules are the last word.
    const data = parseJsonBounded(text, catalog.rel) as Record<string, unknown>
    const index = catalog.plugins.length
    const read = readCatalog({...data, name: 'check'}, {file: catalog.rel, origin: 'local', format: catalog.format})
    const broken = read.problems.find((p) => p.severity === 'error' && p.path?.startsWith(`plugins[${index}]`))
    if (broken || !read.catalog.plugins.some((p) => p.name === name)) {
      throw validationFailed(broken?.code ?? 'entry-invalid', `the entry for ${source} would be invalid: ${broken?.message ?? 'it does not read back'}`)
    }
    added.push({file: catalog.rel, format: catalog.format, entry})
    writes.push({abs: catalog.abs, text: (catalog.bom ? '\uFEFF' : '') + text, mode: catalog.mode})
  }

  const marketplaceName = catalogs.map((c) => c.data.name).find((n): n is string => typeof n === 'string') ?? basename(root)
  const result: PluginAddedToMarketplace = {
    marketplace: marketplaceName,
    root,
    plugin: name,
    source,
    ...(manifest ? {manifest: manifest.file} : {}),
    catalogs: added,
    dryRun: input.dryRun,
  }
  if (input.dryRun) return result
  try {
    for (const write of writes) writeFileAtomic(write.abs, write.text, write.mode)
  } catch (error) {
    throw explainWriteError(error)
  }
  return result
}
