/**
 * `loadout marketplace validate`: every problem of a marketplace's catalogs, each with its file,
 * JSON path, rule code and message, and (with `fix`) the mechanical ones repaired in place.
 *
 * Three layers find the problems, and one problem is reported once:
 *  1. reading: size, UTF-8, a byte-order mark, JSON syntax, repeated keys (marketplace-json.ts);
 *  2. shape: the JSON Schema registry/schemas/claude-marketplace.schema.json, compiled at build;
 *     a field the schema does not know is a warning, anything else it rejects an error;
 *  3. rules in code: the lenient catalog reader (names, path safety, URLs, pins, duplicates,
 *     renames) and the cross-field rules below (plugin folders exist and stay inside, a plugin's
 *     manifest names it as its entry does, Codex policy values, paths in normal form).
 * Where layers 2 and 3 report the same JSON path, the code's message (the more specific) is kept,
 * as an error when either layer says error.
 */
import {lstatSync, statSync} from 'node:fs'
import {entryKindOf} from '../../kernel/sources/kinds/entries.js'
import {join} from 'node:path'
import {resolvesInside, safeRealpath} from '../../kernel/fs/contain.js'
import {writeFileAtomic} from '../../kernel/fs/write.js'
import {readCatalog} from '../../kernel/marketplace/catalog.js'
import {checkMarketplaceName, checkPluginName} from '../../kernel/text/names.js'
import type {PluginEntry} from '../../model/marketplace.js'
import type {Problem, Severity} from '../../model/problems.js'
import {loadValidator, type CompiledValidator} from '../../kernel/json/schemas.js'
import {checkEntryFolders, type EntryFolder} from './marketplace-plugins.js'
import {locateCatalogs, MAX_AUTHORING_CATALOG_BYTES, readPluginManifests, type CatalogFile, type MarketplaceFormat} from './marketplace-files.js'
import {applyEdits, readAuthoringJson, type AuthoringJson, type TextEdit} from './marketplace-json.js'
import {jsonPathJoin, parentJsonPath, pointerToJsonPath} from '../../kernel/json/path.js'

export interface AuthoringProblem extends Problem {
  /** `--fix` can repair it */
  fixable?: boolean
}

/** One mechanical repair: the string at `path` in `file` goes from `from` to `to`. */
export interface MarketplaceFix {
  file: string
  /** the JSON path of the value, or '' for the byte-order mark */
  path: string
  code: string
  from: string
  to: string
}

export interface MarketplaceFileResult {
  file: string
  format: MarketplaceFormat
  name?: string
  /** entries in its `plugins` list */
  plugins: number
  problems: AuthoringProblem[]
}

export interface MarketplaceValidation {
  root: string
  files: MarketplaceFileResult[]
  problems: AuthoringProblem[]
  errors: number
  warnings: number
  strict: boolean
  valid: boolean
  /** what `--fix` changed (empty without it) */
  fixed: MarketplaceFix[]
}

export interface ValidateMarketplaceInput {
  path: string
  cwd: string
  strict?: boolean
  fix?: boolean
}

export const CODEX_INSTALLATION = ['AVAILABLE', 'INSTALLED_BY_DEFAULT', 'NOT_AVAILABLE'] as const
export const CODEX_AUTHENTICATION = ['ON_INSTALL', 'ON_USE'] as const

export const validateMarketplace = async (input: ValidateMarketplaceInput): Promise<MarketplaceValidation> => {
  const strict = input.strict === true
  const location = locateCatalogs(input.path, input.cwd)
  const validator = await loadValidator('claude-marketplace')
  const fixed: MarketplaceFix[] = []
  const files: MarketplaceFileResult[] = []
  for (const file of location.files) {
    let checked = checkCatalogFile(file, location.root, validator)
    if (input.fix && checked.fixes.length > 0 && checked.json) {
      const applied = applyFixes(file, checked.json, checked.fixes)
      if (applied.length > 0) {
        fixed.push(...applied)
        checked = checkCatalogFile(file, location.root, validator)
      }
    }
    files.push(checked.result)
    // the plugins the catalog holds, by the rules of `plugin validate`
    checked.result.problems.push(...(await checkEntryFolders(location.root, checked.folders, strict)))
  }
  const problems = files.flatMap((f) => f.problems)
  const errors = problems.filter((p) => p.severity === 'error').length
  const warnings = problems.length - errors
  return {root: location.root, files, problems, errors, warnings, strict, valid: errors === 0 && (!strict || warnings === 0), fixed}
}

