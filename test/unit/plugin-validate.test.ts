/**
 * `plugin validate`, rule by rule: each rule gets a fixture built here that breaks it (and only
 * it: every base fixture is shown valid first), and the message is asserted, so a rule that stops
 * firing or starts saying something else fails a test.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {duplicateKeys} from '../../src/core/kernel/plugin/plugin-json.js'
import {isSemverRange} from '../../src/core/kernel/plugin/manifest-formats/lexora/rules.js'
import {validatePlugin, type PluginValidation} from '../../src/core/ops/authoring/plugin-validate.js'
import {inspectPlugin} from '../../src/core/kernel/plugin/read.js'
import type {Problem} from '../../src/core/model/problems.js'

const ROOT = join(import.meta.dirname, '..', '..')

beforeAll(() => {
  // the manifest schemas are compiled by the build (ajv standalone); build when they are missing
  if (!existsSync(join(ROOT, 'dist', 'schemas', 'lexora-manifest.cjs'))) {
    execFileSync(process.execPath, [join(ROOT, 'bin', 'build.mjs')], {cwd: ROOT, stdio: 'inherit'})
  }
})

// ---------------------------------------------------------------------------------------------
// Building plugins in code

const made: string[] = []
afterAll(() => {
  for (const dir of made) rmSync(dir, {recursive: true, force: true})
})

type Content = string | Buffer | object | {link: string}
type Files = Record<string, Content>

const isLink = (c: Content): c is {link: string} => typeof c === 'object' && c !== null && !Buffer.isBuffer(c) && 'link' in c && Object.keys(c).length === 1

const plugin = (files: Files): string => {
  const root = join(realpathSync(mkdtempSync(join(tmpdir(), 'loadout-plugin-validate-'))), 'demo')
  made.push(dirname(root))
  mkdirSync(root)
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel)
    mkdirSync(dirname(full), {recursive: true})
    if (isLink(content)) symlinkSync(content.link, full)
    else writeFileSync(full, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content, null, 2))
  }
  return root
}

const validate = (files: Files, options: {strict?: boolean; fix?: boolean} = {}): Promise<PluginValidation> => validatePlugin(plugin(files), options)

const skill = (name: string, description = `The ${name} skill, for tests.`) =>
  `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\nDo the thing.\n`
const agent = (fields: string) => `---\n${fields}\n---\n\nYou review code.\n`

const CLAUDE = '.claude-plugin/plugin.json'
const CODEX = '.codex-plugin/plugin.json'

const claudeBase = (manifest: object = {}): Files => ({
  [CLAUDE]: {name: 'demo', version: '1.0.0', description: 'A demo plugin', author: {name: 'Ada', email: 'ada@example.com'}, ...manifest},
  'skills/demo/SKILL.md': skill('demo'),
})

const codexInterface = {
  displayName: 'Demo',
  shortDescription: 'A demo',
  developerName: 'Ada',
  category: 'Coding',
  defaultPrompt: ['Use demo'],
  brandColor: '#3B82F6',
  logo: './assets/logo.png',
}
const codexBase = (manifest: object = {}, ui: object = {}): Files => ({
  [CODEX]: {name: 'demo', version: '1.0.0', description: 'A demo plugin', skills: './skills/', interface: {...codexInterface, ...ui}, ...manifest},
  'skills/demo/SKILL.md': skill('demo'),
  'assets/logo.png': 'PNG',
})

const tool = (fields: object = {}) => ({
  name: 'count',
  description: 'Counts words',
  command: ['node', 'tools/count.mjs'],
  parameters: {type: 'object', properties: {text: {type: 'string'}}, required: ['text']},
  perm: 'read',
  timeout: 30,
  ...fields,
})
const cstBase = (manifest: object = {}): Files => ({
  'plugin.json': {
    name: 'demo',
    version: '1.0.0',
    description: 'A demo plugin',
    skills: 'skills',
    tools: [tool()],
    mcpServers: {files: {command: 'node', args: ['servers/files.mjs'], autoApprove: ['read']}},
    ...manifest,
  },
  'skills/demo/SKILL.md': skill('demo'),
  'tools/count.mjs': 'console.log(1)\n',
})

const lexoraSkill = {id: 'acme.demo', path: 'skills/demo/SKILL.md'}
const connector = (fields: object = {}) => ({id: 'docs', transport: 'streamable-http', url: 'https://mcp.example.com/docs', authentication: 'oauth', ...fields})
const lexoraSubagent = (fields: object = {}) => ({
  id: 'reviewer',
  name: 'Reviewer',
  instructions: 'You review code.',
  fileAccess: 'inherit',
  tools: ['read', 'grep', {source: 'mcp', connector: 'docs', name: 'search'}],
  skills: ['acme.demo'],
  requiredSkills: ['acme.demo'],
  ...fields,
})
const lexoraBase = (manifest: object = {}, contributes: object = {}): Files => ({
  'package.json': {
    name: 'demo',
    version: '1.0.0',
    description: 'A demo plugin',
    id: 'acme',
    apiVersion: 4,
    engines: {lexora: '^4.0.0'},
    ...manifest,
    contributes: {skills: [lexoraSkill], mcpConnectors: [connector()], subagents: [lexoraSubagent()], ...contributes},
  },
  'skills/demo/SKILL.md': skill('demo'),
})

const describeProblems = (problems: readonly Problem[]) =>
  problems.map((p) => `${p.severity} ${p.code} ${p.file ?? ''} ${p.path ?? ''}: ${p.message}`).join('\n')

interface Expected {
  code: string
  message: string | RegExp
  path?: string
  file?: string
  severity?: 'error' | 'warning'
}

/** The result holds a problem with this code whose message matches, at the path and file given. */
const expectProblem = (result: PluginValidation, expected: Expected): void => {
  const match = result.problems.find(
    (p) =>
      p.code === expected.code &&
      (typeof expected.message === 'string' ? p.message === expected.message : expected.message.test(p.message)) &&
      (expected.path === undefined || p.path === expected.path) &&
      (expected.file === undefined || p.file === expected.file) &&
      p.severity === (expected.severity ?? 'error'),
  )
  expect(
    match,
    `expected ${expected.severity ?? 'error'} ${expected.code} (${String(expected.message)}) at ${expected.file ?? '?'} ${expected.path ?? ''}; got:\n${describeProblems(result.problems)}`,
  ).toBeDefined()
  if ((expected.severity ?? 'error') === 'error') expect(result.valid).toBe(false)
}

