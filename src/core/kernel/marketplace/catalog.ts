import {validationFailed} from '../../model/errors.js'
import {npmSpecRule} from '../sources/npm-spec.js'
import {entryKindOf, entryKindReading, type BrokenSource, type EntryChecks} from '../sources/kinds/entries.js'
import {problem, type Problem} from '../../model/problems.js'
import {skeleton} from '../text/name-skeleton.js'
import {checkMarketplaceName, checkPluginName} from '../text/names.js'
import type {Catalog, CatalogFormat, CatalogRead, DroppedEntry, PluginAuthor, PluginEntry, PluginSource} from '../../model/marketplace.js'
import {jsonPathJoin} from '../json/path.js'

/**
 * Reading a marketplace catalog (`.claude-plugin/marketplace.json`, Codex's
 * `.agents/plugins/marketplace.json`, or a bare JSON file at a catalog URL), leniently.
 *
 * The top level must be usable (an object with a valid `name` and a `plugins` array), or the read
 * throws. Below that, nothing throws: each entry is read on its own, and
 *  - an entry that breaks a rule (not an object, a bad or duplicate name, a missing or unsafe
 *    source) is skipped, with an `error` problem at its JSON path;
 *  - an optional field of the wrong type is dropped, with a `warning`, and the entry kept (a
 *    description that is a number should not hide a plugin that installs fine);
 *  - a source of a type loadout cannot fetch (pip, ...) is kept as `unsupported`, with a
 *    `warning` on that entry, so listing and search still show it.
 * Problems about a kept entry are also stored on the entry. Unknown fields are kept in `raw`
 * (entries may carry every plugin.json field) and unknown top-level fields are ignored.
 *
 * Severity says what happened to the thing: `error` means it was dropped because it broke a rule
 * (`validate` fails), `warning` means it was kept, minus a field, or kept but not installable.
 * Loading shows both as warnings and goes on.
 */

export type CatalogOrigin = 'git' | 'local' | 'url'

export interface ReadCatalogOptions {
  /** how the file is named in messages, e.g. `.claude-plugin/marketplace.json` */
  file: string
  /** how the catalog was fetched: a catalog fetched by URL has no folder beside it */
  origin: CatalogOrigin
  format?: CatalogFormat
}

const CATALOG_SHAPE = 'a catalog must be a JSON object with name and plugins'
const CATALOG_EXAMPLE = 'a catalog looks like {"name": "acme", "plugins": [{"name": "review", "source": "./plugins/review"}]}'