interface Checked {
  result: MarketplaceFileResult
  json?: AuthoringJson
  fixes: MarketplaceFix[]
  /** the plugin folders its entries point at that exist inside the marketplace */
  folders: EntryFolder[]
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const typeName = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : typeof value === 'string'
          ? 'a string'
          : typeof value === 'number'
            ? 'a number'
            : typeof value === 'boolean'
              ? 'a boolean'
              : typeof value

const quoted = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)

/** Checks one catalog file; never throws for anything in the file. */
export const checkCatalogFile = (file: CatalogFile, root: string, validator: CompiledValidator): Checked => {
  const result: MarketplaceFileResult = {file: file.rel, format: file.format, plugins: 0, problems: []}
  const read = readAuthoringJson(file.abs, {root, file: file.rel, maxBytes: MAX_AUTHORING_CATALOG_BYTES})
  const fixes: MarketplaceFix[] = []
  const folders: EntryFolder[] = []
  const readProblems: AuthoringProblem[] = read.problems.map((p) => (p.code === 'json-bom' ? {...p, fixable: true} : p))
  if (!read.json) {
    result.problems = readProblems
    return {result, fixes, folders}
  }
  const {json} = read
  if (json.bom) fixes.push({file: file.rel, path: '', code: 'json-bom', from: '\uFEFF', to: ''})
  const data = json.data
  if (!isObject(data)) {
    const what = file.format === 'codex' ? 'name and plugins' : 'name, owner and plugins'
    result.problems = [
      ...readProblems,
      {severity: 'error', code: 'catalog-not-object', message: `${file.rel} must hold a JSON object with ${what}, not ${typeName(data)}`, file: file.rel},
    ]
    return {result, json, fixes, folders}
  }
  if (typeof data.name === 'string') result.name = data.name
  if (Array.isArray(data.plugins)) result.plugins = data.plugins.length

  const schemaProblems = shapeProblems(data, file, validator)
  const rules = new Rules(file, root, data, fixes, folders)
  const codeProblems = rules.run()
  result.problems = [...readProblems, ...merge(schemaProblems, codeProblems)]
  sortByPosition(result.problems, json)
  return {result, json, fixes, folders}
}

/** Schema errors as problems; for a Codex catalog, the Claude-only demands are dropped (checked in code instead). */
const shapeProblems = (data: Record<string, unknown>, file: CatalogFile, validator: CompiledValidator): AuthoringProblem[] => {
  if (validator(data)) return []
  const problems: AuthoringProblem[] = []
  const seen = new Set<string>()
  // ajv's errors carry the keyword that failed; kernel/json/schemas.ts types only what every caller needs.
  const errors = (validator.errors ?? []) as Array<{instancePath: string; keyword: string; message?: string; params?: Record<string, unknown>}>
  for (const error of errors) {
    if (error.keyword === 'if') continue
    const at = pointerToJsonPath(error.instancePath, data)
    const params = error.params ?? {}
    let found: AuthoringProblem
    switch (error.keyword) {
      case 'additionalProperties': {
        const key = String(params.additionalProperty)
        const path = jsonPathJoin(at, key)
        if (file.format === 'codex' && codexKnows(at, key)) continue
        found = {
          severity: 'warning',
          code: 'unknown-field',
          message: `${path} is not a field ${where(at)}; ${file.format === 'codex' ? 'Codex' : 'Claude Code'} ignores it (a typo?)`,
          path,
        }
        break
      }
      case 'required': {
        const key = String(params.missingProperty)
        if (file.format === 'codex' && at === '' && key === 'owner') continue
        const path = jsonPathJoin(at, key)
        found = {severity: 'error', code: 'field-missing', message: `${path} is required${REQUIRED_HINTS[key] ? `: ${REQUIRED_HINTS[key]}` : ''}`, path}
        break
      }
      case 'type': {
        const wanted = String(params.type).split(',').map(article).join(' or ')
        found = {
          severity: 'error',
          code: 'field-wrong-type',
          message: `${at || 'the catalog'} must be ${wanted}${at === 'owner' || at.endsWith('.author') ? ' ({"name": ..., "email": ...})' : ''}, not ${typeName(valueAt(data, error.instancePath))}`,
          path: at,
        }
        break
      }
      case 'pattern':
        found = {severity: 'error', code: 'field-invalid', message: `${at} ${patternRule(at)}`, path: at}
        break
      case 'minLength':
        found = {severity: 'error', code: 'field-empty', message: `${at} is empty`, path: at}
        break
      case 'maxLength':
        found = {severity: 'error', code: 'field-too-long', message: `${at} is longer than ${String(params.limit)} characters`, path: at}
        break
      default:
        found = {severity: 'error', code: `schema-${error.keyword}`, message: `${at || 'the catalog'} ${error.message ?? 'is invalid'}`, path: at}
    }
    const key = `${found.code} ${found.path}`
    if (seen.has(key)) continue
    seen.add(key)
    problems.push({...found, file: file.rel})
  }
  return problems
}