const check = async (files: Files, expected: Expected, options: {strict?: boolean} = {}) => {
  const result = await validate(files, options)
  expectProblem(result, expected)
  return result
}

// ---------------------------------------------------------------------------------------------

describe('the base fixtures are valid, so each case below fails for its own reason', () => {
  it.each([
    ['claude', claudeBase()],
    ['codex', codexBase()],
    ['cst-agent', cstBase()],
    ['lexora', lexoraBase()],
  ])('%s', async (_name, files) => {
    const result = await validate(files, {strict: true})
    expect(result.problems, describeProblems(result.problems)).toEqual([])
    expect(result.valid).toBe(true)
  })
})

describe('any JSON file', () => {
  it('a manifest of 5 MB is refused by its size, before it is parsed', async () => {
    const big = JSON.stringify({name: 'demo', description: 'x'.repeat(5 * 1024 * 1024)})
    await check(
      {...claudeBase(), [CLAUDE]: big},
      {code: 'file-too-large', message: `.claude-plugin/plugin.json is ${Buffer.byteLength(big)} bytes; the limit is 1048576`, file: CLAUDE},
    )
  })

  it('invalid UTF-8 is refused', async () => {
    const bytes = Buffer.concat([Buffer.from('{"name": "demo", "description": "caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])
    await check(
      {...claudeBase(), [CLAUDE]: bytes},
      {code: 'file-not-utf8', message: '.claude-plugin/plugin.json is not valid UTF-8: byte 36 (0xc3) starts no valid character', file: CLAUDE},
    )
  })

  it('a byte-order mark is an error (JSON.parse refuses it)', async () => {
    await check(
      {...claudeBase(), [CLAUDE]: `\uFEFF${JSON.stringify({name: 'demo'})}`},
      {code: 'json-bom', message: /starts with a byte-order mark \(U\+FEFF\)/, file: CLAUDE},
    )
  })

  it('a key written twice is an error naming the key and where it is (JSON.parse keeps the last)', async () => {
    const text = '{"name": "demo", "version": "1.0.0", "author": {"name": "Ada", "name": "Bob"}, "version": "2.0.0"}'
    const result = await check(
      {...claudeBase(), [CLAUDE]: text},
      {
        code: 'json-duplicate-key',
        message: /key "version" appears more than once in the top-level object; JSON\.parse keeps only the last one/,
        path: 'version',
        file: CLAUDE,
      },
    )
    expectProblem(result, {code: 'json-duplicate-key', message: /key "name" appears more than once in "author"/, path: 'author.name', file: CLAUDE})
  })

  it('duplicate keys are found after unescaping, inside lists, and not across objects', () => {
    expect(duplicateKeys('{"a": 1, "\\u0061": 2}')).toEqual([{path: '', key: 'a'}])
    expect(duplicateKeys('{"list": [{"x": 1}, {"x": 2, "y": "}", "x": 3}]}')).toEqual([{path: 'list[1]', key: 'x'}])
    expect(duplicateKeys('{"a": {"b": 1}, "c": {"b": 2}}')).toEqual([])
  })

  it('text that is not JSON names the line and column', async () => {
    await check({...claudeBase(), [CLAUDE]: '{"name": "demo",}'}, {code: 'manifest-not-json', message: /not valid JSON: .* at line 1, column/, file: CLAUDE})
  })

  it('a duplicate key in hooks/hooks.json is found too', async () => {
    await check(
      {...claudeBase(), 'hooks/hooks.json': '{"hooks": {"Stop": [], "Stop": []}}'},
      {code: 'json-duplicate-key', message: /key "Stop" appears more than once in "hooks"/, file: 'hooks/hooks.json'},
    )
  })
})

describe('the plugin as a whole', () => {
  it('no manifest at all is a warning, and --strict fails on it', async () => {
    const result = await check({'skills/demo/SKILL.md': skill('demo')}, {code: 'manifest-missing', message: /the plugin has no manifest/, severity: 'warning'})
    expect(result.valid).toBe(true)
    expect((await validate({'skills/demo/SKILL.md': skill('demo')}, {strict: true})).valid).toBe(false)
  })

  it('a plugin with nothing in it is a warning', async () => {
    await check(
      {[CLAUDE]: {name: 'demo'}},
      {code: 'plugin-empty', message: 'the plugin holds no skill, subagent, command, hook, MCP server or tool', severity: 'warning'},
    )
  })

  it('a symbolic link out of the plugin is an error', async () => {
    await check(
      {...claudeBase(), 'skills/demo/secret': {link: '/etc/passwd'}},
      {code: 'link-outside-root', message: /symbolic link skills\/demo\/secret points outside the plugin root, to \/etc\/passwd/},
    )
  })

  it('a manifest that links out of the plugin is reported once, and never read', async () => {
    const away = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-plugin-away-')))
    made.push(away)
    writeFileSync(join(away, 'plugin.json'), JSON.stringify({name: 'Evil Name', colour: 'red'}))
    const result = await check(
      {...claudeBase(), [CLAUDE]: {link: join(away, 'plugin.json')}},
      {code: 'link-outside-root', message: /symbolic link \.claude-plugin\/plugin\.json points outside the plugin root/},
    )
    expect(result.problems.filter((p) => p.file === CLAUDE).map((p) => p.code)).toEqual(['link-outside-root'])
  })

  it('a missing folder is not found (exit 3), not a validation result', async () => {
    await expect(validatePlugin('/nonexistent/loadout-plugin')).rejects.toMatchObject({code: 'plugin-not-found', exitStatus: 3})
  })
})

describe('Claude .claude-plugin/plugin.json', () => {
  it('needs a name', async () => {
    await check(
      {...claudeBase(), [CLAUDE]: {description: 'no name'}},
      {code: 'manifest-field-missing', message: 'the required field "name" is missing', path: 'name', file: CLAUDE},
    )
  })

  it('the name is kebab-case', async () => {
    await check(claudeBase({name: 'Demo_Plugin'}), {
      code: 'plugin-name-invalid',
      message: /plugin name "Demo_Plugin" \(from \.claude-plugin\/plugin\.json\) has upper-case letters/,
      path: 'name',
    })
  })

  it('paths start with ./', async () => {
    await check(claudeBase({skills: 'skills'}), {
      code: 'path-not-dot-slash',
      message: 'path "skills" must start with "./" (relative to the plugin root)',
      path: 'skills',
      file: CLAUDE,
    })
  })

  it('paths have no ".." and are not absolute', async () => {
    await check(claudeBase({agents: './agents/../../x'}), {
      code: 'path-parent-segment',
      message: /path "\.\/agents\/\.\.\/\.\.\/x" has a "\.\." segment/,
      path: 'agents',
    })
    await check(claudeBase({commands: ['/etc']}), {code: 'path-absolute', message: /path "\/etc" is absolute/, path: 'commands[0]'})
  })

  it('every file it points at exists', async () => {
    await check(claudeBase({agents: ['./agents/missing.md']}), {
      code: 'path-missing',
      message: 'path "./agents/missing.md" does not exist',
      path: 'agents[0]',
      file: CLAUDE,
    })
    await check(claudeBase({outputStyles: './styles'}), {code: 'path-missing', message: 'path "./styles" does not exist', path: 'outputStyles', file: CLAUDE})
  })

  it('author is an object with a name', async () => {
    await check(claudeBase({author: 'Ada Lovelace'}), {
      code: 'manifest-field-type',
      message: '"author" must be an object, not string',
      path: 'author',
      file: CLAUDE,
    })
    await check(claudeBase({author: {email: 'ada@example.com'}}), {
      code: 'manifest-field-missing',
      message: 'the required field "name" is missing',
      path: 'author.name',
    })
  })

  it('fields have their types', async () => {
    await check(claudeBase({keywords: 'review'}), {code: 'manifest-field-type', message: '"keywords" must be a list, not string', path: 'keywords'})
  })

  it('an unknown field is a warning', async () => {
    const result = await check(claudeBase({colour: 'blue'}), {
      code: 'manifest-field-unknown',
      message: 'unknown field "colour"; Claude Code does not read it',
      path: 'colour',
      severity: 'warning',
    })
    expect(result.valid).toBe(true)
  })

  it('--strict fails on a warning', async () => {
    const result = await validate(claudeBase({colour: 'blue'}), {strict: true})
    expect(result.valid).toBe(false)
    expect(result.errors).toBe(0)
    expect(result.warnings).toBe(1)
  })

  it('a version that is not semver is a warning', async () => {
    await check(claudeBase({version: 'v1'}), {code: 'manifest-version-not-semver', message: /"version" is "v1", not a semantic version/, severity: 'warning'})
  })

  it('a trailing slash on a path that names a file is a warning', async () => {
    await check(
      {...claudeBase({mcpServers: './.mcp.json/'}), '.mcp.json': {mcpServers: {}}},
      {code: 'path-trailing-slash', message: 'path "./.mcp.json/" ends with "/" but names a file (--fix removes it)', path: 'mcpServers', severity: 'warning'},
    )
  })
})

describe('skills, subagents, commands, hooks and MCP files', () => {
  it('each skill passes the SKILL.md validator', async () => {
    await check(
      {...claudeBase(), 'skills/demo/SKILL.md': '---\nname: demo\n---\n\nNo description.\n'},
      {code: 'description-missing', message: 'the required field "description" is missing', file: 'skills/demo/SKILL.md'},
    )
    await check(
      {...claudeBase(), 'skills/demo/SKILL.md': skill('other')},
      {code: 'name-folder-mismatch', message: 'name "other" must equal its folder name "demo"'},
    )
  })

  it('a subagent needs a description', async () => {
    await check(
      {...claudeBase(), 'agents/rev.md': agent('name: rev')},
      {code: 'subagent-description-missing', message: /subagent "rev" needs a "description" in its frontmatter/, file: 'agents/rev.md'},
    )
  })

  it('a subagent frontmatter has fields of the right types', async () => {
    const files = {...claudeBase(), 'agents/rev.md': agent('name: rev\ndescription: Reviews\ntools: 3\nmodel: [a]\nreadonly: "yes"\nmax_steps: -1')}
    const result = await check(files, {code: 'subagent-tools-invalid', message: '"tools" must be a comma-separated string or a list of tool names, not number'})
    expectProblem(result, {code: 'subagent-model-invalid', message: '"model" must be a model name (a string), not a list'})
    expectProblem(result, {code: 'subagent-readonly-invalid', message: '"readonly" must be true or false, not string'})
    expectProblem(result, {code: 'subagent-max-steps-invalid', message: '"max_steps" must be a positive whole number, not -1'})
  })

  it('a subagent frontmatter that is not YAML, or a bad name, is an error', async () => {
    await check({...claudeBase(), 'agents/rev.md': agent('name: [rev')}, {code: 'frontmatter-yaml-invalid', message: /frontmatter is not valid YAML/})
    await check(
      {...claudeBase(), 'agents/rev.md': agent('name: Rev Iewer\ndescription: x')},
      {code: 'subagent-name-invalid', message: /subagent name "Rev Iewer" has upper-case letters/},
    )
  })

  it('a command frontmatter must parse', async () => {
    await check(
      {...claudeBase(), 'commands/go.md': '---\ndescription: [go\n---\nGo.\n'},
      {code: 'frontmatter-yaml-invalid', message: /frontmatter is not valid YAML/, file: 'commands/go.md'},
    )
  })

  it('hooks have the right shape', async () => {
    const result = await check(
      {...claudeBase(), 'hooks/hooks.json': {hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{command: 'x'}]}], Stop: [{}]}}},
      {code: 'hook-type-missing', message: 'a hook needs "type": "command"', path: 'hooks.PreToolUse[0].hooks[0].type', file: 'hooks/hooks.json'},
    )
    expectProblem(result, {code: 'hook-list-missing', message: '"hooks" must be a list of hooks', path: 'hooks.Stop[0].hooks'})
  })

  it('a hook event no agent fires is a warning, with the likely spelling', async () => {
    await check(
      {...claudeBase(), 'hooks/hooks.json': {hooks: {pretooluse: [{hooks: [{type: 'command', command: 'true'}]}]}}},
      {
        code: 'hook-event-unknown',
        message: /"pretooluse" is not a hook event any agent fires, so its hooks never run; did you mean "PreToolUse"\?/,
        path: 'hooks.pretooluse',
        severity: 'warning',
      },
    )
  })

  it('MCP files have the right shape', async () => {
    await check(
      {...claudeBase(), '.mcp.json': {mcpServers: {docs: {args: ['x']}}}},
      {
        code: 'mcp-server-no-transport',
        message: 'MCP server "docs" needs "command" (stdio) or "url" (http or sse)',
        path: 'mcpServers.docs',
        file: '.mcp.json',
      },
    )
    await check(
      {...claudeBase(), '.mcp.json': {mcpServers: {docs: {url: 'http://example.com/mcp'}}}},
      {code: 'mcp-url-insecure', message: /is plain http; use https/},
    )
  })

  it('an MCP file that is not JSON is an error naming it', async () => {
    await check({...claudeBase(), '.mcp.json': '{"mcpServers": '}, {code: 'manifest-not-json', message: /not valid JSON/, file: '.mcp.json'})
  })
})

