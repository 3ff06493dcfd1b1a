/**
 * `marketplace validate`, rule by rule: each test builds a failing marketplace in code, from a
 * catalog that passes, and asserts the problem's severity, code, JSON path and message. The schema
 * validator is the one the build compiles (dist/schemas/claude-marketplace.cjs): run
 * `node bin/build.mjs` after changing registry/schemas/claude-marketplace.schema.json.
 */
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {appendToArray, applyEdits, jsonLayout} from '../../src/core/ops/authoring/marketplace-json.js'
import {validateMarketplace, type AuthoringProblem, type MarketplaceValidation} from '../../src/core/ops/authoring/marketplace-validate.js'
import {isLoadoutError} from '../../src/core/model/errors.js'

const work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-mkt-validate-')))
afterAll(() => rmSync(work, {recursive: true, force: true}))

let counter = 0
type Files = Record<string, string | Buffer>
type Json = Record<string, any>

const CLAUDE = '.claude-plugin/marketplace.json'
const CODEX = '.agents/plugins/marketplace.json'

/** A marketplace folder holding `files`; a plain object is written as JSON. */
const marketplace = (files: Files): string => {
  const root = join(work, `m${++counter}`)
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel)
    mkdirSync(dirname(abs), {recursive: true})
    writeFileSync(abs, content)
  }
  mkdirSync(root, {recursive: true})
  return root
}

/** The plugin folder `plugins/<name>` with a Claude manifest naming it `manifestName`. */
const pluginFiles = (name: string, manifestName = name): Files => ({
  [`plugins/${name}/.claude-plugin/plugin.json`]: JSON.stringify({name: manifestName, version: '1.0.0'}),
  [`plugins/${name}/skills/${name}-skill/SKILL.md`]: `---\nname: ${name}-skill\ndescription: For tests.\n---\n\nBody.\n`,
})

const good = (): Json => ({
  name: 'acme',
  owner: {name: 'Acme', email: 'tools@acme.dev'},
  metadata: {description: 'Acme plugins'},
  plugins: [{name: 'review', source: './plugins/review', description: 'Reviews code', version: '1.0.0', author: {name: 'Ann'}}],
})

const goodCodex = (): Json => ({
  name: 'acme',
  interface: {displayName: 'Acme'},
  plugins: [
    {
      name: 'review',
      source: {source: 'local', path: './plugins/review'},
      policy: {installation: 'AVAILABLE', authentication: 'ON_INSTALL'},
      category: 'Productivity',
    },
  ],
})

/** A marketplace with the Claude catalog `catalog` (the good one unless changed) and the review plugin. */
const withCatalog = (catalog: Json | string | Buffer, extra: Files = {}): string =>
  marketplace({
    [CLAUDE]: typeof catalog === 'string' || Buffer.isBuffer(catalog) ? catalog : JSON.stringify(catalog, null, 2),
    ...pluginFiles('review'),
    ...extra,
  })

const validate = (root: string, options: {strict?: boolean; fix?: boolean; path?: string} = {}): Promise<MarketplaceValidation> =>
  validateMarketplace({path: options.path ?? root, cwd: root, strict: options.strict ?? false, fix: options.fix ?? false})

const shown = (p: AuthoringProblem) => `${p.severity} ${p.code} ${p.path ?? ''}: ${p.message}`

/** The one problem with `code`; fails listing every problem when there is not exactly one. */
const one = (result: MarketplaceValidation, code: string): AuthoringProblem => {
  const found = result.problems.filter((p) => p.code === code)
  expect(found, `expected one ${code}, got:\n${result.problems.map(shown).join('\n')}`).toHaveLength(1)
  return found[0]!
}

const edit = (change: (catalog: Json) => void): Json => {
  const catalog = good()
  change(catalog)
  return catalog
}

const entry = (fields: Json): Json => edit((c) => (c.plugins[0] = {name: 'review', source: './plugins/review', ...fields}))