/** Fields a Codex catalog has that a Claude one does not. */
const codexKnows = (at: string, key: string): boolean =>
  (at === '' && key === 'interface') || (/^plugins\[\d+\]$/.test(at) && (key === 'policy' || key === 'interface'))

const where = (at: string): string => {
  if (at === '') return 'of a marketplace catalog'
  if (/^plugins\[\d+\]$/.test(at)) return 'of a plugin entry'
  if (/\.source$/.test(at)) return 'of this source type'
  return `of ${at}`
}

const article = (type: string): string =>
  ({object: 'an object', array: 'an array', string: 'a string', boolean: 'true or false', number: 'a number', integer: 'an integer', null: 'null'})[type] ??
  type

const REQUIRED_HINTS: Record<string, string> = {
  name: 'the id users type after "@", in kebab-case',
  owner: 'who maintains the marketplace, as {"name": ..., "email": ...}',
  plugins: 'the list of plugin entries (it may be empty)',
  source: 'where the plugin lives: a "./path" in the marketplace, or {"source": "github", "repo": "owner/repo"}',
  repo: 'the GitHub repository as "owner/repo"',
  url: 'an https URL',
  path: 'the plugin folder, a "./path"',
  package: 'the package name',
}

const patternRule = (at: string): string => {
  if (at.endsWith('.sha')) return 'must be a full commit sha: 40 hexadecimal characters'
  if (at.endsWith('.sha256')) return 'must be a sha256 digest: 64 hexadecimal characters'
  if (at.endsWith('.repo')) return 'must be "owner/repo"'
  if (at === 'name') return 'must be lowercase letters, digits, "-", "." and "_", starting with a letter or digit'
  if (at.endsWith('.name')) return 'must be kebab-case: lowercase letters and digits in words joined by single "-"'
  return 'has the wrong form'
}

const valueAt = (data: unknown, pointer: string): unknown => {
  let value = data
  if (pointer === '') return value
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    value = Array.isArray(value) ? value[Number(segment)] : isObject(value) ? value[segment] : undefined
  }
  return value
}

/**
 * Schema problems at a path the code also reports give way to the code's, which say more; the
 * severity is the worse of the two. One exception: for a field that is missing, the schema's
 * "is required" says it better than the reader's "must be a string, not undefined".
 */
const merge = (schema: AuthoringProblem[], code: AuthoringProblem[]): AuthoringProblem[] => {
  const missing = new Set(schema.filter((p) => p.code === 'field-missing').map((p) => p.path ?? ''))
  const kept = code.filter((p) => !(p.code === 'field-wrong-type' && missing.has(p.path ?? '')))
  const codePaths = new Set(kept.map((p) => p.path ?? ''))
  const schemaErrorPaths = new Set(schema.filter((p) => p.severity === 'error').map((p) => p.path ?? ''))
  const raised = kept.map((p) => (p.severity === 'warning' && schemaErrorPaths.has(p.path ?? '') ? {...p, severity: 'error' as Severity} : p))
  return [...schema.filter((p) => !codePaths.has(p.path ?? '')), ...raised]
}

/** Orders problems as their places appear in the file (a missing field sorts where its parent is). */
const sortByPosition = (problems: AuthoringProblem[], json: AuthoringJson): void => {
  const position = (p: AuthoringProblem): number => {
    if (!p.path) return -1
    for (let path: string | undefined = p.path; path !== undefined; path = parentJsonPath(path)) {
      const span = json.layout.spans.get(path)
      if (span) return span.start
    }
    return -1
  }
  const keyed = problems.map((p, i) => ({p, at: position(p), i}))
  keyed.sort((a, b) => a.at - b.at || a.i - b.i)
  problems.splice(0, problems.length, ...keyed.map((k) => k.p))
}