describe('Codex .codex-plugin/plugin.json', () => {
  it('needs a name', async () => {
    await check(
      {...codexBase(), [CODEX]: {skills: './skills/'}},
      {code: 'manifest-field-missing', message: 'the required field "name" is missing', file: CODEX},
    )
  })

  it('paths start with ./, interface assets included', async () => {
    await check(codexBase({skills: 'skills/'}), {
      code: 'path-not-dot-slash',
      message: 'path "skills/" must start with "./" (relative to the plugin root)',
      path: 'skills',
      file: CODEX,
    })
    await check(codexBase({}, {logo: 'assets/logo.png'}), {
      code: 'path-not-dot-slash',
      message: /path "assets\/logo\.png" must start with "\.\/"/,
      path: 'interface.logo',
    })
    await check(codexBase({}, {logoDark: 'assets/dark.png'}), {
      code: 'path-not-dot-slash',
      message: /path "assets\/dark\.png" must start with "\.\/"/,
      path: 'interface.logoDark',
    })
  })

  it('files it points at exist', async () => {
    await check(codexBase({}, {screenshots: ['./assets/one.png']}), {
      code: 'path-missing',
      message: 'path "./assets/one.png" does not exist',
      path: 'interface.screenshots[0]',
    })
    await check(codexBase({hooks: './hooks.json'}), {code: 'path-missing', message: 'path "./hooks.json" does not exist', path: 'hooks'})
  })

  it('at most 3 default prompts', async () => {
    await check(codexBase({}, {defaultPrompt: ['a', 'b', 'c', 'd']}), {
      code: 'manifest-too-many',
      message: '"defaultPrompt" has 4 entries; the limit is 3',
      path: 'interface.defaultPrompt',
      file: CODEX,
    })
  })

  it('each default prompt at most 128 characters', async () => {
    await check(codexBase({}, {defaultPrompt: ['ok', 'é'.repeat(129)]}), {
      code: 'manifest-field-too-long',
      message: '"defaultPrompt[1]" is 129 characters; the limit is 128',
      path: 'interface.defaultPrompt[1]',
    })
    await check(codexBase({}, {defaultPrompt: 'x'.repeat(130)}), {
      code: 'manifest-field-too-long',
      message: '"defaultPrompt" is 130 characters; the limit is 128',
    })
  })

  it('interface fields have their types and forms', async () => {
    await check(codexBase({interface: 'Demo'}), {code: 'manifest-field-invalid', message: '"interface" must be an object, not string', path: 'interface'})
    await check(codexBase({}, {capabilities: 'Interactive'}), {
      code: 'manifest-field-type',
      message: '"capabilities" must be a list, not string',
      path: 'interface.capabilities',
    })
    await check(codexBase({}, {brandColor: 'blue'}), {
      code: 'manifest-field-pattern',
      message: /"brandColor" is "blue", which does not have the required form/,
      path: 'interface.brandColor',
    })
    await check(codexBase({}, {websiteURL: 'example.com'}), {
      code: 'codex-interface-url',
      message: '"websiteURL" is "example.com", not an http(s) URL',
      path: 'interface.websiteURL',
    })
  })

  it('an unknown interface field is a warning', async () => {
    await check(codexBase({}, {tagline: 'x'}), {
      code: 'manifest-field-unknown',
      message: 'unknown field "tagline"; Codex does not read it',
      path: 'interface.tagline',
      severity: 'warning',
    })
  })

  it('its name equals its entry in the Codex marketplace above it', async () => {
    const root = plugin(codexBase())
    // the plugin folder is <tmp>/demo: make <tmp> a Codex marketplace listing it
    const market = dirname(root)
    const entry = (name: string) => ({name: 'acme', plugins: [{name, source: {source: 'local', path: './demo'}, policy: {installation: 'AVAILABLE'}}]})
    mkdirSync(join(market, '.agents/plugins'), {recursive: true})
    writeFileSync(join(market, '.agents/plugins/marketplace.json'), JSON.stringify(entry('demo-tools')))
    const result = await validatePlugin(root)
    expectProblem(result, {
      code: 'codex-name-mismatch',
      message:
        'name "demo" differs from the plugin\'s entry "demo-tools" in ../.agents/plugins/marketplace.json; Codex knows the plugin by its entry\'s name, so the two must be equal',
      path: 'name',
      file: CODEX,
    })
    writeFileSync(join(market, '.agents/plugins/marketplace.json'), JSON.stringify({...entry('demo'), description: 'changed'}))
    expect((await validatePlugin(root)).problems.filter((p) => p.code === 'codex-name-mismatch')).toEqual([])
  })

  it('its name agrees with the other manifests', async () => {
    await check(
      {...codexBase(), [CLAUDE]: {name: 'other'}},
      {
        code: 'manifest-disagreement',
        message: /"name" is "other" in \.claude-plugin\/plugin\.json but "demo" in \.codex-plugin\/plugin\.json/,
        severity: 'warning',
      },
    )
  })
})