describe('a marketplace that keeps the rules', () => {
  it('passes with no problem at all, Claude and Codex catalogs both', async () => {
    const root = marketplace({[CLAUDE]: JSON.stringify(good(), null, 2), [CODEX]: JSON.stringify(goodCodex(), null, 2), ...pluginFiles('review')})
    const result = await validate(root)
    expect(result.problems.map(shown)).toEqual([])
    expect(result.valid).toBe(true)
    expect(result.files.map((f) => [f.file, f.format, f.name, f.plugins])).toEqual([
      [CLAUDE, 'claude', 'acme', 1],
      [CODEX, 'codex', 'acme', 1],
    ])
  })

  it('accepts every source shape a Claude catalog may use', async () => {
    const sha = 'a'.repeat(40)
    const catalog = edit((c) => {
      c.plugins.push(
        {name: 'gh', source: {source: 'github', repo: 'acme/gh', ref: 'v1', sha}},
        {name: 'git', source: {source: 'url', url: 'https://git.example.com/acme/git.git', sha}},
        {name: 'sub', source: {source: 'git-subdir', url: 'https://git.example.com/acme/mono.git', path: 'plugins/sub'}},
        {name: 'tarball', source: {source: 'archive', url: 'https://example.com/p.tar.gz', sha256: 'b'.repeat(64)}},
      )
    })
    expect((await validate(withCatalog(catalog))).problems.map(shown)).toEqual([])
  })

  it('accepts renames to null (a removed plugin), as the README shows and the reader takes', async () => {
    const catalog = edit((c) => (c.renames = {'old-review': 'review', gone: null}))
    expect((await validate(withCatalog(catalog), {strict: true})).problems.map(shown)).toEqual([])
  })

  it('finds the marketplace from one marketplace.json given as the path', async () => {
    const root = withCatalog(good())
    const result = await validate(root, {path: join(root, CLAUDE)})
    expect(result.root).toBe(root)
    expect(result.valid).toBe(true)
    const broken = withCatalog(entry({source: './plugins/missing'}))
    expect(one(await validate(broken, {path: join(broken, CLAUDE)}), 'plugin-path-missing').path).toBe('plugins[0].source')
  })
})

describe('the top level of marketplace.json', () => {
  it.each([
    ['a missing name', (c: Json) => delete c.name, 'error', 'field-missing', 'name', /^name is required: the id users type after "@"/],
    ['a missing owner', (c: Json) => delete c.owner, 'error', 'field-missing', 'owner', /^owner is required: who maintains the marketplace/],
    ['a missing plugins list', (c: Json) => delete c.plugins, 'error', 'field-missing', 'plugins', /^plugins is required: the list of plugin entries/],
    [
      'plugins that is not a list',
      (c: Json) => (c.plugins = {review: './plugins/review'}),
      'error',
      'field-wrong-type',
      'plugins',
      /^plugins must be an array, not an object/,
    ],
    [
      'an owner that is a string',
      (c: Json) => (c.owner = 'Acme'),
      'error',
      'field-wrong-type',
      'owner',
      /^owner must be an object \(\{"name": \.\.\., "email": \.\.\.\}\), not a string/,
    ],
    ['an owner without a name', (c: Json) => (c.owner = {email: 'a@b.c'}), 'error', 'field-missing', 'owner.name', /^owner\.name is required/],
    [
      'a name with upper-case letters',
      (c: Json) => (c.name = 'Acme'),
      'error',
      'name-invalid',
      'name',
      /^marketplace name "Acme" has upper-case letters.*--fix makes it "acme"/,
    ],
    ['a name with spaces', (c: Json) => (c.name = 'acme tools'), 'error', 'name-invalid', 'name', /^marketplace name "acme tools" contains whitespace/],
    ['a name with ../', (c: Json) => (c.name = '../acme'), 'error', 'name-invalid', 'name', /^marketplace name "\.\.\/acme" contains a path separator/],
    [
      'a name that is not kebab-case',
      (c: Json) => (c.name = 'acme_tools'),
      'warning',
      'name-not-kebab-case',
      'name',
      /^marketplace name "acme_tools" is not kebab-case/,
    ],
    [
      'an unknown field',
      (c: Json) => (c.colour = 'blue'),
      'warning',
      'unknown-field',
      'colour',
      /^colour is not a field of a marketplace catalog; Claude Code ignores it/,
    ],
    [
      'an unknown metadata field',
      (c: Json) => (c.metadata.colour = 'blue'),
      'warning',
      'unknown-field',
      'metadata.colour',
      /^metadata\.colour is not a field of metadata/,
    ],
    [
      'a pluginRoot outside',
      (c: Json) => (c.metadata.pluginRoot = '../elsewhere'),
      'error',
      'plugin-root-invalid',
      'metadata.pluginRoot',
      /has a "\.\." segment/,
    ],
    ['a rename to itself', (c: Json) => (c.renames = {a: 'a'}), 'warning', 'rename-invalid', 'renames.a', /renames "a" to itself/],
    [
      'a rename that is not a string',
      (c: Json) => (c.renames = {a: 1}),
      'error',
      'field-wrong-type',
      'renames.a',
      /must be a string \(the new plugin name\) or null \(removed\), not a number/,
    ],
  ] as const)('%s', async (_what, change, severity, code, path, message) => {
    const found = one(await validate(withCatalog(edit(change))), code)
    expect([found.severity, found.path, found.file]).toEqual([severity, path, CLAUDE])
    expect(found.message).toMatch(message)
  })

  it('is not an object', async () => {
    const result = await validate(withCatalog('[1, 2]'))
    expect(shown(one(result, 'catalog-not-object'))).toBe(
      `error catalog-not-object : ${CLAUDE} must hold a JSON object with name, owner and plugins, not an array`,
    )
    expect(result.valid).toBe(false)
  })
})