// Compiled once; every per-entry check below is a test against one of these or a loop.
const SHA1 = /^[0-9a-f]{40}$/i
const SHA256 = /^[0-9a-f]{64}$/i
const HEX = /^[0-9a-f]*$/i
const WINDOWS_DRIVE = /^[A-Za-z]:/
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/
const CONTROL = /[\u0000-\u001f\u007f]/
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/
const REF_FORBIDDEN = /[\u0000-\u0020\u007f~^:?*[\\]/
// owner/repo: each part letters, digits, "-", "_", "."; neither "." nor ".."; no leading "-".
const GITHUB_REPO = /^(?!-)(?!\.\.?\/)[A-Za-z0-9_.-]+\/(?!-)(?!\.\.?$)[A-Za-z0-9_.-]+$/
// The common shape of an https URL: a dotted host ending in letters (never read as an IPv4
// address), no port, no "@" anywhere (so no user name or password), plain path characters. A URL
// of this shape is valid as it stands, so it skips `new URL`; anything else takes the full check.
const PLAIN_HTTPS_URL = /^https:\/\/(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,63}(?:\/[A-Za-z0-9._~!$&'()*+,;=:%/-]*)?$/
const NOT_NORMAL = /\/\/|\/\.?$|\/\.\//
const SIMPLE_TYPE = /^[A-Za-z0-9._-]{1,40}$/

export const readCatalog = (data: unknown, options: ReadCatalogOptions): CatalogRead => {
  const {file} = options
  if (!isObject(data)) {
    throw validationFailed('catalog-not-object', `${file}: ${CATALOG_SHAPE}; this is ${typeName(data)}`, {suggestions: [CATALOG_EXAMPLE]})
  }
  if (!('name' in data)) throw validationFailed('catalog-missing-name', `${file}: ${CATALOG_SHAPE}; "name" is missing`, {suggestions: [CATALOG_EXAMPLE]})
  if (typeof data.name !== 'string') {
    throw validationFailed('catalog-missing-name', `${file}: ${CATALOG_SHAPE}; "name" is ${typeName(data.name)}, not a string`, {
      suggestions: [CATALOG_EXAMPLE],
    })
  }
  if (!('plugins' in data))
    throw validationFailed('catalog-missing-plugins', `${file}: ${CATALOG_SHAPE}; "plugins" is missing`, {suggestions: [CATALOG_EXAMPLE]})
  if (!Array.isArray(data.plugins)) {
    throw validationFailed('catalog-missing-plugins', `${file}: ${CATALOG_SHAPE}; "plugins" is ${typeName(data.plugins)}, not an array`, {
      suggestions: [CATALOG_EXAMPLE],
    })
  }
  const nameRule = checkMarketplaceName(data.name)
  if (nameRule) {
    throw validationFailed('catalog-bad-name', `${file}: marketplace name ${quoted(data.name)} ${nameRule}`, {
      suggestions: ['a marketplace name holds lowercase letters, digits, "-", "." and "_", and is at most 64 characters'],
    })
  }

  const read = new Reader(file, options.origin)
  const metadata = read.metadata(data.metadata)
  const catalog: Catalog = {
    name: data.name,
    format: 'claude',
    renames: read.renames(data.renames),
    plugins: [],
  }
  const description = read.text(data.description, '', 'description') ?? metadata.description
  if (description !== undefined) catalog.description = description
  const version = read.text(data.version, '', 'version') ?? metadata.version
  if (version !== undefined) catalog.version = version
  const owner = data.owner === undefined ? undefined : read.person(data.owner, 'owner')
  if (owner) catalog.owner = owner
  if (metadata.pluginRoot !== undefined) catalog.pluginRoot = metadata.pluginRoot
  if (read.removedNames.length > 0) catalog.removed = [...read.removedNames]

  const plugins = data.plugins as unknown[]
  let codexShaped = false
  for (let index = 0; index < plugins.length; index++) {
    const raw = plugins[index]
    codexShaped ||= isCodexShaped(raw)
    const entry = read.entry(raw, index, metadata.pluginRoot)
    if (entry) catalog.plugins.push(entry)
  }
  catalog.format = options.format ?? (codexShaped ? 'codex' : 'claude')
  return {catalog, problems: read.problems, dropped: read.dropped}
}

/** Codex entries carry `interface` or `policy` objects, or a `{source: "local"}` source. */
const isCodexShaped = (raw: unknown): boolean =>
  isObject(raw) && (isObject(raw.interface) || isObject(raw.policy) || (isObject(raw.source) && raw.source.source === 'local'))

interface Metadata {
  pluginRoot?: string
  description?: string
  version?: string
}

type Broken = BrokenSource

class Reader {
  readonly problems: Problem[] = []
  readonly dropped: DroppedEntry[] = []
  /** the name of the entry being read, once it is a string: a skip is recorded under it */
  private current: string | undefined
  /** warnings about the entry being read, stored on it if it is kept */
  private entryProblems: Problem[] = []
  /** plugin name -> index of the first usable entry with that name */
  private readonly firstAt = new Map<string, number>()
  /** skeleton (see kernel/text/name-skeleton.ts) -> the first usable name with it */
  private readonly bySkeleton = new Map<string, string>()
  /** renames whose new name is null: plugins the catalog removed */
  readonly removedNames: string[] = []
  /** metadata.pluginRoot was set but broke a rule, so bare names have nowhere to resolve */
  private pluginRootIgnored = false

  constructor(
    private readonly file: string,
    private readonly origin: CatalogOrigin,
  ) {}

  skip(code: string, message: string, path: string): undefined {
    this.problems.push(problem('error', code, message, {file: this.file, path}))
    if (this.current !== undefined) this.dropped.push({name: this.current, code, message})
    return undefined
  }

  warn(code: string, message: string, path: string): void {
    const found = problem('warning', code, message, {file: this.file, path})
    this.problems.push(found)
    this.entryProblems.push(found)
  }

  /** A field of the wrong type is dropped with a warning; the thing holding it is kept. */
  private wrongType(path: string, expected: string, value: unknown): undefined {
    this.warn('field-wrong-type', `${path} must be ${expected}, not ${typeName(value)}; the field is ignored`, path)
    return undefined
  }

  /**
   * An optional string field of the thing at `at` ('' for the top level). The path is built only
   * for a warning: this runs several times per entry of a 10,000-entry catalog.
   */
  text(value: unknown, at: string, field: string): string | undefined {
    if (value === undefined || typeof value === 'string') return value
    return this.wrongType(at === '' ? field : `${at}.${field}`, 'a string', value)
  }

  /** An array of strings; items that are not strings are dropped one by one, with a warning each. */
  private strings(value: unknown, at: string, field: string): string[] {
    if (!Array.isArray(value)) return this.wrongType(`${at}.${field}`, 'an array of strings', value) ?? []
    if (value.every(isString)) return value as string[]
    const kept: string[] = []
    value.forEach((item: unknown, i) => {
      if (typeof item === 'string') kept.push(item)
      else this.wrongType(`${at}.${field}[${i}]`, 'a string', item)
    })
    return kept
  }

  /** An author or owner: a name, or {name, email?, url?}. Without a usable name it is dropped. */
  person(value: unknown, path: string): PluginAuthor | undefined {
    if (typeof value === 'string') {
      if (value.trim() !== '') return {name: value}
      this.warn('field-empty', `${path} is empty; the field is ignored`, path)
      return undefined
    }
    if (!isObject(value)) return this.wrongType(path, 'a name or {name, email?, url?}', value)
    if (typeof value.name !== 'string' || value.name.trim() === '') {
      return this.wrongType(`${path}.name`, 'a non-empty string', value.name)
    }
    const person: PluginAuthor = {name: value.name}
    const email = this.text(value.email, path, 'email')
    if (email !== undefined) person.email = email
    const url = this.text(value.url, path, 'url')
    if (url !== undefined) person.url = url
    return person
  }

  metadata(value: unknown): Metadata {
    const found: Metadata = {}
    if (value === undefined) return found
    if (!isObject(value)) return this.wrongType('metadata', 'an object', value) ?? found
    const description = this.text(value.description, 'metadata', 'description')
    if (description !== undefined) found.description = description
    const version = this.text(value.version, 'metadata', 'version')
    if (version !== undefined) found.version = version
    const root = this.text(value.pluginRoot, 'metadata', 'pluginRoot')
    if (root !== undefined) {
      const rule = pathRule(root)
      // A pluginRoot that leaves the marketplace is dropped as an error: entries that rely on it
      // then fail on their own, each with its path, instead of resolving somewhere unsafe.
      if (rule) {
        this.skip('plugin-root-invalid', `metadata.pluginRoot ${quoted(root)} ${rule.rule}; it is ignored`, 'metadata.pluginRoot')
        this.pluginRootIgnored = true
      } else {
        found.pluginRoot = joinRelative(root)
      }
    }
    return found
  }

  /**
   * renames: old plugin name -> new plugin name. A pair that is not two valid plugin names, renames
   * a name to itself or is part of a cycle (a -> b -> a) is dropped with a warning, so a consumer
   * following renames always stops.
   */
  renames(value: unknown): Record<string, string> {
    // No prototype: a plugin may be called "constructor", and renames[name] must not find Object's.
    const renames: Record<string, string> = Object.create(null) as Record<string, string>
    if (value === undefined) return renames
    if (!isObject(value)) return this.wrongType('renames', 'an object of old name -> new name', value) ?? renames
    for (const [from, to] of Object.entries(value)) {
      const path = `${jsonPathJoin('renames', from)}`
      if (to === null && !checkPluginName(from)) {
        // null: the plugin was removed; an installed copy is shown as removed, never updated
        this.removedNames.push(from)
        continue
      }
      if (typeof to !== 'string') {
        this.wrongType(path, 'a string (the new plugin name) or null (removed)', to)
        continue
      }
      const fromRule = checkPluginName(from)
      const toRule = checkPluginName(to)
      const rule = fromRule
        ? `old name ${quoted(from)} ${fromRule}`
        : toRule
          ? `new name ${quoted(to)} ${toRule}`
          : from === to
            ? `renames ${quoted(from)} to itself`
            : undefined
      if (rule) {
        this.warn('rename-invalid', `${path}: ${rule}; the rename is ignored`, path)
        continue
      }
      renames[from] = to
    }
    // Cycles: walk each chain once; a chain that comes back to a name on the current walk is a cycle.
    const done = new Set<string>()
    for (const start of Object.keys(renames)) {
      const walk: string[] = []
      const onWalk = new Set<string>()
      let name: string | undefined = start
      while (name !== undefined && !done.has(name) && !onWalk.has(name)) {
        walk.push(name)
        onWalk.add(name)
        name = renames[name]
      }
      if (name !== undefined && onWalk.has(name)) {
        const cycle = walk.slice(walk.indexOf(name))
        for (const from of cycle) {
          this.warn(
            'rename-cycle',
            `${jsonPathJoin('renames', from)}: ${[...cycle, name].map((n) => quoted(n)).join(' -> ')} is a cycle; the rename is ignored`,
            `${jsonPathJoin('renames', from)}`,
          )
          delete renames[from]
        }
      }
      for (const n of walk) done.add(n)
    }
    return renames
  }

  /** One plugin entry, or undefined when it is skipped (its problem recorded). */
  entry(raw: unknown, index: number, pluginRoot: string | undefined): PluginEntry | undefined {
    const at = `plugins[${index}]`
    this.entryProblems = []
    this.current = isObject(raw) && typeof raw.name === 'string' ? raw.name : undefined
    try {
      return this.readEntry(raw, at, index, pluginRoot)
    } finally {
      this.current = undefined
    }
  }

  private readEntry(raw: unknown, at: string, index: number, pluginRoot: string | undefined): PluginEntry | undefined {
    if (!isObject(raw)) return this.skip('entry-not-object', `${at} must be an object with name and source, not ${typeName(raw)}; the entry is skipped`, at)
    if (typeof raw.name !== 'string') {
      return raw.name === undefined
        ? this.skip('entry-missing-name', `${at} has no name; the entry is skipped`, `${at}.name`)
        : this.skip('entry-name-not-string', `${at}.name must be a string, not ${typeName(raw.name)}; the entry is skipped`, `${at}.name`)
    }
    const name = raw.name
    const nameRule = checkPluginName(name)
    if (nameRule) return this.skip('entry-bad-name', `plugin name ${quoted(name)} ${nameRule}; the entry is skipped`, `${at}.name`)
    if (raw.source === undefined) return this.skip('entry-missing-source', `plugin ${quoted(name)} has no source; the entry is skipped`, `${at}.source`)

    const source = this.source(raw.source, pluginRoot)
    if ('code' in source) {
      const path = source.field ? `${at}.source.${source.field}` : `${at}.source`
      return this.skip(source.code, `plugin ${quoted(name)} is skipped: ${source.message}`, path)
    }
    // Duplicates: the first usable entry owns the name; one skipped for another rule does not
    // claim it. Checked before the optional fields, so a skipped duplicate warns only once.
    const first = this.firstAt.get(name)
    if (first !== undefined) {
      return this.skip('entry-duplicate-name', `plugin ${quoted(name)} is already listed at plugins[${first}]; this entry is skipped`, `${at}.name`)
    }
    const look = skeleton(name)
    const alike = this.bySkeleton.get(look)
    if (alike !== undefined) {
      return this.skip('entry-confusable-name', `plugin ${quoted(name)} looks like ${quoted(alike)}, already listed; this entry is skipped`, `${at}.name`)
    }
    this.bySkeleton.set(look, name)
    this.firstAt.set(name, index)
    if (!entryKindOf(source).supported && 'type' in source) {
      this.warn(
        'source-unsupported',
        `unsupported source type ${SIMPLE_TYPE.test(source.type) ? source.type : quoted(source.type)}: plugin ${quoted(name)} is listed but cannot be installed`,
        `${at}.source`,
      )
    }

    // Every optional field below is dropped alone when it has the wrong type: they describe the
    // plugin, they do not say what gets installed, so the entry stays usable without them.
    const entry: PluginEntry = {
      name,
      source,
      tags: raw.tags === undefined ? [] : this.strings(raw.tags, at, 'tags'),
      keywords: raw.keywords === undefined ? [] : this.strings(raw.keywords, at, 'keywords'),
      raw,
      problems: [],
    }
    const description = this.text(raw.description, at, 'description')
    if (description !== undefined) entry.description = description
    const version = this.text(raw.version, at, 'version')
    if (version !== undefined) entry.version = version
    const category = this.text(raw.category, at, 'category')
    if (category !== undefined) entry.category = category
    const homepage = this.text(raw.homepage, at, 'homepage')
    if (homepage !== undefined) entry.homepage = homepage
    if (typeof raw.strict === 'boolean') entry.strict = raw.strict
    else if (raw.strict !== undefined) this.wrongType(`${at}.strict`, 'true or false', raw.strict)
    const author = raw.author === undefined ? undefined : this.person(raw.author, `${at}.author`)
    if (author) entry.author = author
    entry.problems = this.entryProblems
    return entry
  }

  /**
   * Where an entry's plugin lives. A string is a path in the marketplace's repository; an object
   * names its type in `source`. Anything unsafe (a path out of the repository, a URL that is not
   * https or carries a password, a sha that is not a full commit) breaks the entry.
   */
  private source(value: unknown, pluginRoot: string | undefined): PluginSource | Broken {
    if (typeof value === 'string') return this.pathSource(value, pluginRoot)
    if (!isObject(value)) return {code: 'source-wrong-type', message: `source must be a "./path" or an object with a "source" type, not ${typeName(value)}`}
    const type = value.source
    if (typeof type !== 'string') {
      return type === undefined
        ? {
            code: 'source-missing-type',
            message: 'a source object needs a "source" field naming its type (github, url, git-subdir, local, archive, npm)',
            field: 'source',
          }
        : {code: 'source-wrong-type', message: `source.source must be a string naming the source type, not ${typeName(type)}`, field: 'source'}
    }
    const kind = entryKindReading(type)
    // pip and types not invented yet: kept, so the plugin is listed; the entry warns.
    if (!kind?.read) return {kind: 'unsupported', type}
    return kind.read(value, this.checks(pluginRoot))
  }

  /** The field checks a source kind reads its JSON with (entries.ts `read`). */
  private checks(pluginRoot: string | undefined): EntryChecks {
    return {
      string: (value, field, what) => (typeof value[field] === 'string' ? value[field] : missingOrWrong(field, value[field], what)),
      remoteUrl: (value) => this.remoteUrl(value),
      pinned: (source, value) => this.pinned(source, value),
      pathSource: (path) => this.pathSource(path, pluginRoot),
      insidePath: (path, field) => {
        const rule = pathRule(path)
        return rule ? {code: rule.code, message: `${field} ${quoted(path)} ${rule.rule}`, field} : joinRelative(path)
      },
      githubRepo: (repo) => {
        const rule = githubRepoRule(repo)
        return rule ? {code: 'source-bad-repo', message: `repo ${quoted(repo)} ${rule}`, field: 'repo'} : undefined
      },
      sha256: (digest) => {
        const rule = hexRule(digest, 64, 'sha256 digest')
        return rule ? {code: 'source-bad-sha256', message: `sha256 ${quoted(digest)} ${rule}`, field: 'sha256'} : undefined
      },
      npm: npmEntrySource,
      fetchedByUrl: this.origin === 'url',
      relativeUnderUrl,
      quoted,
    }
  }

  /**
   * A string source: `./path` is relative to the marketplace root (pluginRoot or not); a bare name
   * or path (`formatter`, `tools/fmt`) resolves under metadata.pluginRoot when the catalog sets one.
   */
  private pathSource(path: string, pluginRoot: string | undefined): PluginSource | Broken {
    if (SCHEME.test(path)) {
      return {
        code: 'source-not-path',
        message: `a source string is a "./path" in the marketplace; write a remote source as {"source": "url", "url": ...} or {"source": "github", "repo": ...}`,
      }
    }
    const rule = pathRule(path)
    if (rule) return {code: rule.code, message: `source path ${quoted(path)} ${rule.rule}`}
    let resolved: string
    if (path === '.' || path.startsWith('./')) resolved = joinRelative(path)
    else if (pluginRoot !== undefined) resolved = joinRelative(pluginRoot, path)
    else {
      const why = this.pluginRootIgnored ? 'metadata.pluginRoot, which would place it, was ignored' : 'or the catalog must set metadata.pluginRoot'
      return {code: 'source-not-relative', message: `source path ${quoted(path)} must start with "./" (${why})`}
    }
    if (this.origin === 'url') return relativeUnderUrl(path)
    return {kind: 'relative', path: resolved}
  }

  /** A remote `url`: https, parseable, with no user name or password (never echoed). */
  private remoteUrl(value: unknown): string | Broken {
    if (typeof value !== 'string') return missingOrWrong('url', value, 'an https URL')
    const rule = httpsUrlRule(value)
    return rule ? {code: rule.code, message: rule.message, field: 'url'} : value
  }

  /** ref and sha, optional on github, url and git-subdir sources. A bad pin breaks the entry. */
  private pinned(source: Extract<PluginSource, {kind: 'github' | 'url' | 'git-subdir'}>, value: Record<string, unknown>): PluginSource | Broken {
    const {ref, sha} = value
    if (ref !== undefined) {
      if (typeof ref !== 'string') return missingOrWrong('ref', ref, 'a branch or tag name')
      const rule = refRule(ref)
      if (rule) return {code: 'source-bad-ref', message: `ref ${quoted(ref)} ${rule}`, field: 'ref'}
      source.ref = ref
    }
    if (sha !== undefined) {
      if (typeof sha !== 'string') return missingOrWrong('sha', sha, 'a full 40-character commit sha')
      const rule = hexRule(sha, 40, 'commit sha')
      if (rule) return {code: 'source-bad-sha', message: `sha ${quoted(sha)} ${rule}`, field: 'sha'}
      source.sha = sha.toLowerCase()
    }
    return source
  }
}

interface PathRule {
  code: 'source-path-dotdot' | 'source-path-absolute' | 'source-path-invalid'
  rule: string
}

const ABSOLUTE: PathRule = {code: 'source-path-absolute', rule: 'is an absolute path; use a path relative to the marketplace, starting with "./"'}
const ABSOLUTE_WINDOWS: PathRule = {
  code: 'source-path-absolute',
  rule: 'is an absolute Windows path; use a path relative to the marketplace, starting with "./"',
}
const DOTDOT: PathRule = {code: 'source-path-dotdot', rule: 'has a ".." segment; paths must stay inside the marketplace'}
const EMPTY: PathRule = {code: 'source-path-invalid', rule: 'is empty'}
const BACKSLASHED: PathRule = {code: 'source-path-invalid', rule: 'contains a backslash; separate folders with "/"'}
const CONTROLLED: PathRule = {code: 'source-path-invalid', rule: 'contains a control character'}

/**
 * Why a path from a catalog is unsafe, or undefined. Both separators count when looking for `..`
 * and for absolute forms, so `..\x`, `\\server\share`, `C:\x` and `C:x` are caught on any system.
 * A backslash is refused outright: it separates folders on Windows and is a plain character
 * elsewhere, so the same catalog would mean two different things.
 */
const pathRule = (path: string): PathRule | undefined => {
  if (path.length === 0) return EMPTY
  const first = path.charAt(0)
  if (first === '/' || first === '\\') return ABSOLUTE
  if (WINDOWS_DRIVE.test(path)) return ABSOLUTE_WINDOWS
  let start = 0
  for (let i = 0; i <= path.length; i++) {
    const c = path.charCodeAt(i)
    if (i === path.length || c === 0x2f || c === 0x5c) {
      if (i - start === 2 && path.charCodeAt(start) === 0x2e && path.charCodeAt(start + 1) === 0x2e) return DOTDOT
      start = i + 1
    }
  }
  if (path.includes('\\')) return BACKSLASHED
  if (CONTROL.test(path)) return CONTROLLED
  return undefined
}

/** `./a/b` from relative parts, with `.` and empty segments removed; the root is `./`. */
const joinRelative = (...parts: string[]): string => {
  if (parts.length === 1 && parts[0]!.startsWith('./') && !NOT_NORMAL.test(parts[0]!)) return parts[0]!
  const segments: string[] = []
  for (const part of parts) for (const segment of part.split('/')) if (segment !== '' && segment !== '.') segments.push(segment)
  return `./${segments.join('/')}`
}

const relativeUnderUrl = (path: string, field?: string): Broken => ({
  code: 'source-relative-in-url-catalog',
  message: `source ${quoted(path)} is a path in the marketplace's repository, but this catalog was fetched by URL and only its JSON was downloaded; list the plugin with a github, url or archive source`,
  ...(field ? {field} : {}),
})

/** {"source": "npm", "package": "@acme/tools", "version": "^1.2.0", "registry": "https://..."} */
const npmEntrySource = (value: Record<string, unknown>): PluginSource | Broken => {
  const pkg = value.package
  if (typeof pkg !== 'string') return missingOrWrong('package', pkg, 'an npm package name')
  for (const field of ['version', 'registry'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string')
      return missingOrWrong(field, value[field], field === 'version' ? 'a version range' : 'an https URL')
  }
  const version = value.version as string | undefined
  const registry = value.registry as string | undefined
  if (registry !== undefined) {
    const rule = httpsUrlRule(registry)
    if (rule) return {code: rule.code, message: rule.message.replace(/^url/, 'registry'), field: 'registry'}
  }
  const rule = npmSpecRule({package: pkg, ...(version === undefined ? {} : {version})})
  if (rule) return {code: 'source-bad-npm', message: rule, field: rule.startsWith('package') ? 'package' : 'version'}
  return {kind: 'npm', package: pkg, ...(version === undefined ? {} : {version}), ...(registry === undefined ? {} : {registry})}
}

const missingOrWrong = (field: string, value: unknown, what: string): Broken =>
  value === undefined
    ? {code: 'source-missing-field', message: `the source needs "${field}": ${what}`, field}
    : {code: 'source-wrong-type', message: `source.${field} must be ${what}, not ${typeName(value)}`, field}

const httpsUrlRule = (value: string): {code: string; message: string} | undefined => {
  if (PLAIN_HTTPS_URL.test(value)) return undefined
  // The URL is echoed only once known to carry no credentials, and then only as parsed.
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return {code: 'source-bad-url', message: 'url is not a valid URL'}
  }
  if (url.username !== '' || url.password !== '') {
    return {
      code: 'source-url-credentials',
      message: `url ${url.protocol}//***@${url.host}${url.pathname} carries a user name or password; remove it (tokens come from LOADOUT_TOKEN or git's credential helpers)`,
    }
  }
  // new URL() quietly strips tabs and newlines and trims spaces; the text must already be clean.
  if (SPACE_OR_CONTROL.test(value)) return {code: 'source-bad-url', message: 'url contains whitespace or a control character'}
  if (url.protocol === 'http:') return {code: 'source-url-not-https', message: `url ${quoted(value)} uses http; remote sources must use https`}
  if (url.protocol !== 'https:') return {code: 'source-url-not-https', message: `url ${quoted(value)} is not an https URL; remote sources must use https`}
  if (url.hostname === '') return {code: 'source-bad-url', message: `url ${quoted(value)} has no host`}
  return undefined
}

const hexRule = (value: string, length: number, what: string): string | undefined => {
  if (length === 40 ? SHA1.test(value) : SHA256.test(value)) return undefined
  if (!HEX.test(value)) return `is not hexadecimal; a ${what} is ${length} characters of 0-9 and a-f`
  return `is ${value.length} characters long; a full ${what} is ${length} hexadecimal characters`
}

/** The parts of git's ref-name rules that matter here, plus no leading "-" (it would read as an option). */
const refRule = (ref: string): string | undefined => {
  if (ref === '') return 'is empty'
  if (ref.startsWith('-')) return 'starts with "-"'
  if (REF_FORBIDDEN.test(ref)) return 'contains a character git does not allow in a ref (space, ~ ^ : ? * [ \\ or a control character)'
  if (
    ref.includes('..') ||
    ref.includes('@{') ||
    ref.includes('//') ||
    ref.startsWith('/') ||
    ref.endsWith('/') ||
    ref.endsWith('.') ||
    ref.endsWith('.lock')
  ) {
    return 'is not a valid git ref name'
  }
  return undefined
}

const githubRepoRule = (repo: string): string | undefined => {
  if (GITHUB_REPO.test(repo)) return undefined
  const slash = repo.indexOf('/')
  if (slash === -1 || slash !== repo.lastIndexOf('/')) return 'must be "owner/repo"'
  return 'must be "owner/repo", each part letters, digits, "-", "_" or "." (not "." or "..", not starting with "-")'
}

const isString = (value: unknown): value is string => typeof value === 'string'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const typeName = (value: unknown): string => {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return 'a string'
  if (typeof value === 'number') return 'a number'
  if (typeof value === 'boolean') return 'a boolean'
  return typeof value
}

/** A string from the catalog as it is safe to print: JSON-quoted (no terminal escapes), cut short. */
const quoted = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)

/** `.key` for plain keys, `["odd key"]` for the rest, so a path reads like the JSON it points into. */