describe('cst-agent plugin.json', () => {
  it('tool names outside [A-Za-z0-9_-] are sanitised, with a warning', async () => {
    await check(cstBase({tools: [tool({name: 'count words!'})]}), {
      code: 'tool-name-sanitized',
      message: 'tool name "count words!" becomes "count_words_" in cst-agent',
      path: 'tools[0].name',
      severity: 'warning',
    })
  })

  it('tool names are at most 63 bytes', async () => {
    await check(cstBase({tools: [tool({name: 'x'.repeat(64)})]}), {
      code: 'tool-name-too-long',
      message: /tool name is 64 bytes; cst-agent allows at most 63/,
      path: 'tools[0].name',
    })
  })

  it('tool names are unique (after sanitising)', async () => {
    await check(cstBase({tools: [tool({name: 'a b'}), tool({name: 'a_b'})]}), {code: 'tool-duplicate', message: /tool "a_b" is named twice/})
  })

  it('command is a non-empty string or list', async () => {
    await check(cstBase({tools: [tool({command: 42})]}), {
      code: 'tool-command-invalid',
      message: '"command" must be a non-empty string or a non-empty list of strings',
      path: 'tools[0].command',
    })
    const result = await validate(cstBase({tools: [tool({command: 'node tools/count.mjs'})]}), {strict: true})
    expect(result.problems, describeProblems(result.problems)).toEqual([])
  })

  it('the tool program exists in the plugin', async () => {
    await check(cstBase({tools: [tool({command: ['scripts/run.sh']})]}), {
      code: 'path-missing',
      message: 'the tool\'s program "scripts/run.sh" does not exist in the plugin',
      path: 'tools[0].command[0]',
    })
  })

  it('parameters compile as a JSON Schema', async () => {
    await check(cstBase({tools: [tool({parameters: {type: 'strin'}})]}), {
      code: 'tool-parameters-not-schema',
      message: /"parameters" is not a valid JSON Schema: .*type/,
      path: 'tools[0].parameters',
    })
    await check(cstBase({tools: [tool({parameters: undefined, inputSchema: {type: 'object', properties: {n: {minimum: 'one'}}}})]}), {
      code: 'tool-parameters-not-schema',
      message: /"inputSchema" is not a valid JSON Schema/,
      path: 'tools[0].inputSchema',
    })
    await check(cstBase({tools: [tool({parameters: 'a string'})]}), {
      code: 'tool-parameters-invalid',
      message: '"parameters" must be a JSON Schema object, not string',
    })
  })

  it('parameters and inputSchema are not both given; arguments are an object', async () => {
    await check(cstBase({tools: [tool({inputSchema: {type: 'object'}})]}), {
      code: 'tool-parameters-both',
      message: 'the tool has both "parameters" and "inputSchema"; give one',
    })
    await check(cstBase({tools: [tool({parameters: {type: 'string'}})]}), {
      code: 'tool-parameters-not-object',
      message: /"parameters" describes "string", but a tool's arguments are a JSON object/,
      severity: 'warning',
    })
  })

  it('perm is read, write, net or shell (default shell)', async () => {
    await check(cstBase({tools: [tool({perm: 'root'})]}), {
      code: 'tool-perm-invalid',
      message: '"perm" is "root"; use one of read, write, net, shell',
      path: 'tools[0].perm',
    })
    const {model} = inspectPlugin(plugin(cstBase({tools: [tool({perm: undefined, timeout: undefined})]})))
    expect(model.tools[0]).toMatchObject({perm: 'shell', timeout: 60})
  })

  it('timeout is positive seconds, at most 600', async () => {
    await check(cstBase({tools: [tool({timeout: 601})]}), {
      code: 'tool-timeout-too-long',
      message: '"timeout" is 601 seconds; the limit is 600',
      path: 'tools[0].timeout',
    })
    await check(cstBase({tools: [tool({timeout: 0})]}), {code: 'tool-timeout-invalid', message: '"timeout" must be a positive number of seconds, not 0'})
  })

  it('MCP servers run over stdio only', async () => {
    await check(cstBase({mcpServers: {web: {url: 'https://example.com/mcp'}}}), {
      code: 'mcp-stdio-only',
      message: /MCP server "web" has a "url", but cst-agent runs MCP servers over stdio only/,
      path: 'mcpServers.web.url',
    })
  })

  it('MCP server fields have their types', async () => {
    await check(cstBase({mcpServers: {files: {command: 'node', autoApprove: 'all'}}}), {
      code: 'mcp-field-invalid',
      message: '"autoApprove" must be true or a list of tool names',
      path: 'mcpServers.files.autoApprove',
    })
    await check(cstBase({mcpServers: {files: {command: 'node', disabled: 'no'}}}), {code: 'mcp-field-invalid', message: '"disabled" must be true or false'})
  })

  it('paths need no ./ but may not climb out or be absolute', async () => {
    await check(cstBase({skills: '../skills'}), {
      code: 'path-parent-segment',
      message: /path "\.\.\/skills" has a "\.\." segment/,
      path: 'skills',
      file: 'plugin.json',
    })
    await check(cstBase({skills: '/srv/skills'}), {code: 'path-absolute', message: /path "\/srv\/skills" is absolute/})
    await check(cstBase({tools: [tool({command: ['../bin/x']})]}), {
      code: 'path-parent-segment',
      message: /path "\.\.\/bin\/x" has a "\.\." segment/,
      path: 'tools[0].command[0]',
    })
  })

  it('an unknown field is a warning', async () => {
    await check(cstBase({tools: [tool({retries: 3})]}), {
      code: 'manifest-field-unknown',
      message: 'unknown field "retries"; cst-agent does not read it',
      path: 'tools[0].retries',
      severity: 'warning',
    })
  })
})