/** The entry-name problems after which the catalog reader stops looking at an entry. */
const NAME_SKIPS = new Set(['entry-bad-name', 'entry-name-not-string', 'entry-missing-name', 'entry-duplicate-name'])
const PLACEHOLDER = 'loadout-validate-placeholder'
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/
const WINDOWS_DRIVE = /^[A-Za-z]:/
const UNSAFE_CHARS = /[\\\u0000-\u001f\u007f]/

/** The cross-field rules of one catalog, in code. */
class Rules {
  private readonly problems: AuthoringProblem[] = []
  private readonly rel: string

  constructor(
    private readonly file: CatalogFile,
    private readonly root: string,
    private readonly data: Record<string, unknown>,
    private readonly fixes: MarketplaceFix[],
    private readonly folders: EntryFolder[],
  ) {
    this.rel = file.rel
  }

  private add(severity: Severity, code: string, message: string, path: string, fix?: {from: string; to: string}): void {
    this.problems.push({severity, code, message, file: this.rel, path, ...(fix ? {fixable: true} : {})})
    if (fix) this.fixes.push({file: this.rel, path, code, ...fix})
  }

  run(): AuthoringProblem[] {
    const {data} = this
    const nameOk = this.topName()
    const plugins = Array.isArray(data.plugins) ? (data.plugins as unknown[]) : []
    const metadata = data.metadata
    const pluginRoot = isObject(metadata) && typeof metadata.pluginRoot === 'string' ? metadata.pluginRoot : undefined

    // The lenient reader finds the entry rules; it needs a usable top level, so give it one.
    const read = readCatalog({...data, name: nameOk ? data.name : PLACEHOLDER, plugins}, {file: this.rel, origin: 'local', format: this.file.format})
    const entries: Array<{entry: PluginEntry; index: number; name: unknown}> = []
    const indexOf = new Map<unknown, number>()
    plugins.forEach((raw, index) => {
      if (!indexOf.has(raw)) indexOf.set(raw, index)
    })
    for (const entry of read.catalog.plugins) entries.push({entry, index: indexOf.get(entry.raw) ?? -1, name: entry.name})
    const codes = new Map<string, AuthoringProblem[]>()
    for (const p of read.problems) {
      const found: AuthoringProblem = {...p}
      this.problems.push(found)
      codes.set(p.path ?? '', [...(codes.get(p.path ?? '') ?? []), found])
    }

    // An entry skipped for its name is read again under a stand-in name, so its other problems show too.
    plugins.forEach((raw, index) => {
      if (!isObject(raw)) return
      const skippedForName = read.problems.some((p) => NAME_SKIPS.has(p.code) && p.path === `plugins[${index}].name`)
      if (!skippedForName) return
      const again = readCatalog(
        {name: PLACEHOLDER, metadata, plugins: [{...raw, name: PLACEHOLDER}]},
        {file: this.rel, origin: 'local', format: this.file.format},
      )
      const prefix = `plugins[${index}]`
      for (const p of again.problems) {
        if (!p.path?.startsWith('plugins[0]')) continue
        const path = prefix + p.path.slice('plugins[0]'.length)
        if (path === `${prefix}.name`) continue
        const found = {...p, path, message: p.message.replaceAll(`plugin "${PLACEHOLDER}"`, prefix)}
        this.problems.push(found)
        codes.set(path, [...(codes.get(path) ?? []), found])
      }
      const entry = again.catalog.plugins[0]
      if (entry) entries.push({entry, index, name: raw.name})
    })

    const names = new Set(plugins.map((raw) => (isObject(raw) && typeof raw.name === 'string' ? raw.name : undefined)).filter((n) => n !== undefined))
    plugins.forEach((raw, index) => {
      if (isObject(raw)) this.entry(raw, index, pluginRoot, names, codes)
    })
    for (const {entry, index, name} of entries) if (index >= 0) this.folder(entry, index, name)
    if (this.file.format === 'codex') this.codexTop()
    return this.problems
  }

  /** The marketplace's own name: loadout's rule, then kebab-case as Claude Code expects. Returns whether it is usable. */
  private topName(): boolean {
    const name = this.data.name
    if (typeof name !== 'string') return false
    const rule = checkMarketplaceName(name)
    if (rule) {
      const lower = name.toLowerCase()
      const fix = lower !== name && checkMarketplaceName(lower) === undefined ? {from: name, to: lower} : undefined
      this.add('error', 'name-invalid', `marketplace name ${quoted(name)} ${rule}${fix ? `; --fix makes it ${quoted(lower)}` : ''}`, 'name', fix)
      return false
    }
    if (checkPluginName(name) !== undefined) {
      this.add(
        'warning',
        'name-not-kebab-case',
        `marketplace name ${quoted(name)} is not kebab-case; Claude Code expects lowercase words joined by "-"`,
        'name',
      )
    }
    return true
  }

