import {describe, expect, it} from 'vitest'
import {readCatalog, type CatalogOrigin} from '../../src/core/kernel/marketplace/catalog.js'
import {MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBounded} from '../../src/core/kernel/json/json-depth.js'
import {checkMarketplaceName, checkPluginName} from '../../src/core/kernel/text/names.js'
import type {CatalogFormat, PluginEntry} from '../../src/core/model/marketplace.js'
import {LoadoutError} from '../../src/core/model/errors.js'

const FILE = '.claude-plugin/marketplace.json'
const SHA = 'a'.repeat(40)

const read = (data: unknown, origin: CatalogOrigin = 'git', format?: CatalogFormat) => readCatalog(data, {file: FILE, origin, ...(format ? {format} : {})})

/** A catalog whose plugins are `entries`, plus a well-formed entry "good" last. */
const withEntries = (...entries: unknown[]) => ({name: 'acme', plugins: [...entries, {name: 'good', source: './plugins/good'}]})

const names = (plugins: PluginEntry[]) => plugins.map((p) => p.name)

/** The error a function throws (fails the test when it throws nothing). */
const thrown = (fn: () => unknown): LoadoutError => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(LoadoutError)
    return error as LoadoutError
  }
  throw new Error('expected a LoadoutError, nothing was thrown')
}

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth)