describe('Lexora manifest', () => {
  it('is recognised in a root plugin.json too', async () => {
    const valid = await validate({'plugin.json': lexoraBase()['package.json']!, 'skills/demo/SKILL.md': skill('demo')}, {strict: true})
    expect(valid.formats).toEqual(['lexora'])
    expect(valid.problems, describeProblems(valid.problems)).toEqual([])
  })

  it('API 4: no apiVersion is needed (the seed names none; hosts are constrained by engines.lexora)', async () => {
    const valid = await validate({...lexoraBase({apiVersion: undefined})}, {strict: true})
    expect(valid.problems, describeProblems(valid.problems)).toEqual([])
    await check(lexoraBase({apiVersion: 3}), {code: 'manifest-field-value', message: '"apiVersion" must be 4, not 3', path: 'apiVersion', file: 'package.json'})
    await check(lexoraBase({engines: undefined}), {code: 'manifest-field-missing', message: 'the required field "engines" is missing', path: 'engines'})
  })

  it('the seed\'s tool form {"source": "builtin", "name": "read"} is accepted; an unknown built-in is not', async () => {
    const seed = lexoraSubagent({
      tools: [
        {source: 'builtin', name: 'read'},
        {source: 'builtin', name: 'grep'},
        {source: 'mcp', connector: 'docs', name: 'search'},
      ],
    })
    const valid = await validate(lexoraBase({}, {subagents: [seed]}), {strict: true})
    expect(valid.problems, describeProblems(valid.problems)).toEqual([])
    await check(lexoraBase({}, {subagents: [lexoraSubagent({tools: [{source: 'builtin', name: 'bash'}]})]}), {
      code: 'lexora-subagent-tool',
      message: /built-in tool "bash" is not one of Lexora's \(read, find, grep, ls\)/,
      path: 'contributes.subagents[0].tools[0]',
    })
  })

  it.each([
    [{kind: 'extension'}, 'kind'],
    [{credential: {type: 'api-key'}}, 'credential'],
  ])('a package must not declare %j', async (field, path) => {
    await check(lexoraBase(field), {code: 'lexora-field-forbidden', message: new RegExp(`"${path}" must not be declared`), path})
  })

  it('a package must not declare contributes.agent', async () => {
    await check(lexoraBase({}, {agent: {id: 'partner'}}), {
      code: 'lexora-field-forbidden',
      message: /"contributes.agent" must not be declared/,
      path: 'contributes.agent',
    })
  })

  it('engines.lexora is a valid semver range', async () => {
    await check(lexoraBase({engines: {lexora: 'four'}}), {
      code: 'lexora-engine-range',
      message: '"engines.lexora" is "four", which is not a semver range (for example "^4.0.0")',
      path: 'engines.lexora',
    })
    await check(lexoraBase({engines: {}}), {code: 'manifest-field-missing', message: 'the required field "lexora" is missing', path: 'engines.lexora'})
  })

  it('semver ranges as npm reads them', () => {
    for (const ok of ['^4.0.0', '~4.1', '>=4 <5', '4.x', '*', '4.0.0 - 4.2.0', '^4.0.0 || ^5.0.0', '>= 4.0.0', '4.0.0-beta.1', 'v4'])
      expect(isSemverRange(ok), ok).toBe(true)
    for (const bad of ['', 'four', '^4.0.0 ||', '>>4', '4.0.0.0', '^04.0.0', 'latest']) expect(isSemverRange(bad), bad).toBe(false)
  })

  it('the plugin id is id, else publisher.name', async () => {
    await check(lexoraBase({id: undefined, name: undefined}), {
      code: 'lexora-id-missing',
      message: 'the package has no plugin id: give "id", or "publisher" and "name"',
    })
    const result = await validate({
      ...lexoraBase(
        {id: undefined, publisher: 'acme', name: 'tools'},
        {skills: [{id: 'acme.tools.demo', path: 'skills/demo/SKILL.md'}], subagents: [lexoraSubagent({skills: ['acme.tools.demo'], requiredSkills: []})]},
      ),
    })
    expect(
      result.problems.filter((p) => p.code.startsWith('lexora-')),
      describeProblems(result.problems),
    ).toEqual([])
    await check(lexoraBase({id: 'Acme Tools'}), {code: 'lexora-id-invalid', message: /plugin id "Acme Tools" must be dot-separated words/})
  })

  it('at most 32 skills', async () => {
    const skills = Array.from({length: 33}, (_, i) => ({id: `acme.s${i}`, path: `skills/s${i}/SKILL.md`}))
    const files: Files = {...lexoraBase({}, {skills, subagents: []})}
    for (let i = 0; i < 33; i++) files[`skills/s${i}/SKILL.md`] = skill(`s${i}`)
    await check(files, {code: 'manifest-too-many', message: '"skills" has 33 entries; the limit is 32', path: 'contributes.skills'})
  })

  it('a skill id is the plugin id, a dot and the skill name', async () => {
    await check(lexoraBase({}, {skills: [{id: 'demo', path: 'skills/demo/SKILL.md'}], subagents: []}), {
      code: 'lexora-skill-id',
      message: '"id" is "demo"; it must be the plugin id, a dot and the skill name: "acme.demo"',
      path: 'contributes.skills[0].id',
    })
  })

  it('skill ids are unique', async () => {
    const files = {...lexoraBase({}, {skills: [lexoraSkill, {id: 'acme.demo', path: 'skills/demo/SKILL.md'}], subagents: []})}
    await check(files, {
      code: 'lexora-skill-id-duplicate',
      message: 'skill id "acme.demo" is used twice; ids must be unique in the package',
      path: 'contributes.skills[1].id',
    })
  })

  it('a skill path names a SKILL.md in its own folder', async () => {
    await check(lexoraBase({}, {skills: [{id: 'acme.demo', path: 'skills/demo'}], subagents: []}), {
      code: 'lexora-skill-path',
      message: /"path" must name a SKILL\.md file in the skill's folder/,
      path: 'contributes.skills[0].path',
    })
    await check(
      {...lexoraBase({}, {skills: [{id: 'acme.demo', path: 'SKILL.md'}], subagents: []}), 'SKILL.md': skill('demo')},
      {code: 'lexora-skill-folder', message: /must sit in a folder of its own/},
    )
  })

  it('skill folders do not nest', async () => {
    const files = {
      ...lexoraBase({}, {skills: [lexoraSkill, {id: 'acme.inner', path: 'skills/demo/inner/SKILL.md'}], subagents: []}),
      'skills/demo/inner/SKILL.md': skill('inner'),
    }
    await check(files, {
      code: 'lexora-skill-nested',
      message: 'skill folder "skills/demo/inner" is inside skill folder "skills/demo"; skill folders may not nest',
      path: 'contributes.skills[1].path',
    })
  })

  it('a background or view entry whose file is inside a skill folder is an error', async () => {
    const files = {
      ...lexoraBase(
        {},
        {
          background: {script: './skills/demo/worker.js'},
          views: [
            {id: 'panel', path: 'skills/demo/panel.html'},
            {id: 'ok', path: 'views/ok.html'},
          ],
        },
      ),
      'skills/demo/worker.js': '// worker\n',
      'skills/demo/panel.html': '<p>panel</p>\n',
      'views/ok.html': '<p>ok</p>\n',
    }
    await check(files, {
      code: 'lexora-inside-skill',
      message:
        'contributes.background.script is "./skills/demo/worker.js", inside skill folder "skills/demo"; a skill folder holds only its skill: move the file out of it',
      path: 'contributes.background.script',
    })
    const result = await check(files, {code: 'lexora-inside-skill', message: /inside skill folder "skills\/demo"/, path: 'contributes.views[0].path'})
    expect(result.problems.filter((p) => p.code === 'lexora-inside-skill').map((p) => p.path)).toEqual([
      'contributes.background.script',
      'contributes.views[0].path',
    ])
  })

  it('a skill name carries no namespace', async () => {
    const files = {
      ...lexoraBase({}, {skills: [{id: 'acme.acme.pdf', path: 'skills/acme.pdf/SKILL.md'}], subagents: []}),
      'skills/acme.pdf/SKILL.md': skill('acme.pdf'),
    }
    await check(files, {code: 'lexora-skill-namespace', message: /skill folder "acme\.pdf" carries a namespace/})
  })

  it('the skill frontmatter: name equal to the folder, lowercase, a description of at most 1024', async () => {
    await check(
      {...lexoraBase(), 'skills/demo/SKILL.md': skill('other')},
      {code: 'name-folder-mismatch', message: 'name "other" must equal its folder name "demo"'},
    )
    await check({...lexoraBase(), 'skills/demo/SKILL.md': skill('Demo')}, {code: 'name-uppercase', message: /name "Demo" has upper-case letters/})
    await check(
      {...lexoraBase(), 'skills/demo/SKILL.md': skill('demo', 'd'.repeat(1025))},
      {code: 'description-too-long', message: '"description" is 1025 characters; the limit is 1024'},
    )
  })

  it('at most 16 connectors, ids of the right form and unique', async () => {
    const many = Array.from({length: 17}, (_, i) => connector({id: `c${i}`}))
    await check(lexoraBase({}, {mcpConnectors: many, subagents: []}), {
      code: 'manifest-too-many',
      message: '"mcpConnectors" has 17 entries; the limit is 16',
      path: 'contributes.mcpConnectors',
    })
    await check(lexoraBase({}, {mcpConnectors: [connector({id: '-Docs'})], subagents: []}), {
      code: 'lexora-connector-id-invalid',
      message: /"id" must be 1-64 lowercase letters, digits, "-" or "_", starting with a letter or digit/,
      path: 'contributes.mcpConnectors[0].id',
    })
    await check(lexoraBase({}, {mcpConnectors: [connector(), connector({url: 'https://mcp.example.com/other'})], subagents: []}), {
      code: 'lexora-connector-id-duplicate',
      message: 'connector id "docs" is used twice; ids must be unique in the package',
    })
  })

  it('transport is streamable-http only', async () => {
    await check(lexoraBase({}, {mcpConnectors: [connector({transport: 'sse'})]}), {
      code: 'lexora-connector-transport',
      message: '"transport" is "sse"; Lexora connectors use "streamable-http"',
    })
  })

  it('url is https, with no user info and no token', async () => {
    await check(lexoraBase({}, {mcpConnectors: [connector({url: 'http://127.0.0.1:8080/mcp'})]}), {
      code: 'lexora-connector-url',
      message: 'connector "docs": url must be https, not http',
    })
    await check(lexoraBase({}, {mcpConnectors: [connector({url: 'https://me:pw@mcp.example.com/'})]}), {
      code: 'mcp-url-credentials',
      message: /url has a user name or password in it/,
    })
    await check(lexoraBase({}, {mcpConnectors: [connector({url: 'https://mcp.example.com/?api_key=abc'})]}), {
      code: 'lexora-connector-url-secret',
      message: /url carries "api_key" in its query, which looks like a credential/,
    })
  })

  it('authentication is required: none, bearer or oauth', async () => {
    await check(lexoraBase({}, {mcpConnectors: [connector({authentication: undefined})]}), {
      code: 'manifest-field-missing',
      message: 'the required field "authentication" is missing',
      path: 'contributes.mcpConnectors[0].authentication',
    })
    await check(lexoraBase({}, {mcpConnectors: [connector({authentication: 'basic'})]}), {
      code: 'manifest-field-enum',
      message: '"authentication" is "basic"; use one of "none", "bearer", "oauth"',
    })
  })

  it('no headers or secrets', async () => {
    await check(lexoraBase({}, {mcpConnectors: [connector({headers: {Authorization: 'Bearer x'}})]}), {
      code: 'lexora-connector-secrets',
      message: /connector "docs" has "headers"; Lexora connectors carry no headers or secrets/,
      path: 'contributes.mcpConnectors[0].headers',
    })
  })

  it('at most 16 subagents, not a built-in id, unique', async () => {
    const many = Array.from({length: 17}, (_, i) => lexoraSubagent({id: `a${i}`}))
    await check(lexoraBase({}, {subagents: many}), {code: 'manifest-too-many', message: '"subagents" has 17 entries; the limit is 16'})
    await check(lexoraBase({}, {subagents: [lexoraSubagent({id: 'explore'})]}), {
      code: 'lexora-subagent-builtin',
      message: 'subagent id "explore" is a Lexora built-in subagent; choose another id',
    })
    await check(lexoraBase({}, {subagents: [lexoraSubagent(), lexoraSubagent({name: 'Other'})]}), {
      code: 'lexora-subagent-id-duplicate',
      message: 'subagent id "reviewer" is used twice; ids must be unique in the package',
    })
  })

  it('a subagent needs name, instructions and fileAccess (inherit or read_only)', async () => {
    await check(lexoraBase({}, {subagents: [lexoraSubagent({name: undefined})]}), {
      code: 'manifest-field-missing',
      message: 'the required field "name" is missing',
      path: 'contributes.subagents[0].name',
    })
    await check(lexoraBase({}, {subagents: [lexoraSubagent({instructions: ''})]}), {
      code: 'lexora-subagent-instructions',
      message: 'subagent "reviewer" needs "instructions" (its prompt)',
    })
    await check(lexoraBase({}, {subagents: [lexoraSubagent({fileAccess: 'write'})]}), {
      code: 'manifest-field-enum',
      message: '"fileAccess" is "write"; use one of "inherit", "read_only"',
    })
  })

  it('tools are built-in read/find/grep/ls or an MCP tool of a connector of this package', async () => {
    await check(lexoraBase({}, {subagents: [lexoraSubagent({tools: ['bash']})]}), {
      code: 'lexora-subagent-tool',
      message: /tool "bash" is not a Lexora built-in tool; use \{"source": "builtin", "name": "read" \| "find" \| "grep" \| "ls"\}/,
      path: 'contributes.subagents[0].tools[0]',
    })
    await check(lexoraBase({}, {subagents: [lexoraSubagent({tools: [{source: 'mcp', connector: 'wiki', name: 'search'}]})]}), {
      code: 'lexora-subagent-connector',
      message: 'subagent "reviewer": tool "search" names connector "wiki", which this package does not contribute (it has "docs")',
    })
    await check(lexoraBase({}, {subagents: [lexoraSubagent({tools: [{source: 'http', name: 'x'}]})]}), {
      code: 'lexora-subagent-tool',
      message: /a tool is \{"source": "builtin"/,
    })
  })

  it('an MCP tool needs fileAccess inherit', async () => {
    await check(lexoraBase({}, {subagents: [lexoraSubagent({fileAccess: 'read_only'})]}), {
      code: 'lexora-subagent-file-access',
      message: 'subagent "reviewer" uses MCP tools, which need "fileAccess": "inherit" (it is "read_only")',
    })
  })

  it('skills are full contribution ids of this package; requiredSkills a subset of skills', async () => {
    await check(lexoraBase({}, {subagents: [lexoraSubagent({skills: ['demo'], requiredSkills: []})]}), {
      code: 'lexora-subagent-skill',
      message: 'subagent "reviewer": skill "demo" is not a skill contribution id of this package (it has "acme.demo")',
    })
    await check(lexoraBase({}, {subagents: [lexoraSubagent({skills: [], requiredSkills: ['acme.demo']})]}), {
      code: 'lexora-subagent-required-skill',
      message: 'subagent "reviewer": required skill "acme.demo" is not in its "skills"; requiredSkills must be a subset of skills',
    })
  })

  it("a package.json without contributes is npm's, not a manifest", async () => {
    const result = await validate({...claudeBase(), 'package.json': '{"name": "Not A Plugin", "name": "twice"}'}, {strict: true})
    expect(result.problems, describeProblems(result.problems)).toEqual([])
  })
})

describe('--fix', () => {
  it('repairs what is mechanical, says what it changed, and keeps the rest of the bytes', async () => {
    const manifest = '{\n    "name": "Demo",\n    "skills": ".",\n    "agents": ["agents/rev.md"],\n    "mcpServers": "./.mcp.json/"\n}\n'
    const root = plugin({
      [CLAUDE]: `\uFEFF${manifest}`,
      'SKILL.md': skill('demo'),
      'agents/rev.md': agent('name: rev\ndescription: Reviews'),
      '.mcp.json': {mcpServers: {}},
      [CODEX]: {name: 'demo', skills: 'skills/', interface: {logo: 'logo.png'}},
      'logo.png': 'PNG',
      'skills/other/SKILL.md': '---\nname: "Other"  # shown\ndescription: x\n---\nBody\n',
    })
    const before = await validatePlugin(root)
    expect(before.valid).toBe(false)
    const fixed = await validatePlugin(root, {fix: true})
    expect(fixed.fixes).toEqual(
      expect.arrayContaining([
        {file: CLAUDE, rule: 'json-bom', before: 'a byte-order mark (U+FEFF)', after: 'none'},
        {file: CLAUDE, path: 'name', rule: 'name-case', before: 'Demo', after: 'demo'},
        {file: CLAUDE, path: 'skills', rule: 'path-not-dot-slash', before: '.', after: './'},
        {file: CLAUDE, path: 'agents[0]', rule: 'path-not-dot-slash', before: 'agents/rev.md', after: './agents/rev.md'},
        {file: CLAUDE, path: 'mcpServers', rule: 'path-trailing-slash', before: './.mcp.json/', after: './.mcp.json'},
        {file: CODEX, path: 'skills', rule: 'path-not-dot-slash', before: 'skills/', after: './skills/'},
        {file: CODEX, path: 'interface.logo', rule: 'path-not-dot-slash', before: 'logo.png', after: './logo.png'},
        {file: 'skills/other/SKILL.md', path: 'name', rule: 'name-case', before: 'Other', after: 'other'},
      ]),
    )
    expect(readFileSync(join(root, CLAUDE), 'utf8')).toBe(
      '{\n    "name": "demo",\n    "skills": "./",\n    "agents": ["./agents/rev.md"],\n    "mcpServers": "./.mcp.json"\n}\n',
    )
    expect(readFileSync(join(root, 'skills/other/SKILL.md'), 'utf8')).toBe('---\nname: "other"  # shown\ndescription: x\n---\nBody\n')
    const again = await validatePlugin(root, {fix: true})
    expect(again.fixes).toEqual([])
  })

  it('leaves what needs judgement alone', async () => {
    const root = plugin(claudeBase({skills: '../skills', name: 'My Plugin'}))
    const result = await validatePlugin(root, {fix: true})
    expect(result.fixes).toEqual([])
    expectProblem(result, {code: 'path-parent-segment', message: /has a "\.\." segment/})
  })
})