  /** Per-entry rules the reader does not have: name case, path form, source types per format, Codex policy. */
  private entry(raw: Record<string, unknown>, index: number, pluginRoot: string | undefined, names: Set<string>, codes: Map<string, AuthoringProblem[]>): void {
    const at = `plugins[${index}]`
    if (typeof raw.name === 'string') {
      const lower = raw.name.toLowerCase()
      const nameProblem = codes.get(`${at}.name`)?.find((p) => p.code === 'entry-bad-name')
      if (nameProblem && lower !== raw.name && checkPluginName(lower) === undefined && !names.has(lower)) {
        nameProblem.fixable = true
        nameProblem.message += `; --fix makes it ${quoted(lower)}`
        this.fixes.push({file: this.rel, path: `${at}.name`, code: 'entry-bad-name', from: raw.name, to: lower})
      }
    }
    const source = raw.source
    if (typeof source === 'string') this.pathForm(source, `${at}.source`, pluginRoot !== undefined, codes)
    else if (isObject(source) && source.source === 'local' && typeof source.path === 'string') this.pathForm(source.path, `${at}.source.path`, false, codes)
    if (this.file.format === 'claude' && isObject(source) && source.source === 'local') {
      this.add(
        'warning',
        'source-codex-only',
        `${at}.source: Claude Code has no "local" source type; write the path as a string, "${typeof source.path === 'string' ? source.path : './path'}"`,
        `${at}.source.source`,
      )
    }
    if (this.file.format === 'codex') this.codexEntry(raw, at)
  }

  /**
   * A path in the marketplace in normal form: `./` for the root rather than `.`, no trailing `/`,
   * no `//` or `/./`, and a leading `./` (which the reader demands unless metadata.pluginRoot lets
   * a bare name stand). Each is repaired by `--fix`; an unsafe path (`..`, absolute, a URL) is not.
   */
  private pathForm(path: string, at: string, bareAllowed: boolean, codes: Map<string, AuthoringProblem[]>): void {
    if (path === '' || SCHEME.test(path) || WINDOWS_DRIVE.test(path) || path.startsWith('/') || UNSAFE_CHARS.test(path)) return
    const segments = path.split('/')
    if (segments.includes('..')) return
    const rest = segments.filter((s) => s !== '' && s !== '.')
    const dotted = path === '.' || path.startsWith('./')
    const normal = dotted ? `./${rest.join('/')}` : rest.join('/')
    const notRelative = codes.get(at)?.find((p) => p.code === 'source-not-relative')
    if (notRelative && !dotted && !bareAllowed) {
      const to = `./${rest.join('/')}`
      notRelative.fixable = true
      notRelative.message += `; --fix makes it ${quoted(to)}`
      this.fixes.push({file: this.rel, path: at, code: 'source-not-relative', from: path, to})
      return
    }
    if (path === '.') {
      this.add('warning', 'path-dot', `source "." names the marketplace root; write it "./"`, at, {from: path, to: './'})
      return
    }
    if (normal !== path && normal !== '') {
      const why = path.endsWith('/') && path !== './' ? 'has a trailing "/"' : 'has an empty or "." segment'
      this.add('warning', 'path-not-normal', `source ${quoted(path)} ${why}; write ${quoted(normal)}`, at, {from: path, to: normal})
    }
  }