describe('plugin entries', () => {
  it.each([
    [
      'an entry that is not an object',
      (c: Json) => (c.plugins[0] = 'review'),
      'error',
      'entry-not-object',
      'plugins[0]',
      /must be an object with name and source, not a string/,
    ],
    ['an entry without a name', (c: Json) => delete c.plugins[0].name, 'error', 'entry-missing-name', 'plugins[0].name', /plugins\[0\] has no name/],
    [
      'a name with upper-case letters',
      (c: Json) => (c.plugins[0].name = 'Review'),
      'error',
      'entry-bad-name',
      'plugins[0].name',
      /"Review" has upper-case letters.*--fix makes it "review"/,
    ],
    ['a name with spaces', (c: Json) => (c.plugins[0].name = 'code review'), 'error', 'entry-bad-name', 'plugins[0].name', /"code review" contains whitespace/],
    [
      'a name with ../',
      (c: Json) => (c.plugins[0].name = '../review'),
      'error',
      'entry-bad-name',
      'plugins[0].name',
      /"\.\.\/review" contains a path separator/,
    ],
    [
      'a name used twice',
      (c: Json) => c.plugins.push({name: 'review', source: './plugins/review'}),
      'error',
      'entry-duplicate-name',
      'plugins[1].name',
      /already listed at plugins\[0\]/,
    ],
    ['a missing source', (c: Json) => delete c.plugins[0].source, 'error', 'entry-missing-source', 'plugins[0].source', /has no source/],
    [
      'a source that is a number',
      (c: Json) => (c.plugins[0].source = 7),
      'error',
      'source-wrong-type',
      'plugins[0].source',
      /must be a "\.\/path" or an object/,
    ],
    ['a path with ..', (c: Json) => (c.plugins[0].source = './plugins/../../x'), 'error', 'source-path-dotdot', 'plugins[0].source', /has a "\.\." segment/],
    ['an absolute path', (c: Json) => (c.plugins[0].source = '/opt/review'), 'error', 'source-path-absolute', 'plugins[0].source', /is an absolute path/],
    [
      'a path without ./',
      (c: Json) => (c.plugins[0].source = 'plugins/review'),
      'error',
      'source-not-relative',
      'plugins[0].source',
      /must start with "\.\/".*--fix makes it "\.\/plugins\/review"/,
    ],
    [
      'a path with a trailing slash',
      (c: Json) => (c.plugins[0].source = './plugins/review/'),
      'warning',
      'path-not-normal',
      'plugins[0].source',
      /^source "\.\/plugins\/review\/" has a trailing "\/"; write "\.\/plugins\/review"$/,
    ],
    [
      'a path with an empty segment',
      (c: Json) => (c.plugins[0].source = './plugins//review'),
      'warning',
      'path-not-normal',
      'plugins[0].source',
      /has an empty or "\." segment; write "\.\/plugins\/review"/,
    ],
    [
      'the root written as .',
      (c: Json) => (c.plugins[0].source = '.'),
      'warning',
      'path-dot',
      'plugins[0].source',
      /^source "\." names the marketplace root; write it "\.\/"$/,
    ],
    [
      'a URL as a path',
      (c: Json) => (c.plugins[0].source = 'https://example.com/review.git'),
      'error',
      'source-not-path',
      'plugins[0].source',
      /write a remote source as \{"source": "url"/,
    ],
    [
      'a source object without a type',
      (c: Json) => (c.plugins[0].source = {repo: 'acme/review'}),
      'error',
      'source-missing-type',
      'plugins[0].source.source',
      /needs a "source" field naming its type/,
    ],
    [
      'a github source without repo',
      (c: Json) => (c.plugins[0].source = {source: 'github'}),
      'error',
      'source-missing-field',
      'plugins[0].source.repo',
      /needs "repo"/,
    ],
    [
      'a github repo that is not owner/repo',
      (c: Json) => (c.plugins[0].source = {source: 'github', repo: 'review'}),
      'error',
      'source-bad-repo',
      'plugins[0].source.repo',
      /must be "owner\/repo"/,
    ],
    [
      'a short sha',
      (c: Json) => (c.plugins[0].source = {source: 'github', repo: 'acme/review', sha: 'abc123'}),
      'error',
      'source-bad-sha',
      'plugins[0].source.sha',
      /is 6 characters long; a full commit sha is 40/,
    ],
    [
      'a sha that is not hex',
      (c: Json) => (c.plugins[0].source = {source: 'github', repo: 'acme/review', sha: 'g'.repeat(40)}),
      'error',
      'source-bad-sha',
      'plugins[0].source.sha',
      /is not hexadecimal/,
    ],
    [
      'a bad ref',
      (c: Json) => (c.plugins[0].source = {source: 'github', repo: 'acme/review', ref: '-x'}),
      'error',
      'source-bad-ref',
      'plugins[0].source.ref',
      /starts with "-"/,
    ],
    [
      'an http URL',
      (c: Json) => (c.plugins[0].source = {source: 'url', url: 'http://git.example.com/r.git'}),
      'error',
      'source-url-not-https',
      'plugins[0].source.url',
      /uses http; remote sources must use https/,
    ],
    [
      'a URL with a password',
      (c: Json) => (c.plugins[0].source = {source: 'url', url: 'https://u:secret@git.example.com/r.git'}),
      'error',
      'source-url-credentials',
      'plugins[0].source.url',
      /carries a user name or password/,
    ],
    [
      'a git-subdir path with ..',
      (c: Json) => (c.plugins[0].source = {source: 'git-subdir', url: 'https://git.example.com/m.git', path: '../x'}),
      'error',
      'source-path-dotdot',
      'plugins[0].source.path',
      /has a "\.\." segment/,
    ],
    [
      'a bad archive sha256',
      (c: Json) => (c.plugins[0].source = {source: 'archive', url: 'https://example.com/p.tar.gz', sha256: 'abc'}),
      'error',
      'source-bad-sha256',
      'plugins[0].source.sha256',
      /64 hexadecimal/,
    ],
    [
      'an npm source without package',
      (c: Json) => (c.plugins[0].source = {source: 'npm'}),
      'error',
      'source-missing-field',
      'plugins[0].source.package',
      /the source needs "package": an npm package name/,
    ],
    [
      'a source type loadout cannot fetch',
      (c: Json) => (c.plugins[0].source = {source: 'pip', package: 'review'}),
      'warning',
      'source-unsupported',
      'plugins[0].source',
      /unsupported source type pip/,
    ],
    [
      'an unknown field in a source',
      (c: Json) => (c.plugins[0].source = {source: 'github', repo: 'acme/review', branch: 'main'}),
      'warning',
      'unknown-field',
      'plugins[0].source.branch',
      /is not a field of this source type/,
    ],
    [
      'a Codex-only source in a Claude catalog',
      (c: Json) => (c.plugins[0].source = {source: 'local', path: './plugins/review'}),
      'warning',
      'source-codex-only',
      'plugins[0].source.source',
      /Claude Code has no "local" source type; write the path as a string, "\.\/plugins\/review"/,
    ],
    [
      'an author that is a string',
      (c: Json) => (c.plugins[0].author = 'Ann'),
      'error',
      'field-wrong-type',
      'plugins[0].author',
      /^plugins\[0\]\.author must be an object \(\{"name"/,
    ],
    [
      'an author without a name',
      (c: Json) => (c.plugins[0].author = {email: 'ann@acme.dev'}),
      'error',
      'field-missing',
      'plugins[0].author.name',
      /author\.name is required/,
    ],
    [
      'a description that is a number',
      (c: Json) => (c.plugins[0].description = 5),
      'error',
      'field-wrong-type',
      'plugins[0].description',
      /must be a string, not a number/,
    ],
    [
      'tags that are not a list',
      (c: Json) => (c.plugins[0].tags = 'a,b'),
      'error',
      'field-wrong-type',
      'plugins[0].tags',
      /must be an array of strings, not a string/,
    ],
    ['strict that is not a boolean', (c: Json) => (c.plugins[0].strict = 'no'), 'error', 'field-wrong-type', 'plugins[0].strict', /must be true or false/],
    ['an unknown field', (c: Json) => (c.plugins[0].colour = 'blue'), 'warning', 'unknown-field', 'plugins[0].colour', /is not a field of a plugin entry/],
  ] as const)('%s', async (_what, change, severity, code, path, message) => {
    const result = await validate(withCatalog(edit(change)))
    const found = one(result, code)
    expect([found.severity, found.path, found.file]).toEqual([severity, path, CLAUDE])
    expect(found.message).toMatch(message)
    expect(result.valid).toBe(severity === 'warning')
  })

  it('still checks the rest of an entry whose name is broken', async () => {
    const result = await validate(withCatalog(entry({name: 'Bad Name', source: {source: 'github', repo: 'acme/review', sha: 'abc'}})))
    expect(result.problems.map((p) => [p.code, p.path])).toEqual([
      ['entry-bad-name', 'plugins[0].name'],
      ['source-bad-sha', 'plugins[0].source.sha'],
    ])
    expect(one(result, 'source-bad-sha').message).toMatch(/^plugins\[0\] is skipped: sha "abc"/)
  })

  it('reports every problem, in the order of the file', async () => {
    const catalog = {colour: 'blue', ...good()}
    catalog.plugins.push({name: 'a', source: '../a'}, {name: 'b', source: './plugins/b', extra: true})
    catalog.homepage = 7
    const result = await validate(withCatalog(catalog))
    expect(result.problems.map((p) => [p.severity, p.code, p.path])).toEqual([
      ['warning', 'unknown-field', 'colour'],
      ['error', 'source-path-dotdot', 'plugins[1].source'],
      ['error', 'plugin-path-missing', 'plugins[2].source'],
      ['warning', 'unknown-field', 'plugins[2].extra'],
      ['error', 'field-wrong-type', 'homepage'],
    ])
    expect([result.errors, result.warnings]).toEqual([3, 2])
  })
})

describe('plugin folders the catalog points at', () => {
  it('a folder that does not exist', async () => {
    const found = one(await validate(withCatalog(entry({source: './plugins/gone'}))), 'plugin-path-missing')
    expect(shown(found)).toBe('error plugin-path-missing plugins[0].source: plugin "review" points at ./plugins/gone, which does not exist in the marketplace')
  })

  it('a file instead of a folder', async () => {
    const found = one(await validate(withCatalog(entry({source: './README.md'}), {'README.md': '# hi\n'})), 'plugin-path-not-folder')
    expect(found.message).toBe('plugin "review" points at ./README.md, which is a file; a plugin is a folder')
  })

  it('a folder that is a link out of the marketplace', async () => {
    const outside = join(work, `outside-${++counter}`)
    mkdirSync(join(outside, '.claude-plugin'), {recursive: true})
    writeFileSync(join(outside, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'review'}))
    const root = withCatalog(entry({source: './plugins/linked'}))
    symlinkSync(outside, join(root, 'plugins', 'linked'))
    const found = one(await validate(root), 'plugin-path-outside')
    expect(found.message).toBe(`plugin "review" points at ./plugins/linked, which leads through a symbolic link to ${outside}, outside the marketplace`)
  })

  it('a manifest that names the plugin differently', async () => {
    const root = marketplace({[CLAUDE]: JSON.stringify(good()), ...pluginFiles('review', 'reviewer')})
    const found = one(await validate(root), 'plugin-name-mismatch')
    expect(shown(found)).toBe(
      'error plugin-name-mismatch plugins[0].name: plugin "review" points at ./plugins/review, whose plugins/review/.claude-plugin/plugin.json names it "reviewer"; the two names must be equal',
    )
  })

  it('a plugin without a manifest is fine', async () => {
    const root = marketplace({[CLAUDE]: JSON.stringify(good()), 'plugins/review/skills/x/SKILL.md': '---\nname: x\ndescription: d\n---\n'})
    expect((await validate(root)).problems).toEqual([])
  })

  it("a plugin that fails plugin validate fails the marketplace, each problem under the entry's path", async () => {
    const root = marketplace({
      [CLAUDE]: JSON.stringify(good()),
      'plugins/review/.claude-plugin/plugin.json': JSON.stringify({name: 'review', hooks: './hooks/missing.json'}),
      'plugins/review/skills/x/SKILL.md': '---\nname: x\ndescription: d\n---\nbody',
    })
    const result = await validate(root)
    const errors = result.problems.filter((p) => p.severity === 'error')
    expect(errors.length).toBeGreaterThan(0)
    for (const p of errors) {
      expect(p.path).toBe('plugins[0]')
      expect(p.file).toBe(CLAUDE)
      expect(p.message).toMatch(/^plugins\[0\] \(\.\/plugins\/review\): plugins\/review\/\.claude-plugin\/plugin\.json/)
    }
    expect(errors.map((p) => p.message).join('\n')).toMatch(/missing\.json/)
    expect(result.valid).toBe(false)
  })

  it('a plugin folder reached through a link that stays inside the marketplace is followed, as install follows it', async () => {
    const catalog = good()
    ;(catalog.plugins as Json[])[0]!.source = './linked/real'
    const root = marketplace({[CLAUDE]: JSON.stringify(catalog), ...pluginFiles('real', 'review')})
    symlinkSync(join(root, 'plugins'), join(root, 'linked'))
    const result = await validate(root)
    expect(result.problems.filter((p) => p.severity === 'error')).toEqual([])
  })

  it('a plugin folder reached through a link out of the marketplace is an error, as install refuses it', async () => {
    const catalog = good()
    ;(catalog.plugins as Json[])[0]!.source = './linked/real'
    const root = marketplace({[CLAUDE]: JSON.stringify(catalog)})
    const outside = marketplace(pluginFiles('real', 'review'))
    symlinkSync(join(outside, 'plugins'), join(root, 'linked'))
    const found = one(await validate(root), 'plugin-path-outside')
    expect(found.severity).toBe('error')
    expect(found.path).toBe('plugins[0].source')
    expect(found.message).toMatch(/\.\/linked\/real, which leads through a symbolic link to .*plugins\/real, outside the marketplace/)
  })

  it('a manifest of 5 MB is refused by size, not read', async () => {
    const big = JSON.stringify({name: 'review', description: 'x'.repeat(5 * 1024 * 1024)})
    const root = withCatalog(good(), {'plugins/review/.claude-plugin/plugin.json': big})
    const found = one(await validate(root), 'plugin-manifest-invalid')
    expect(found.file).toBe('plugins/review/.claude-plugin/plugin.json')
    expect(found.message).toMatch(/is \d+ bytes; the limit is 1048576 bytes/)
  })

  it('a manifest that is not JSON', async () => {
    const found = one(await validate(withCatalog(good(), {'plugins/review/.claude-plugin/plugin.json': '{"name": "review",}'})), 'plugin-manifest-invalid')
    expect(found.message).toMatch(/not valid JSON: expected a double-quoted property name, found "\}" at line 1, column 19/)
  })
})

describe('reading marketplace.json', () => {
  it('a file of 5 MB is refused by size', async () => {
    const catalog = good()
    catalog.metadata.description = 'x'.repeat(5 * 1024 * 1024)
    const result = await validate(withCatalog(catalog))
    expect(result.problems).toHaveLength(1)
    expect(shown(one(result, 'file-too-large'))).toMatch(
      /^error file-too-large : \.claude-plugin\/marketplace\.json is \d+ bytes; the limit is 4194304 bytes \(4 MiB\)$/,
    )
  })

  it('invalid UTF-8', async () => {
    const text = Buffer.from(JSON.stringify(good()), 'utf8')
    const bytes = Buffer.concat([text.subarray(0, 20), Buffer.from([0xc3, 0x28]), text.subarray(20)])
    const found = one(await validate(withCatalog(bytes)), 'file-not-utf8')
    expect(found.message).toBe('.claude-plugin/marketplace.json is not valid UTF-8 text (the first bad byte is at offset 20); save it as UTF-8')
  })

  it('a byte-order mark is an error that --fix removes, keeping every other byte', async () => {
    const text = JSON.stringify(good(), null, 2)
    const root = withCatalog(`\uFEFF${text}`)
    const found = one(await validate(root), 'json-bom')
    expect([found.severity, found.fixable]).toEqual(['error', true])
    expect(found.message).toMatch(/starts with a byte-order mark, which JSON forbids/)
    const fixed = await validate(root, {fix: true})
    expect(fixed.fixed.map((f) => f.code)).toEqual(['json-bom'])
    expect(fixed.valid).toBe(true)
    expect(readFileSync(join(root, CLAUDE), 'utf8')).toBe(text)
  })

  it('duplicate keys, which JSON.parse would silently resolve', async () => {
    const text =
      '{\n  "name": "acme",\n  "owner": {"name": "Acme"},\n  "plugins": [\n    {"name": "review", "source": "./plugins/review", "source": "./plugins/other"}\n  ],\n  "name": "evil"\n}\n'
    const result = await validate(withCatalog(text))
    expect(result.problems.filter((p) => p.code === 'json-duplicate-key').map((p) => [p.path, p.message])).toEqual([
      ['plugins[0].source', 'the key "source" appears twice in one object (lines 5 and 5); readers disagree on which one counts, so keep only one'],
      ['name', 'the key "name" appears twice in one object (lines 2 and 7); readers disagree on which one counts, so keep only one'],
    ])
    expect(result.valid).toBe(false)
  })

  it('text that is not JSON, with the line and column', async () => {
    const found = one(await validate(withCatalog('{\n  "name": "acme",\n  "plugins": [,]\n}')), 'json-invalid')
    expect(found.message).toBe('.claude-plugin/marketplace.json: not valid JSON: expected a value, found "," at line 3, column 15')
  })

  it('JSON nested absurdly deep', async () => {
    const found = one(await validate(withCatalog(`{"name": "acme", "x": ${'['.repeat(5000)}${']'.repeat(5000)}}`)), 'json-too-deep')
    expect(found.message).toMatch(/nests more than 64 levels deep/)
  })

  it('a catalog that is a link out of the marketplace is not read', async () => {
    const outside = join(work, `secret-${++counter}.json`)
    writeFileSync(outside, JSON.stringify(good()))
    const root = marketplace(pluginFiles('review'))
    mkdirSync(join(root, '.claude-plugin'))
    symlinkSync(outside, join(root, CLAUDE))
    const found = one(await validate(root), 'file-link-outside')
    expect(found.message).toBe(`${CLAUDE} is a symbolic link to ${outside}, outside ${root}; it is not read`)
  })

  it('a path that does not exist, and a folder that is no marketplace, are errors with exit status 3', async () => {
    const root = marketplace({'README.md': 'hi'})
    for (const [path, code, message] of [
      [join(root, 'nope'), 'path-missing', /nope does not exist/],
      [root, 'marketplace-missing', /is not a marketplace: it has neither \.claude-plugin\/marketplace\.json nor \.agents\/plugins\/marketplace\.json/],
    ] as const) {
      const error = await validate(root, {path}).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isLoadoutError(error) && [error.code, error.exitStatus]).toEqual([code, 3])
      expect((error as Error).message).toMatch(message)
    }
  })
})

describe('Codex catalogs (.agents/plugins/marketplace.json)', () => {
  const codexWith = (change: (c: Json) => void, extra: Files = {}): string => {
    const catalog = goodCodex()
    change(catalog)
    return marketplace({[CODEX]: JSON.stringify(catalog, null, 2), ...pluginFiles('review'), ...extra})
  }

  it('needs no owner and knows interface and policy', async () => {
    const result = await validate(codexWith(() => {}))
    expect(result.problems).toEqual([])
    expect(result.files.map((f) => f.format)).toEqual(['codex'])
  })

  it.each([
    ['a local path with ..', (c: Json) => (c.plugins[0].source.path = '../x'), 'error', 'source-path-dotdot', 'plugins[0].source.path', /has a "\.\." segment/],
    [
      'a local path without ./',
      (c: Json) => (c.plugins[0].source.path = 'plugins/review'),
      'error',
      'source-not-relative',
      'plugins[0].source.path',
      /must start with "\.\/".*--fix makes it/,
    ],
    ['a name with spaces', (c: Json) => (c.plugins[0].name = 'my review'), 'error', 'entry-bad-name', 'plugins[0].name', /contains whitespace/],
    [
      'no policy',
      (c: Json) => delete c.plugins[0].policy,
      'warning',
      'codex-policy-missing',
      'plugins[0].policy',
      /has no policy; Codex expects \{"installation": "AVAILABLE", "authentication": "ON_INSTALL"\}/,
    ],
    [
      'an unknown installation policy',
      (c: Json) => (c.plugins[0].policy.installation = 'MAYBE'),
      'warning',
      'codex-policy-value',
      'plugins[0].policy.installation',
      /is "MAYBE"; Codex knows AVAILABLE, INSTALLED_BY_DEFAULT, NOT_AVAILABLE/,
    ],
    [
      'an unknown authentication policy',
      (c: Json) => (c.plugins[0].policy.authentication = 7),
      'warning',
      'codex-policy-value',
      'plugins[0].policy.authentication',
      /is a number; Codex knows ON_INSTALL, ON_USE/,
    ],
    [
      'a policy that is not an object',
      (c: Json) => (c.plugins[0].policy = 'AVAILABLE'),
      'error',
      'field-wrong-type',
      'plugins[0].policy',
      /policy must be an object, not a string/,
    ],
    ['no category', (c: Json) => delete c.plugins[0].category, 'warning', 'codex-category-missing', 'plugins[0].category', /has no category/],
    [
      'an interface that is not an object',
      (c: Json) => (c.interface = 'Acme'),
      'error',
      'field-wrong-type',
      'interface',
      /interface must be an object such as \{"displayName"/,
    ],
    [
      'a folder that does not exist',
      (c: Json) => (c.plugins[0].source.path = './plugins/gone'),
      'error',
      'plugin-path-missing',
      'plugins[0].source.path',
      /points at \.\/plugins\/gone, which does not exist/,
    ],
  ] as const)('%s', async (_what, change, severity, code, path, message) => {
    const found = one(await validate(codexWith(change)), code)
    expect([found.severity, found.path, found.file]).toEqual([severity, path, CODEX])
    expect(found.message).toMatch(message)
  })

  it("a .codex-plugin/plugin.json whose name differs from the entry's", async () => {
    const root = codexWith(() => {}, {'plugins/review/.codex-plugin/plugin.json': JSON.stringify({name: 'reviewer'})})
    expect(one(await validate(root), 'plugin-name-mismatch').message).toMatch(/whose plugins\/review\/\.codex-plugin\/plugin\.json names it "reviewer"/)
  })
})

describe('--strict', () => {
  it('turns warnings into failure', async () => {
    const root = withCatalog(edit((c) => (c.colour = 'blue')))
    const lenient = await validate(root)
    expect([lenient.valid, lenient.errors, lenient.warnings]).toEqual([true, 0, 1])
    const strict = await validate(root, {strict: true})
    expect([strict.valid, strict.strict]).toEqual([false, true])
  })
})

describe('--fix', () => {
  it('repairs the mechanical problems, keeps every other byte, and says what it changed', async () => {
    const before = [
      '{"name": "Acme",  "owner": {"name": "Acme"},',
      '  "plugins": [',
      '    {"name": "Review", "source": "plugins/review/"},',
      '    {"name": "lint", "source": "./plugins//lint/", "note": "kept"},',
      '    {"name": "root", "source": "."}',
      '  ]}',
    ].join('\n')
    const root = withCatalog(before, {...pluginFiles('lint'), '.claude-plugin/plugin.json': JSON.stringify({name: 'root'})})
    chmodSync(join(root, CLAUDE), 0o640)
    const checked = await validate(root)
    expect(checked.problems.filter((p) => p.fixable).map((p) => [p.code, p.path])).toEqual([
      ['name-invalid', 'name'],
      ['entry-bad-name', 'plugins[0].name'],
      ['source-not-relative', 'plugins[0].source'],
      ['path-not-normal', 'plugins[1].source'],
      ['path-dot', 'plugins[2].source'],
    ])
    expect(readFileSync(join(root, CLAUDE), 'utf8')).toBe(before)

    const result = await validate(root, {fix: true})
    expect(result.fixed.map((f) => [f.path, f.from, f.to])).toEqual([
      ['name', 'Acme', 'acme'],
      ['plugins[0].name', 'Review', 'review'],
      ['plugins[0].source', 'plugins/review/', './plugins/review'],
      ['plugins[1].source', './plugins//lint/', './plugins/lint'],
      ['plugins[2].source', '.', './'],
    ])
    // plugins[2] is the marketplace root, which holds no part: plugin validate's warning, under the entry
    expect(result.problems.map((p) => [p.code, p.path])).toEqual([
      ['unknown-field', 'plugins[1].note'],
      ['plugin-empty', 'plugins[2]'],
    ])
    expect(result.valid).toBe(true)
    expect(readFileSync(join(root, CLAUDE), 'utf8')).toBe(
      [
        '{"name": "acme",  "owner": {"name": "Acme"},',
        '  "plugins": [',
        '    {"name": "review", "source": "./plugins/review"},',
        '    {"name": "lint", "source": "./plugins/lint", "note": "kept"},',
        '    {"name": "root", "source": "./"}',
        '  ]}',
      ].join('\n'),
    )
    expect(statSync(join(root, CLAUDE)).mode & 0o777).toBe(0o640)
  })

  it('does not lowercase a name into one another entry has', async () => {
    const root = withCatalog(edit((c) => c.plugins.push({name: 'Review', source: './plugins/review'})))
    const found = one(await validate(root), 'entry-bad-name')
    expect(found.fixable).toBeUndefined()
    expect((await validate(root, {fix: true})).fixed).toEqual([])
  })

  it('leaves unsafe paths alone: .. is never "normalized" away', async () => {
    const root = withCatalog(entry({source: 'plugins/../../x/'}))
    const result = await validate(root, {fix: true})
    expect(result.fixed).toEqual([])
    expect(one(result, 'source-path-dotdot').fixable).toBeUndefined()
  })

  it('without --fix, writes nothing', async () => {
    const root = withCatalog(entry({source: './plugins/review/'}))
    const before = readFileSync(join(root, CLAUDE))
    expect((await validate(root)).fixed).toEqual([])
    expect(readFileSync(join(root, CLAUDE)).equals(before)).toBe(true)
    expect(existsSync(join(root, CLAUDE))).toBe(true)
  })
})

describe('appending an entry keeps the layout', () => {
  const append = (text: string, value: unknown) => applyEdits(text, [appendToArray(text, jsonLayout(text), 'plugins', value)])

  it('after the last entry, on its own line, indented like the others', () => {
    const text = '{\n    "name": "acme",\n    "plugins": [\n        {"name": "a", "source": "./a"}\n    ]\n}\n'
    expect(append(text, {name: 'b', source: './b'})).toBe(
      '{\n    "name": "acme",\n    "plugins": [\n        {"name": "a", "source": "./a"},\n        {\n            "name": "b",\n            "source": "./b"\n        }\n    ]\n}\n',
    )
  })

  it('into an empty list', () => {
    expect(append('{\n  "name": "acme",\n  "plugins": []\n}\n', {name: 'b'})).toBe(
      '{\n  "name": "acme",\n  "plugins": [\n    {\n      "name": "b"\n    }\n  ]\n}\n',
    )
  })

  it('inline when the list is written on one line', () => {
    expect(append('{"name": "acme", "plugins": [{"name": "a"}]}', {name: 'b'})).toBe('{"name": "acme", "plugins": [{"name": "a"}, {"name":"b"}]}')
  })
})