describe('parseJsonBounded', () => {
  it('parses JSON', () => {
    expect(parseJsonBounded('{"name": "acme", "plugins": [1, -2.5e3, true, false, null, "a\\"\\u00e9"]}', FILE)).toEqual({
      name: 'acme',
      plugins: [1, -2500, true, false, null, 'a"é'],
    })
  })

  it('refuses text that is not JSON, naming the file and where', () => {
    const error = thrown(() => parseJsonBounded('{\n  "name": "acme",\n  "plugins": [1 2]\n}', FILE))
    expect(error.code).toBe('catalog-not-json')
    expect(error.exitStatus).toBe(4)
    expect(error.message).toContain(FILE)
    expect(error.message).toContain('expected "," or "]" after an array element')
    expect(error.message).toContain('line 3, column 17')
  })

  it.each([
    ['', 'the text is empty'],
    ['<html>not json</html>', 'expected a value, found "<"'],
    ['{"a": 1,}', 'expected a double-quoted property name, found "}"'],
    ['[1,]', 'expected a value, found "]"'],
    ['{"a" 1}', 'expected ":" after a property name'],
    ['{"a": "b}', 'a string that is never closed'],
    ['{"a": 01}', 'expected "," or "}" after a property'],
    ['{"a": 1.}', 'a malformed number'],
    ['{"a": "\\x"}', 'unknown escape \\x'],
    ['{"a": "\\u12"}', 'four hexadecimal digits'],
    ['{"a": "tab\there"}', 'a control character in a string'],
    ['{"a": 1} {"b": 2}', 'after the end of the JSON value'],
    ['{', 'expected a double-quoted property name, found the end of the text'],
    ["{'a': 1}", 'expected a double-quoted property name'],
    ['{"a": tru}', 'expected a value'],
  ])('refuses %j: %s', (text, message) => {
    const error = thrown(() => parseJsonBounded(text, FILE))
    expect(error.code).toBe('catalog-not-json')
    expect(error.message.startsWith(`${FILE}: not valid JSON: `)).toBe(true)
    expect(error.message).toContain(message)
    expect(error.message).toMatch(/ at line 1, column \d+$/)
  })

  it('agrees with JSON.parse on what is valid', () => {
    const samples = [
      '0',
      '-0',
      '1e5',
      '1E+5',
      '1e-5',
      '-1.5',
      '"\\/\\b\\f\\n\\r\\t"',
      '[]',
      '{}',
      ' [ ] ',
      '[[],{}]',
      '{"a":{"b":[null]}}',
      '00',
      '-',
      '1e',
      '.5',
      '+1',
      '[,]',
      '{,}',
      '[1,,2]',
      '{"a":}',
      '{"a"}',
      'nul',
      'True',
      '"\u0001"',
      '[1]]',
      '[[1]',
      '"a\\u00ZZ"',
    ]
    for (const text of samples) {
      let native = true
      try {
        JSON.parse(text)
      } catch {
        native = false
      }
      let ours = true
      try {
        parseJsonBounded(text, FILE)
      } catch {
        ours = false
      }
      expect(ours, text).toBe(native)
    }
  })

  it('skips a byte-order mark', () => {
    expect(parseJsonBounded('\ufeff{"name": "acme"}', FILE)).toEqual({name: 'acme'})
  })

  it(`accepts exactly ${MAX_JSON_DEPTH} levels`, () => {
    expect(() => parseJsonBounded(nested(64), FILE)).not.toThrow()
    expect(() => parseJsonBounded(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`, FILE)).not.toThrow()
  })

  it('counts only the brackets outside strings, past escaped quotes', () => {
    const inString = `{"a": "${'[{'.repeat(100)}\\\\", "b": "\\"${'['.repeat(100)}", "c": [[1]]}`
    expect(nestsDeeperThan(inString, 3)).toBe(false)
    expect(nestsDeeperThan(inString, 2)).toBe(true)
    expect(parseJsonBounded(inString, FILE)).toMatchObject({c: [[1]]})
    expect(thrown(() => parseJsonBounded(inString, FILE, 2)).code).toBe('catalog-too-deep')
  })

  it('refuses one level more than the limit, naming the file', () => {
    const error = thrown(() => parseJsonBounded(nested(65), FILE))
    expect(error.code).toBe('catalog-too-deep')
    expect(error.message).toBe(`${FILE}: JSON nests more than 64 levels deep (at line 1, column 65)`)
    expect(thrown(() => parseJsonBounded(`${'{"a":'.repeat(65)}1${'}'.repeat(65)}`, FILE)).code).toBe('catalog-too-deep')
  })

  it('refuses 100,000 levels with a message, not a stack overflow', () => {
    for (const text of [nested(100_000), '['.repeat(100_000), `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`]) {
      const error = thrown(() => parseJsonBounded(text, FILE))
      expect(error).not.toBeInstanceOf(RangeError)
      expect(error.code).toBe('catalog-too-deep')
    }
  })

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({name: 'acme', note: `\\"${'['.repeat(100_000)}`})
    expect(parseJsonBounded(text, FILE)).toEqual({name: 'acme', note: `\\"${'['.repeat(100_000)}`})
  })

  it('counts brackets after a string that ends in an escaped backslash', () => {
    expect(thrown(() => parseJsonBounded(`["\\\\", ${nested(64)}]`, FILE)).code).toBe('catalog-too-deep')
    expect(parseJsonBounded(`["\\\\", ${nested(63)}]`, FILE)).toHaveLength(2)
  })

  it('reports the first mistake: a syntax error before the text gets too deep', () => {
    const error = thrown(() => parseJsonBounded(`[1 2, ${'['.repeat(100_000)}`, FILE))
    expect(error.code).toBe('catalog-not-json')
    expect(error.message).toBe(`${FILE}: not valid JSON: expected "," or "]" after an array element, found "2" at line 1, column 4`)
  })

  it('takes a smaller limit', () => {
    expect(thrown(() => parseJsonBounded('[[[]]]', FILE, 2)).code).toBe('catalog-too-deep')
  })
})

describe('checkMarketplaceName', () => {
  it.each(['acme', 'acme-tools', 'acme.tools_v2', '0day', 'a'.repeat(64)])('accepts %j', (name) => {
    expect(checkMarketplaceName(name)).toBeUndefined()
  })

  it.each([
    ['', 'is empty'],
    ['a'.repeat(65), 'is 65 characters long; the limit is 64'],
    ['Acme', 'upper-case'],
    ['acme/tools', 'path separator'],
    ['acme\\tools', 'path separator'],
    ['acme..tools', '".."'],
    ['..', 'path separator'.length ? '".."' : ''],
    ['acme@tools', '"@"'],
    ['acme tools', 'whitespace'],
    ['acme\ttools', 'whitespace'],
    ['.acme', 'starts with "."'],
    ['-acme', 'starts with "-"'],
    ['acme!', 'may hold only lowercase letters, digits, "-", "." and "_"'],
    ['acmé', 'may hold only'],
  ])('refuses %j: %s', (name, rule) => {
    expect(checkMarketplaceName(name)).toContain(rule)
  })
})

describe('checkPluginName', () => {
  it.each(['review', 'code-review', 'a1-b2', 'x', 'a'.repeat(64)])('accepts %j', (name) => {
    expect(checkPluginName(name)).toBeUndefined()
  })

  it.each([
    ['', 'is empty'],
    ['a'.repeat(65), 'is 65 characters long'],
    ['Review', 'upper-case'],
    ['code review', 'whitespace'],
    ['code_review', 'kebab-case'],
    ['code.review', 'kebab-case'],
    ['-review', 'starts or ends with "-"'],
    ['review-', 'starts or ends with "-"'],
    ['code--review', 'two hyphens'],
    ['..', '".."'],
    ['a/b', 'path separator'],
    ['a\\b', 'path separator'],
  ])('refuses %j: %s', (name, rule) => {
    expect(checkPluginName(name)).toContain(rule)
  })
})

describe('readCatalog: the top level', () => {
  it.each([
    [[], 'this is an array'],
    ['acme', 'this is a string'],
    [null, 'this is null'],
    [42, 'this is a number'],
  ])('refuses %j, naming the file', (data, what) => {
    const error = thrown(() => read(data))
    expect(error.code).toBe('catalog-not-object')
    expect(error.exitStatus).toBe(4)
    expect(error.message).toBe(`${FILE}: a catalog must be a JSON object with name and plugins; ${what}`)
  })

  it('refuses a catalog without a name, naming the file', () => {
    const error = thrown(() => read({plugins: []}))
    expect(error.code).toBe('catalog-missing-name')
    expect(error.message).toBe(`${FILE}: a catalog must be a JSON object with name and plugins; "name" is missing`)
    expect(thrown(() => read({name: 7, plugins: []})).message).toBe(
      `${FILE}: a catalog must be a JSON object with name and plugins; "name" is a number, not a string`,
    )
  })

  it('refuses a catalog without plugins, naming the file', () => {
    const error = thrown(() => read({name: 'acme'}))
    expect(error.code).toBe('catalog-missing-plugins')
    expect(error.message).toBe(`${FILE}: a catalog must be a JSON object with name and plugins; "plugins" is missing`)
    expect(thrown(() => read({name: 'acme', plugins: {}})).message).toContain('"plugins" is an object, not an array')
  })

  it('checks the shape before the name', () => {
    expect(thrown(() => read({name: 'Not Valid'})).code).toBe('catalog-missing-plugins')
  })

  it.each(['Acme', 'acme/evil', '../acme', 'acme@x', '', 'a b'])('refuses the marketplace name %j', (name) => {
    const error = thrown(() => read({name, plugins: []}))
    expect(error.code).toBe('catalog-bad-name')
    expect(error.message).toContain(`${FILE}: marketplace name ${JSON.stringify(name)}`)
  })

  it('reads an empty plugins array', () => {
    expect(read({name: 'acme', plugins: []})).toEqual({
      catalog: {name: 'acme', format: 'claude', renames: {}, plugins: []},
      problems: [],
      dropped: [],
    })
  })

  it('reads the metadata and ignores unknown top-level fields', () => {
    const {catalog, problems} = read({
      $schema: 'https://example.com/schema.json',
      name: 'acme',
      owner: {name: 'Acme Inc', email: 'dev@acme.test', url: 'https://acme.test', extra: 1},
      description: 'Tools',
      version: '1.2.0',
      metadata: {pluginRoot: './plugins', other: true},
      somethingNew: {a: 1},
      plugins: [],
    })
    expect(problems).toEqual([])
    expect(catalog).toEqual({
      name: 'acme',
      format: 'claude',
      owner: {name: 'Acme Inc', email: 'dev@acme.test', url: 'https://acme.test'},
      description: 'Tools',
      version: '1.2.0',
      pluginRoot: './plugins',
      renames: {},
      plugins: [],
    })
  })

  it('falls back to metadata.description and metadata.version', () => {
    const {catalog} = read({name: 'acme', owner: 'Acme', metadata: {description: 'From metadata', version: '0.3.0'}, plugins: []})
    expect(catalog.description).toBe('From metadata')
    expect(catalog.version).toBe('0.3.0')
    expect(catalog.owner).toEqual({name: 'Acme'})
    expect(read({name: 'acme', description: 'Top', metadata: {description: 'From metadata'}, plugins: []}).catalog.description).toBe('Top')
  })
})

describe('readCatalog: entries', () => {
  it('reads every documented field', () => {
    const entry = {
      name: 'review',
      source: './plugins/review',
      description: 'Reviews code',
      version: '2.0.0',
      author: {name: 'Ada', email: 'ada@acme.test', url: 'https://ada.test'},
      category: 'quality',
      tags: ['review'],
      keywords: ['lint', 'pr'],
      homepage: 'https://acme.test/review',
      strict: false,
      commands: ['./commands/review.md'],
      mcpServers: {db: {command: 'db-server'}},
    }
    const {catalog, problems} = read({name: 'acme', plugins: [entry]})
    expect(problems).toEqual([])
    expect(catalog.plugins).toEqual([
      {
        name: 'review',
        source: {kind: 'relative', path: './plugins/review'},
        description: 'Reviews code',
        version: '2.0.0',
        author: {name: 'Ada', email: 'ada@acme.test', url: 'https://ada.test'},
        category: 'quality',
        tags: ['review'],
        keywords: ['lint', 'pr'],
        homepage: 'https://acme.test/review',
        strict: false,
        raw: entry,
        problems: [],
      },
    ])
  })

  it('reads an author given as a string', () => {
    expect(read(withEntries({name: 'a', source: './a', author: 'Ada'})).catalog.plugins[0]!.author).toEqual({name: 'Ada'})
  })

  it('reads 10,000 plugins, all of them, fast', () => {
    const plugins = Array.from({length: 10_000}, (_, i) => ({
      name: `plugin-${i}`,
      source:
        i % 3 === 0
          ? `./plugins/plugin-${i}`
          : i % 3 === 1
            ? {source: 'github', repo: `acme/plugin-${i}`, sha: SHA}
            : {source: 'url', url: `https://git.acme.test/p${i}.git`, ref: 'main'},
      description: `Plugin number ${i}`,
      version: '1.0.0',
      author: {name: 'Acme'},
      tags: ['a', 'b'],
      keywords: ['c'],
      category: 'tools',
    }))
    const text = JSON.stringify({name: 'big', plugins}, null, 2)
    // The whole read: depth scan, parse, entries. Best of five, so a busy machine (tests run in
    // parallel) measures the code rather than the scheduler; the first run also warms up the JIT.
    let best = Infinity
    let result: ReturnType<typeof read> | undefined
    for (let run = 0; run < 5; run++) {
      const started = performance.now()
      result = readCatalog(parseJsonBounded(text, FILE), {file: FILE, origin: 'git'})
      best = Math.min(best, performance.now() - started)
    }
    console.log(`10,000-entry catalog (${(text.length / 1e6).toFixed(1)} MB): parse + read in ${best.toFixed(1)} ms (best of 5)`)
    const {catalog, problems} = result!
    expect(problems).toEqual([])
    expect(catalog.plugins).toHaveLength(10_000)
    expect(catalog.plugins[9_999]!.name).toBe('plugin-9999')
    expect(catalog.plugins[9_999]!.source).toEqual({kind: 'relative', path: './plugins/plugin-9999'})
  })

  it('reads 10,000 duplicates without a quadratic check', () => {
    const plugins = Array.from({length: 10_000}, () => ({name: 'same', source: './same'}))
    const {catalog, problems} = read({name: 'dupes', plugins})
    expect(catalog.plugins).toHaveLength(1)
    expect(problems).toHaveLength(9_999)
  })

  it('skips entries that are not objects', () => {
    const {catalog, problems} = read(withEntries(null, 'review', ['review'], 3))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([
      ['error', 'entry-not-object', 'plugins[0]'],
      ['error', 'entry-not-object', 'plugins[1]'],
      ['error', 'entry-not-object', 'plugins[2]'],
      ['error', 'entry-not-object', 'plugins[3]'],
    ])
    expect(problems[0]!.message).toBe('plugins[0] must be an object with name and source, not null; the entry is skipped')
    expect(problems[0]!.file).toBe(FILE)
  })

  it('skips entries without a valid name', () => {
    const {catalog, problems} = read(withEntries({source: './x'}, {name: 'Bad Name', source: './x'}, {name: 'a/b', source: './x'}, {name: '..', source: './x'}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['entry-missing-name', 'plugins[0].name'],
      ['entry-bad-name', 'plugins[1].name'],
      ['entry-bad-name', 'plugins[2].name'],
      ['entry-bad-name', 'plugins[3].name'],
    ])
    expect(problems[1]!.message).toBe('plugin name "Bad Name" contains whitespace; use kebab-case (lowercase words joined by "-"); the entry is skipped')
  })

  it('skips an entry without a source', () => {
    const {catalog, problems} = read(withEntries({name: 'review'}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems).toEqual([
      {severity: 'error', code: 'entry-missing-source', message: 'plugin "review" has no source; the entry is skipped', file: FILE, path: 'plugins[0].source'},
    ])
  })

  it('skips a later duplicate, naming the first', () => {
    const {catalog, problems} = read(withEntries({name: 'review', source: './one'}, {name: 'lint', source: './lint'}, {name: 'review', source: './two'}))
    expect(names(catalog.plugins)).toEqual(['review', 'lint', 'good'])
    expect(catalog.plugins[0]!.source).toEqual({kind: 'relative', path: './one'})
    expect(problems).toEqual([
      {
        severity: 'error',
        code: 'entry-duplicate-name',
        message: 'plugin "review" is already listed at plugins[0]; this entry is skipped',
        file: FILE,
        path: 'plugins[2].name',
      },
    ])
  })

  it('lets a usable entry take the name of an earlier skipped one', () => {
    const {catalog, problems} = read(withEntries({name: 'review', source: '../evil'}, {name: 'review', source: './review'}))
    expect(names(catalog.plugins)).toEqual(['review', 'good'])
    expect(problems.map((p) => p.code)).toEqual(['source-path-dotdot'])
  })

  it('keeps unknown entry fields in raw, without a warning', () => {
    const entry = {name: 'review', source: './review', hooks: './hooks/hooks.json', lspServers: {}, whatever: [1, 2]}
    const {catalog, problems} = read({name: 'acme', plugins: [entry]})
    expect(problems).toEqual([])
    expect(catalog.plugins[0]!.raw).toEqual(entry)
  })

  it('quotes what it prints from the catalog, so terminal escapes stay inert', () => {
    const {problems} = read(withEntries({name: 'evil\u001b[2Jname', source: './x'}))
    expect(problems[0]!.message).toContain('"evil\\u001b[2Jname"')
    expect(problems[0]!.message).not.toContain('\u001b')
  })
})

describe('readCatalog: wrong types, one field at a time', () => {
  // Fields that describe a plugin are dropped alone: the entry is kept, with a warning.
  it.each([
    ['description', 42, 'plugins[0].description', 'must be a string, not a number'],
    ['version', 1.2, 'plugins[0].version', 'must be a string, not a number'],
    ['category', ['tools'], 'plugins[0].category', 'must be a string, not an array'],
    ['homepage', {url: 'https://x.test'}, 'plugins[0].homepage', 'must be a string, not an object'],
    ['tags', 'review', 'plugins[0].tags', 'must be an array of strings, not a string'],
    ['keywords', {a: 1}, 'plugins[0].keywords', 'must be an array of strings, not an object'],
    ['strict', 'true', 'plugins[0].strict', 'must be true or false, not a string'],
    ['author', 7, 'plugins[0].author', 'must be a name or {name, email?, url?}, not a number'],
    ['author', {email: 'a@b.test'}, 'plugins[0].author.name', 'must be a non-empty string, not undefined'],
    ['author', {name: 5}, 'plugins[0].author.name', 'must be a non-empty string, not a number'],
  ])('%s = %j: the field is dropped, the entry kept', (field, value, path, rule) => {
    const {catalog, problems} = read(withEntries({name: 'review', source: './review', description: 'kept', [field]: value}))
    expect(names(catalog.plugins)).toEqual(['review', 'good'])
    const review = catalog.plugins[0]!
    expect(review[field as keyof PluginEntry]).toEqual(field === 'tags' || field === 'keywords' ? [] : field === 'description' ? undefined : undefined)
    if (field !== 'description') expect(review.description).toBe('kept')
    const warning = {severity: 'warning', code: 'field-wrong-type', message: `${path} ${rule}; the field is ignored`, file: FILE, path}
    expect(problems).toEqual([warning])
    expect(review.problems).toEqual([warning])
    expect(catalog.plugins[1]!.problems).toEqual([])
  })

  it('drops an empty author name with a warning', () => {
    const {catalog, problems} = read(withEntries({name: 'review', source: './review', author: ' '}))
    expect(catalog.plugins[0]!.author).toBeUndefined()
    expect(problems.map((p) => [p.severity, p.code, p.path, p.message])).toEqual([
      ['warning', 'field-empty', 'plugins[0].author', 'plugins[0].author is empty; the field is ignored'],
    ])
  })

  it.each([
    ['email', 5],
    ['url', false],
  ])('author.%s of the wrong type is dropped, the author kept', (field, value) => {
    const {catalog, problems} = read(withEntries({name: 'review', source: './review', author: {name: 'Ada', [field]: value}}))
    expect(catalog.plugins[0]!.author).toEqual({name: 'Ada'})
    expect(problems.map((p) => [p.severity, p.path])).toEqual([['warning', `plugins[0].author.${field}`]])
  })

  it.each(['tags', 'keywords'])('a non-string item in %s is dropped alone', (field) => {
    const {catalog, problems} = read(withEntries({name: 'review', source: './review', [field]: ['a', 2, 'b', null]}))
    expect(catalog.plugins[0]![field as 'tags' | 'keywords']).toEqual(['a', 'b'])
    expect(problems.map((p) => p.path)).toEqual([`plugins[0].${field}[1]`, `plugins[0].${field}[3]`])
  })

  // Fields that say what gets installed break the entry: it is skipped, with an error.
  it.each([
    ['name', {name: 5, source: './x'}, 'plugins[0].name', 'entry-name-not-string'],
    ['source', {name: 'review', source: 5}, 'plugins[0].source', 'source-wrong-type'],
    ['source (array)', {name: 'review', source: ['./x']}, 'plugins[0].source', 'source-wrong-type'],
    ['source.source', {name: 'review', source: {source: 5, repo: 'a/b'}}, 'plugins[0].source.source', 'source-wrong-type'],
    ['source.source (missing)', {name: 'review', source: {repo: 'a/b'}}, 'plugins[0].source.source', 'source-missing-type'],
    ['source.repo', {name: 'review', source: {source: 'github', repo: ['a/b']}}, 'plugins[0].source.repo', 'source-wrong-type'],
    ['source.repo (missing)', {name: 'review', source: {source: 'github'}}, 'plugins[0].source.repo', 'source-missing-field'],
    ['source.ref', {name: 'review', source: {source: 'github', repo: 'a/b', ref: 1}}, 'plugins[0].source.ref', 'source-wrong-type'],
    ['source.sha', {name: 'review', source: {source: 'github', repo: 'a/b', sha: 1}}, 'plugins[0].source.sha', 'source-wrong-type'],
    ['source.url', {name: 'review', source: {source: 'url', url: {href: 'https://x.test'}}}, 'plugins[0].source.url', 'source-wrong-type'],
    [
      'source.path (git-subdir)',
      {name: 'review', source: {source: 'git-subdir', url: 'https://x.test/r.git', path: 3}},
      'plugins[0].source.path',
      'source-wrong-type',
    ],
    ['source.path (local)', {name: 'review', source: {source: 'local', path: null}}, 'plugins[0].source.path', 'source-wrong-type'],
    ['source.sha256', {name: 'review', source: {source: 'archive', url: 'https://x.test/a.tgz', sha256: 12}}, 'plugins[0].source.sha256', 'source-wrong-type'],
  ])('%s of the wrong type skips the entry', (_field, entry, path, code) => {
    const {catalog, problems} = read(withEntries(entry))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([['error', code, path]])
  })

  // Top-level fields: dropped with a warning; the catalog is read.
  it.each([
    ['owner', 5, 'owner'],
    ['owner', {email: 'x@y.test'}, 'owner.name'],
    ['description', false, 'description'],
    ['version', 2, 'version'],
    ['metadata', 'x', 'metadata'],
    ['renames', ['a'], 'renames'],
  ])('top-level %s = %j is dropped with a warning', (field, value, path) => {
    const {catalog, problems} = read({...withEntries(), [field]: value})
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(catalog[field as 'owner']).toEqual(field === 'renames' ? {} : undefined)
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([['warning', 'field-wrong-type', path]])
  })

  it.each([
    ['description', 3],
    ['version', null],
    ['pluginRoot', 7],
  ])('metadata.%s of the wrong type is dropped with a warning', (field, value) => {
    const {catalog, problems} = read({...withEntries(), metadata: {[field]: value}})
    expect(catalog.pluginRoot).toBeUndefined()
    expect(catalog.description).toBeUndefined()
    expect(catalog.version).toBeUndefined()
    expect(problems.map((p) => [p.severity, p.path])).toEqual([['warning', `metadata.${field}`]])
  })
})

describe('readCatalog: path sources', () => {
  it.each([
    ['./plugins/review', './plugins/review'],
    ['./plugins//review/', './plugins/review'],
    ['./plugins/./review', './plugins/review'],
    ['./', './'],
    ['.', './'],
    ['./a...b', './a...b'],
  ])('reads %j as %j', (source, path) => {
    const {catalog, problems} = read(withEntries({name: 'review', source}))
    expect(problems).toEqual([])
    expect(catalog.plugins[0]!.source).toEqual({kind: 'relative', path})
  })

  it.each(['../evil', './../evil', './a/../../evil', './a/..', '..', '.\\..\\evil', './a\\..\\..\\evil'])('skips %j (".." segment)', (source) => {
    const {catalog, problems} = read(withEntries({name: 'review', source}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([['error', 'source-path-dotdot', 'plugins[0].source']])
    expect(problems[0]!.message).toBe(
      `plugin "review" is skipped: source path ${JSON.stringify(source)} has a ".." segment; paths must stay inside the marketplace`,
    )
  })

  it.each(['/etc/passwd', '/', 'C:\\Windows', 'C:Windows', 'c:/x', '\\\\server\\share', '\\x'])('skips the absolute path %j', (source) => {
    const {catalog, problems} = read(withEntries({name: 'review', source}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([['source-path-absolute', 'plugins[0].source']])
    expect(problems[0]!.message).toContain('absolute')
  })

  it.each([
    ['plugins/review', 'source-not-relative', 'must start with "./"'],
    ['', 'source-path-invalid', 'is empty'],
    ['.\\plugins\\review', 'source-path-invalid', 'backslash'],
    ['./a\u0000b', 'source-path-invalid', 'control character'],
    ['https://github.com/acme/review', 'source-not-path', '{"source": "url"'],
  ])('skips the path %j', (source, code, rule) => {
    const {catalog, problems} = read(withEntries({name: 'review', source}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([[code, 'plugins[0].source']])
    expect(problems[0]!.message).toContain(rule)
  })

  it('resolves bare names under metadata.pluginRoot', () => {
    const entries = [
      {name: 'fmt', source: 'formatter'},
      {name: 'deep', source: 'tools/deep/'},
      {name: 'rooted', source: './elsewhere/rooted'},
    ]
    for (const pluginRoot of ['./plugins', 'plugins', './plugins/', 'plugins/.']) {
      const {catalog, problems} = read({name: 'acme', metadata: {pluginRoot}, plugins: entries})
      expect(problems).toEqual([])
      expect(catalog.pluginRoot).toBe('./plugins')
      expect(catalog.plugins.map((p) => p.source)).toEqual([
        {kind: 'relative', path: './plugins/formatter'},
        {kind: 'relative', path: './plugins/tools/deep'},
        {kind: 'relative', path: './elsewhere/rooted'},
      ])
    }
  })

  it('still refuses ".." and absolute names under pluginRoot', () => {
    const {catalog, problems} = read({
      name: 'acme',
      metadata: {pluginRoot: './plugins'},
      plugins: [
        {name: 'a', source: '../a'},
        {name: 'b', source: '/b'},
        {name: 'c', source: 'c'},
      ],
    })
    expect(names(catalog.plugins)).toEqual(['c'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['source-path-dotdot', 'plugins[0].source'],
      ['source-path-absolute', 'plugins[1].source'],
    ])
  })

  it.each(['../outside', '/abs', 'C:\\plugins', 'plugins/../..'])('drops the pluginRoot %j with an error; entries relying on it are skipped', (pluginRoot) => {
    const {catalog, problems} = read({
      name: 'acme',
      metadata: {pluginRoot},
      plugins: [
        {name: 'fmt', source: 'formatter'},
        {name: 'ok', source: './ok'},
      ],
    })
    expect(catalog.pluginRoot).toBeUndefined()
    expect(names(catalog.plugins)).toEqual(['ok'])
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([
      ['error', 'plugin-root-invalid', 'metadata.pluginRoot'],
      ['error', 'source-not-relative', 'plugins[0].source'],
    ])
    expect(problems[1]!.message).toContain('metadata.pluginRoot, which would place it, was ignored')
  })

  it('skips relative and local sources in a catalog fetched by URL; the rest stays usable', () => {
    const {catalog, problems} = read(
      {
        name: 'acme',
        plugins: [
          {name: 'rel', source: './plugins/rel'},
          {name: 'loc', source: {source: 'local', path: './plugins/loc'}},
          {name: 'gh', source: {source: 'github', repo: 'acme/gh'}},
          {name: 'arc', source: {source: 'archive', url: 'https://acme.test/arc.tar.gz'}},
        ],
      },
      'url',
    )
    expect(names(catalog.plugins)).toEqual(['gh', 'arc'])
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([
      ['error', 'source-relative-in-url-catalog', 'plugins[0].source'],
      ['error', 'source-relative-in-url-catalog', 'plugins[1].source.path'],
    ])
    expect(problems[0]!.message).toContain('fetched by URL and only its JSON was downloaded')
  })

  it('reads relative sources from a local catalog', () => {
    expect(read(withEntries(), 'local').catalog.plugins[0]!.source).toEqual({kind: 'relative', path: './plugins/good'})
  })
})

describe('readCatalog: remote sources', () => {
  it('reads github, url, git-subdir and archive sources', () => {
    const {catalog, problems} = read({
      name: 'acme',
      plugins: [
        {name: 'a', source: {source: 'github', repo: 'acme/a'}},
        {name: 'b', source: {source: 'github', repo: 'acme/b.js', ref: 'v1.2.0', sha: SHA.toUpperCase()}},
        {name: 'c', source: {source: 'url', url: 'https://gitlab.test/acme/c.git', ref: 'release/2'}},
        {name: 'd', source: {source: 'git-subdir', url: 'https://git.test/mono.git', path: './tools/d/', sha: SHA}},
        {name: 'e', source: {source: 'archive', url: 'https://acme.test/e.tar.gz', sha256: 'AB'.repeat(32)}},
        {name: 'f', source: {source: 'archive', url: 'https://acme.test/f.tar.gz'}},
      ],
    })
    expect(problems).toEqual([])
    expect(catalog.plugins.map((p) => p.source)).toEqual([
      {kind: 'github', repo: 'acme/a'},
      {kind: 'github', repo: 'acme/b.js', ref: 'v1.2.0', sha: SHA},
      {kind: 'url', url: 'https://gitlab.test/acme/c.git', ref: 'release/2'},
      {kind: 'git-subdir', url: 'https://git.test/mono.git', path: 'tools/d', sha: SHA},
      {kind: 'archive', url: 'https://acme.test/e.tar.gz', sha256: 'ab'.repeat(32)},
      {kind: 'archive', url: 'https://acme.test/f.tar.gz'},
    ])
  })

  it.each([
    ['39 hex characters', 'a'.repeat(39), 'is 39 characters long; a full commit sha is 40 hexadecimal characters'],
    ['41 hex characters', 'a'.repeat(41), 'is 41 characters long'],
    ['a short sha', 'abc1234', 'is 7 characters long'],
    ['non-hex', 'g'.repeat(40), 'is not hexadecimal'],
    ['a branch name', 'main', 'is not hexadecimal'],
  ])('skips an entry whose sha is %s', (_what, sha, rule) => {
    for (const source of [
      {source: 'github', repo: 'acme/a', sha},
      {source: 'url', url: 'https://x.test/a.git', sha},
      {source: 'git-subdir', url: 'https://x.test/a.git', path: 'a', sha},
    ]) {
      const {catalog, problems} = read(withEntries({name: 'a', source}))
      expect(names(catalog.plugins)).toEqual(['good'])
      expect(problems.map((p) => [p.code, p.path])).toEqual([['source-bad-sha', 'plugins[0].source.sha']])
      expect(problems[0]!.message).toBe(
        `plugin "a" is skipped: sha ${JSON.stringify(sha)} ${rule}${rule.endsWith('long') ? '; a full commit sha is 40 hexadecimal characters' : rule.startsWith('is not') ? '; a commit sha is 40 characters of 0-9 and a-f' : ''}`,
      )
    }
  })

  it.each([
    ['a'.repeat(63), 'is 63 characters long'],
    ['z'.repeat(64), 'is not hexadecimal'],
  ])('skips an archive whose sha256 is %j', (sha256, rule) => {
    const {catalog, problems} = read(withEntries({name: 'a', source: {source: 'archive', url: 'https://x.test/a.tgz', sha256}}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([['source-bad-sha256', 'plugins[0].source.sha256']])
    expect(problems[0]!.message).toContain(rule)
  })

  it.each(['url', 'git-subdir', 'archive'])('skips an http:// URL in a %s source', (type) => {
    const {catalog, problems} = read(withEntries({name: 'a', source: {source: type, url: 'http://git.acme.test/a.git', path: 'a'}}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([['source-url-not-https', 'plugins[0].source.url']])
    expect(problems[0]!.message).toContain('uses http; remote sources must use https')
  })

  it.each(['ssh://git@acme.test/a.git', 'file:///etc/a.git', 'ext::sh -c evil', 'not a url', 'https://acme.test/a\n.git', ' https://acme.test/a.git'])(
    'skips the URL %j',
    (url) => {
      const {catalog, problems} = read(withEntries({name: 'a', source: {source: 'url', url}}))
      expect(names(catalog.plugins)).toEqual(['good'])
      expect(problems.map((p) => p.path)).toEqual(['plugins[0].source.url'])
    },
  )

  it.each(['https://user:s3cr3t-token@git.acme.test/a.git', 'https://s3cr3t-token@git.acme.test/a.git', 'http://user:s3cr3t-token@git.acme.test/a.git'])(
    'skips a URL with credentials, never echoing them: %s',
    (url) => {
      for (const type of ['url', 'git-subdir', 'archive']) {
        const {catalog, problems} = read(withEntries({name: 'a', source: {source: type, url, path: 'a'}}))
        expect(names(catalog.plugins)).toEqual(['good'])
        expect(problems.map((p) => [p.code, p.path])).toEqual([['source-url-credentials', 'plugins[0].source.url']])
        expect(problems[0]!.message).toContain('//***@git.acme.test/a.git carries a user name or password')
        expect(JSON.stringify(problems)).not.toContain('s3cr3t')
        expect(JSON.stringify(problems)).not.toContain('user:')
      }
    },
  )

  it.each(['acme', 'acme/a/b', '../a', 'acme/..', '-x/a', 'https://github.com/acme/a', 'acme/a b'])('skips the github repo %j', (repo) => {
    const {catalog, problems} = read(withEntries({name: 'a', source: {source: 'github', repo}}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([['source-bad-repo', 'plugins[0].source.repo']])
  })

  it.each(['--upload-pack=evil', '', 'a b', 'a..b', 'a~1', 'a:b', 'refs/heads/', 'x.lock', 'a@{1}'])('skips the ref %j', (ref) => {
    const {catalog, problems} = read(withEntries({name: 'a', source: {source: 'github', repo: 'acme/a', ref}}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([['source-bad-ref', 'plugins[0].source.ref']])
  })

  it.each([
    ['../x', 'source-path-dotdot'],
    ['a/../../x', 'source-path-dotdot'],
    ['/x', 'source-path-absolute'],
    ['C:\\x', 'source-path-absolute'],
    ['.', 'source-path-root'],
    ['./', 'source-path-root'],
  ])('skips the git-subdir path %j', (path, code) => {
    const {catalog, problems} = read(withEntries({name: 'a', source: {source: 'git-subdir', url: 'https://x.test/m.git', path}}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([[code, 'plugins[0].source.path']])
  })

  it('skips an entry whose source object is missing a required field', () => {
    const {catalog, problems} = read(
      withEntries(
        {name: 'a', source: {source: 'url'}},
        {name: 'b', source: {source: 'git-subdir', url: 'https://x.test/m.git'}},
        {name: 'c', source: {source: 'archive'}},
      ),
    )
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['source-missing-field', 'plugins[0].source.url'],
      ['source-missing-field', 'plugins[1].source.path'],
      ['source-missing-field', 'plugins[2].source.url'],
    ])
  })
})

describe('readCatalog: unsupported source types', () => {
  it('reads npm sources and keeps pip and unknown types, with a warning on that entry only', () => {
    const {catalog, problems} = read(
      withEntries(
        {name: 'from-npm', source: {source: 'npm', package: '@acme/plugin', version: '^1.0.0', registry: 'https://npm.acme.test'}},
        {name: 'from-pip', source: {source: 'pip', package: 'acme-plugin'}},
        {name: 'from-future', source: {source: 'hologram\u001b[31m', where: 'x'}},
        {name: 'bad-npm', source: {source: 'npm', package: '../evil'}},
        {name: 'http-npm', source: {source: 'npm', package: 'ok', registry: 'http://npm.acme.test'}},
      ),
    )
    expect(names(catalog.plugins)).toEqual(['from-npm', 'from-pip', 'from-future', 'good'])
    expect(catalog.plugins.map((p) => p.source)).toEqual([
      {kind: 'npm', package: '@acme/plugin', version: '^1.0.0', registry: 'https://npm.acme.test'},
      {kind: 'unsupported', type: 'pip'},
      {kind: 'unsupported', type: 'hologram\u001b[31m'},
      {kind: 'relative', path: './plugins/good'},
    ])
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([
      ['warning', 'source-unsupported', 'plugins[1].source'],
      ['warning', 'source-unsupported', 'plugins[2].source'],
      ['error', 'source-bad-npm', 'plugins[3].source.package'],
      ['error', 'source-url-not-https', 'plugins[4].source.registry'],
    ])
    expect(problems[0]!.message).toBe('unsupported source type pip: plugin "from-pip" is listed but cannot be installed')
    expect(problems[1]!.message).toContain('unsupported source type "hologram\\u001b[31m"')
    expect(catalog.plugins[0]!.problems).toEqual([])
    expect(catalog.plugins[1]!.problems).toEqual([problems[0]])
    expect(catalog.plugins[3]!.problems).toEqual([])
  })
})

describe('readCatalog: renames', () => {
  it('keeps valid renames and drops bad ones with a warning', () => {
    const {catalog, problems} = read({
      ...withEntries(),
      renames: {'old-review': 'review', lint: 7, 'Bad Name': 'x', fmt: 'Fmt!', same: 'same', constructor: 'builder'},
    })
    expect({...catalog.renames}).toEqual({'old-review': 'review', constructor: 'builder'})
    expect(catalog.renames['toString']).toBeUndefined()
    expect(problems.map((p) => [p.severity, p.code, p.path])).toEqual([
      ['warning', 'field-wrong-type', 'renames.lint'],
      ['warning', 'rename-invalid', 'renames["Bad Name"]'],
      ['warning', 'rename-invalid', 'renames.fmt'],
      ['warning', 'rename-invalid', 'renames.same'],
    ])
    expect(problems[1]!.message).toContain('old name "Bad Name" contains whitespace')
    expect(problems[2]!.message).toContain('new name "Fmt!"')
  })

  it('drops renames that form a cycle, keeping chains that end', () => {
    const {catalog, problems} = read({...withEntries(), renames: {a: 'b', b: 'c', c: 'a', x: 'y', y: 'z', start: 'a'}})
    expect({...catalog.renames}).toEqual({x: 'y', y: 'z', start: 'a'})
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['rename-cycle', 'renames.a'],
      ['rename-cycle', 'renames.b'],
      ['rename-cycle', 'renames.c'],
    ])
    expect(problems[0]!.message).toContain('"a" -> "b" -> "c" -> "a" is a cycle')
  })
})

describe('readCatalog: formats', () => {
  const codex = {
    name: 'acme-codex',
    interface: {displayName: 'Acme'},
    plugins: [
      {
        name: 'review',
        source: {source: 'local', path: './plugins/review'},
        policy: {installation: 'AVAILABLE', authentication: 'ON_INSTALL'},
        category: 'Productivity',
        interface: {displayName: 'Review', shortDescription: 'Reviews code'},
      },
      {name: 'lint', source: {source: 'local', path: './plugins/lint/'}},
    ],
  }

  it('reads a Codex catalog: interface and policy stay in raw, no warnings', () => {
    const {catalog, problems} = read(codex)
    expect(problems).toEqual([])
    expect(catalog.format).toBe('codex')
    expect(catalog.plugins.map((p) => p.source)).toEqual([
      {kind: 'local', path: './plugins/review'},
      {kind: 'local', path: './plugins/lint'},
    ])
    expect(catalog.plugins[0]!.raw.policy).toEqual({installation: 'AVAILABLE', authentication: 'ON_INSTALL'})
    expect(catalog.plugins[0]!.raw.interface).toEqual({displayName: 'Review', shortDescription: 'Reviews code'})
    expect(catalog.plugins[0]!.category).toBe('Productivity')
  })

  it.each([
    ['../x', 'source-path-dotdot'],
    ['/x', 'source-path-absolute'],
    ['plugins/x', 'source-not-relative'],
  ])('skips a local source with path %j', (path, code) => {
    const {catalog, problems} = read(withEntries({name: 'x', source: {source: 'local', path}}))
    expect(names(catalog.plugins)).toEqual(['good'])
    expect(problems.map((p) => [p.code, p.path])).toEqual([[code, 'plugins[0].source.path']])
  })

  it('detects the format from the entries unless told', () => {
    expect(read(withEntries()).catalog.format).toBe('claude')
    expect(read(withEntries({name: 'x', source: './x', policy: {installation: 'AVAILABLE'}})).catalog.format).toBe('codex')
    expect(read(codex, 'git', 'claude').catalog.format).toBe('claude')
    expect(read(withEntries(), 'url', 'bare').catalog.format).toBe('bare')
  })
})