  /** The plugin folder of a relative or local source: it exists, is a folder, stays inside, and its manifest agrees on the name. */
  private folder(entry: PluginEntry, index: number, name: unknown): void {
    const kind = entryKindOf(entry.source)
    const path = kind.folder?.(entry.source as never)
    if (path === undefined) return
    const at = `plugins[${index}]`
    const label = typeof name === 'string' ? `plugin ${quoted(name)}` : at
    const pathAt = `${at}.${kind.folderAt ?? 'source'}`
    const shown = path
    const abs = join(this.root, path)
    let isDir: boolean
    try {
      lstatSync(abs)
      isDir = statSync(abs).isDirectory()
    } catch {
      this.add('error', 'plugin-path-missing', `${label} points at ${shown}, which does not exist in the marketplace`, pathAt)
      return
    }
    if (!resolvesInside(this.root, abs)) {
      this.add(
        'error',
        'plugin-path-outside',
        `${label} points at ${shown}, which leads through a symbolic link to ${safeRealpath(abs) ?? 'a missing target'}, outside the marketplace`,
        pathAt,
      )
      return
    }
    if (!isDir) {
      this.add('error', 'plugin-path-not-folder', `${label} points at ${shown}, which is a file; a plugin is a folder`, pathAt)
      return
    }
    this.folders.push({file: this.rel, at, pathAt, shown, abs})
    const {manifests, problems} = readPluginManifests(abs, this.root)
    this.problems.push(...problems)
    for (const manifest of manifests) {
      if (typeof manifest.name !== 'string' || typeof name !== 'string' || manifest.name === name) continue
      this.add(
        'error',
        'plugin-name-mismatch',
        `${label} points at ${shown}, whose ${manifest.file} names it ${quoted(manifest.name)}; the two names must be equal`,
        `${at}.name`,
      )
    }
  }

  private codexTop(): void {
    const iface = this.data.interface
    if (iface === undefined) return
    if (!isObject(iface)) {
      this.add('error', 'field-wrong-type', `interface must be an object such as {"displayName": "Acme Plugins"}, not ${typeName(iface)}`, 'interface')
      return
    }
    if (iface.displayName !== undefined && typeof iface.displayName !== 'string') {
      this.add('error', 'field-wrong-type', `interface.displayName must be a string, not ${typeName(iface.displayName)}`, 'interface.displayName')
    }
  }

  /** Codex entries: a policy with known values and a category, which Codex shows. */
  private codexEntry(raw: Record<string, unknown>, at: string): void {
    const policy = raw.policy
    if (policy === undefined) {
      this.add(
        'warning',
        'codex-policy-missing',
        `${at} has no policy; Codex expects {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}`,
        `${at}.policy`,
      )
    } else if (!isObject(policy)) {
      this.add('error', 'field-wrong-type', `${at}.policy must be an object, not ${typeName(policy)}`, `${at}.policy`)
    } else {
      const check = (key: string, allowed: readonly string[]) => {
        const value = policy[key]
        if (value === undefined) return
        if (typeof value !== 'string' || !allowed.includes(value)) {
          this.add(
            'warning',
            'codex-policy-value',
            `${at}.policy.${key} is ${typeof value === 'string' ? quoted(value) : typeName(value)}; Codex knows ${allowed.join(', ')}`,
            `${at}.policy.${key}`,
          )
        }
      }
      check('installation', CODEX_INSTALLATION)
      check('authentication', CODEX_AUTHENTICATION)
    }
    if (raw.category === undefined)
      this.add('warning', 'codex-category-missing', `${at} has no category; Codex groups plugins by it (e.g. "Productivity")`, `${at}.category`)
    if (raw.interface !== undefined && !isObject(raw.interface)) {
      this.add('error', 'field-wrong-type', `${at}.interface must be an object, not ${typeName(raw.interface)}`, `${at}.interface`)
    }
  }
}

/**
 * Applies the repairs to the file's text, value by value (each checked to still hold what the
 * check saw), and writes it back atomically with its mode kept. A file that is a link is not
 * rewritten (that would replace the link); nothing is returned for it.
 */
const applyFixes = (file: CatalogFile, json: AuthoringJson, fixes: readonly MarketplaceFix[]): MarketplaceFix[] => {
  const stat = lstatSync(file.abs)
  if (!stat.isFile()) return []
  const edits: TextEdit[] = []
  const applied: MarketplaceFix[] = []
  const taken = new Set<string>()
  for (const fix of fixes) {
    if (fix.code === 'json-bom') {
      applied.push(fix)
      continue
    }
    if (taken.has(fix.path)) continue
    const span = json.layout.spans.get(fix.path)
    if (!span) continue
    let current: unknown
    try {
      current = JSON.parse(json.text.slice(span.start, span.end))
    } catch {
      continue
    }
    if (current !== fix.from) continue
    taken.add(fix.path)
    edits.push({start: span.start, end: span.end, text: JSON.stringify(fix.to)})
    applied.push(fix)
  }
  if (applied.length === 0) return []
  writeFileAtomic(file.abs, applyEdits(json.text, edits), stat.mode & 0o777)
  return applied
}
