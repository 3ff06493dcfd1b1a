/**
 * `plugin convert`, format by format: each source plugin (Claude with skills, an agent, stdio and
 * http MCP servers, hooks and a command; cst-agent with an exec tool and a stdio server; Lexora
 * with a connector and a subagent) is built here and converted to every other format. Each test
 * asserts the manifest written, the list of what could not be carried over, and that the result
 * reads back without fatal problems and passes `plugin validate`. Then the refusals, each with what
 * it must leave untouched.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {convertPlugin, type ConvertPluginInput, type NotCarried, type PluginConversion} from '../../src/core/ops/authoring/convert.js'
import {validatePlugin} from '../../src/core/ops/authoring/plugin-validate.js'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {isLoadoutError} from '../../src/core/model/errors.js'
import {inspectPlugin} from '../../src/core/kernel/plugin/read.js'

const ROOT = join(import.meta.dirname, '..', '..')

beforeAll(() => {
  // plugin validate needs the manifest schemas compiled by the build
  if (!existsSync(join(ROOT, 'dist', 'schemas', 'lexora-manifest.cjs'))) {
    execFileSync(process.execPath, [join(ROOT, 'bin', 'build.mjs')], {cwd: ROOT, stdio: 'inherit'})
  }
})

// ---------------------------------------------------------------------------------------------
// Plugins built in code

const made: string[] = []
afterAll(() => {
  for (const dir of made) rmSync(dir, {recursive: true, force: true})
})

type Files = Record<string, string | object | {link: string}>

const isLink = (c: unknown): c is {link: string} => typeof c === 'object' && c !== null && 'link' in c && Object.keys(c).length === 1

/** A fresh folder holding `<name>/` with `files`; returns the plugin root (the tmp folder is the env's cwd and home). */
const build = (files: Files, name = 'demo'): string => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-convert-test-')))
  made.push(tmp)
  const root = join(tmp, name)
  mkdirSync(root)
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel)
    mkdirSync(dirname(full), {recursive: true})
    if (isLink(content)) symlinkSync(content.link, full)
    else writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
  return root
}

const envFor = (root: string): Environment => ({
  vars: {},
  home: join(dirname(root), 'home'),
  cwd: dirname(root),
  platform: process.platform,
  interactive: false,
})

const convert = (root: string, to: string, options: Partial<ConvertPluginInput> = {}): Promise<PluginConversion> =>
  convertPlugin({path: root, to, force: false, dryRun: false, env: envFor(root), ...options})

/** The LoadoutError a conversion throws (fails the test when it does not throw one). */
const refusal = async (work: Promise<unknown>): Promise<{code: string; message: string; suggestions: string[]}> => {
  try {
    await work
  } catch (error) {
    if (isLoadoutError(error)) return {code: error.code, message: error.message, suggestions: error.suggestions}
    throw error
  }
  throw new Error('expected the conversion to be refused')
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>

/** Every file below `dir` with its bytes, to show that a refused run changed nothing. */
const tree = (dir: string, base = dir): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
      const full = join(dir, e.name)
      if (e.isSymbolicLink()) return [[full.slice(base.length + 1), 'link']]
      return e.isDirectory() ? Object.entries(tree(full, base)) : [[full.slice(base.length + 1), readFileSync(full, 'utf8')]]
    }),
  )

/** The converted plugin reads back without a fatal problem and passes `plugin validate`. */
const expectValid = async (path: string) => {
  const {fatal, model} = inspectPlugin(path)
  expect(fatal).toEqual([])
  const validation = await validatePlugin(path)
  expect(validation.problems.filter((p) => p.severity === 'error')).toEqual([])
  expect(validation.valid).toBe(true)
  return model
}

const skill = (name: string, description = `The ${name} skill, for tests.`) =>
  `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\nDo the ${name} thing.\n`

const REVIEWER =
  '---\nname: reviewer\ndescription: Reviews code before it lands.\ntools: Read, Grep, Bash(git diff:*)\nmodel: sonnet\n---\n\nYou review code. Be brief.\n'

const HOOKS = {
  hooks: {
    SessionStart: [{hooks: [{type: 'command', command: 'echo started'}]}],
    Notification: [{hooks: [{type: 'command', command: 'echo notified'}]}],
  },
}

const LOCAL_SERVER = {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/servers/local.mjs']}
const REMOTE_SERVER = {type: 'http', url: 'https://mcp.example.com/mcp'}
/** LOCAL_SERVER as cst-agent names it: plugin-relative, started in the plugin folder */
const CST_LOCAL_SERVER = {command: 'node', args: ['servers/local.mjs'], cwd: '.'}

/** A Claude plugin: two skills, an agent, a command, hooks, a stdio and an http MCP server. */
const claudeFiles = (extra: Files = {}): Files => ({
  '.claude-plugin/plugin.json': {
    name: 'demo',
    version: '1.2.0',
    description: 'A demo plugin. It shows every part.',
    author: {name: 'Ada Lovelace', email: 'ada@example.com'},
    keywords: ['demo', 'review'],
    license: 'MIT',
  },
  'skills/pdf-tools/SKILL.md': skill('pdf-tools'),
  'skills/notes/SKILL.md': skill('notes'),
  'agents/reviewer.md': REVIEWER,
  'commands/hi.md': '---\ndescription: Say hi\n---\nSay hi.\n',
  'hooks/hooks.json': HOOKS,
  '.mcp.json': {mcpServers: {local: LOCAL_SERVER, remote: REMOTE_SERVER}},
  'servers/local.mjs': 'process.stdin.pipe(process.stdout)\n',
  ...extra,
})

const CST_TOOL = {
  name: 'count',
  description: 'Counts words',
  command: ['node', 'tools/count.mjs'],
  parameters: {type: 'object', properties: {text: {type: 'string'}}, required: ['text']},
  perm: 'read',
  timeout: 30,
}
const CST_SERVER = {command: 'npx', args: ['-y', 'files-mcp'], cwd: 'data', autoApprove: ['read_file']}

/** A cst-agent plugin: a skills folder, an exec tool, a stdio MCP server with cst-agent's own settings. */
const cstFiles = (): Files => ({
  'plugin.json': {
    name: 'wc-tools',
    version: '0.3.0',
    description: 'Word counting tools',
    author: 'Bob Builder <bob@example.com>',
    skills: 'skills',
    tools: [CST_TOOL],
    mcpServers: {files: CST_SERVER},
  },
  'skills/count-words/SKILL.md': skill('count-words'),
  'tools/count.mjs': 'console.log(0)\n',
})

const RESEARCHER = {
  id: 'researcher',
  name: 'Researcher',
  description: 'Finds answers in the docs',
  instructions: 'You research questions.',
  fileAccess: 'inherit',
  tools: [
    {source: 'builtin', name: 'read'},
    {source: 'builtin', name: 'grep'},
    {source: 'mcp', connector: 'docs', name: 'search'},
  ],
  skills: ['acme.search-kit.search'],
  requiredSkills: ['acme.search-kit.search'],
}

/** A Lexora package: a skill, a connector, a subagent. */
const lexoraFiles = (): Files => ({
  'package.json': {
    name: 'search-kit',
    version: '2.0.0',
    description: 'Search the docs',
    id: 'acme.search-kit',
    engines: {lexora: '^4.0.0'},
    contributes: {
      skills: [{id: 'acme.search-kit.search', path: 'skills/search/SKILL.md'}],
      mcpConnectors: [{id: 'docs', transport: 'streamable-http', url: 'https://docs.example.com/mcp', authentication: 'oauth'}],
      subagents: [RESEARCHER],
    },
  },
  'skills/search/SKILL.md': skill('search'),
})

const reasons = (list: readonly NotCarried[]) => list.map((n) => `${n.kind} ${n.name}${n.part ? ` (${n.part})` : ''}`)
const reasonOf = (list: readonly NotCarried[], kind: string, name: string, part?: string) =>
  list.find((n) => n.kind === kind && n.name === name && n.part === part)?.reason

// ---------------------------------------------------------------------------------------------

describe('the source plugins are valid before any conversion', () => {
  it.each([
    ['claude', claudeFiles],
    ['cst-agent', cstFiles],
    ['lexora', lexoraFiles],
  ] as const)('%s', async (_, files) => {
    await expectValid(build(files()))
  })
})

describe('from a Claude plugin', () => {
  it('to Codex: skills, MCP and hooks files named with ./ paths, an interface; no subagents or commands', async () => {
    const root = build(claudeFiles())
    const claudeBefore = readFileSync(join(root, '.claude-plugin/plugin.json'), 'utf8')
    const result = await convert(root, 'codex')
    expect(result).toMatchObject({
      name: 'demo',
      from: ['claude'],
      to: 'codex',
      path: root,
      out: false,
      manifest: '.codex-plugin/plugin.json',
      manifestMode: 'new',
      files: ['.codex-plugin/plugin.json'],
      dryRun: false,
    })
    expect(readJson(join(root, '.codex-plugin/plugin.json'))).toEqual({
      name: 'demo',
      version: '1.2.0',
      description: 'A demo plugin. It shows every part.',
      author: {name: 'Ada Lovelace', email: 'ada@example.com'},
      license: 'MIT',
      keywords: ['demo', 'review'],
      skills: './skills/',
      mcpServers: './.mcp.json',
      hooks: './hooks/hooks.json',
      interface: {displayName: 'Demo', shortDescription: 'A demo plugin.', developerName: 'Ada Lovelace'},
    })
    expect(result.carried).toEqual({skills: ['notes', 'pdf-tools'], subagents: [], mcpServers: ['local', 'remote'], hooks: ['hooks'], commands: [], tools: []})
    expect(reasons(result.notCarried).sort()).toEqual(['command hi', 'hooks hooks (Notification)', 'subagent reviewer'])
    expect(reasonOf(result.notCarried, 'subagent', 'reviewer')).toBe('Codex plugins carry no subagents')
    expect(reasonOf(result.notCarried, 'hooks', 'hooks', 'Notification')).toContain('Codex fires no "Notification" event')
    expect(result.effects).toEqual([])
    expect(readFileSync(join(root, '.claude-plugin/plugin.json'), 'utf8')).toBe(claudeBefore)
    const model = await expectValid(root)
    expect(model.manifests).toEqual(['claude', 'codex'])
    expect(model.mcpServers.map((s) => s.name)).toEqual(['local', 'remote'])
    expect(result.validation).toMatchObject({valid: true, errors: 0})
  })

  it('to cst-agent: the skills folder and the stdio server inline; the http server, agent, hooks and command cannot go', async () => {
    const root = build(claudeFiles())
    const result = await convert(root, 'cst-agent')
    expect(result.manifest).toBe('plugin.json')
    expect(readJson(join(root, 'plugin.json'))).toEqual({
      name: 'demo',
      version: '1.2.0',
      description: 'A demo plugin. It shows every part.',
      author: {name: 'Ada Lovelace', email: 'ada@example.com'},
      license: 'MIT',
      keywords: ['demo', 'review'],
      skills: 'skills',
      mcpServers: {local: CST_LOCAL_SERVER},
    })
    expect(result.carried).toMatchObject({skills: ['notes', 'pdf-tools'], mcpServers: ['local'], hooks: [], subagents: []})
    expect(reasons(result.notCarried).sort()).toEqual(['command hi', 'hooks hooks', 'mcp remote', 'subagent reviewer'])
    expect(reasonOf(result.notCarried, 'mcp', 'remote')).toBe('cst-agent runs MCP servers over stdio only; this one is a remote http server')
    expect(reasonOf(result.notCarried, 'hooks', 'hooks')).toBe('cst-agent runs no hooks')
    // .mcp.json was found by convention: with servers declared in plugin.json, loadout stops reading it
    // and the local server is now read in its cst-agent form (plugin-relative), which starts the same program
    expect(result.effects).toEqual([
      {kind: 'mcp', name: 'remote', change: 'lost', detail: expect.stringContaining('found in .mcp.json by convention')},
      {kind: 'mcp', name: 'local', change: 'changed', detail: expect.any(String)},
    ])
    // cst-agent expands no ${CLAUDE_PLUGIN_ROOT}: the server names its file relative to the plugin folder it starts in
    expect(JSON.stringify(readJson(join(root, 'plugin.json')))).not.toContain('PLUGIN_ROOT')
    expect(result.notes.join('\n')).toContain('relative to the plugin folder')
    const model = await expectValid(root)
    expect(model.mcpServers.map((s) => [s.name, s.config])).toEqual([['local', CST_LOCAL_SERVER]])
    expect(model.tools).toEqual([])
  })

  it('to Lexora: skill ids, an https connector and the agent as a subagent; stdio server, hooks, command and Bash cannot go', async () => {
    const root = build(claudeFiles())
    const result = await convert(root, 'lexora')
    expect(result).toMatchObject({manifest: 'package.json', manifestMode: 'new'})
    const manifest = readJson(join(root, 'package.json'))
    expect(manifest).toMatchObject({
      name: 'demo',
      version: '1.2.0',
      private: true,
      author: 'Ada Lovelace <ada@example.com>',
      id: 'demo',
      engines: {lexora: '^4.0.0'},
    })
    // the seed names no apiVersion field: none is written
    expect(manifest).not.toHaveProperty('apiVersion')
    expect(manifest.contributes).toEqual({
      skills: [
        {id: 'demo.notes', path: 'skills/notes/SKILL.md'},
        {id: 'demo.pdf-tools', path: 'skills/pdf-tools/SKILL.md'},
      ],
      mcpConnectors: [{id: 'remote', transport: 'streamable-http', url: 'https://mcp.example.com/mcp', authentication: 'none'}],
      subagents: [
        {
          id: 'reviewer',
          name: 'Reviewer',
          description: 'Reviews code before it lands.',
          instructions: 'You review code. Be brief.',
          fileAccess: 'inherit',
          tools: [
            {source: 'builtin', name: 'read'},
            {source: 'builtin', name: 'grep'},
          ],
        },
      ],
    })
    expect(result.carried).toEqual({skills: ['notes', 'pdf-tools'], subagents: ['reviewer'], mcpServers: ['remote'], hooks: [], commands: [], tools: []})
    expect(reasons(result.notCarried).sort()).toEqual([
      'command hi',
      'hooks hooks',
      'mcp local',
      'subagent reviewer (model)',
      'subagent reviewer (tools Bash(git diff:*))',
    ])
    expect(reasonOf(result.notCarried, 'mcp', 'local')).toBe('Lexora has no local (stdio) MCP servers: only remote streamable-HTTP connectors')
    expect(reasonOf(result.notCarried, 'hooks', 'hooks')).toBe('Lexora packages run no hooks')
    expect(result.effects.map((e) => `${e.kind} ${e.name} ${e.change}`).sort()).toEqual(['mcp local lost', 'subagent reviewer changed'])
    const model = await expectValid(root)
    expect(model.manifests).toEqual(['claude', 'lexora'])
    expect(model.subagents).toMatchObject([{name: 'reviewer', file: join(root, 'package.json'), body: 'You review code. Be brief.'}])
  })

  it('a read-only agent becomes a read_only Lexora subagent', async () => {
    const root = build(claudeFiles({'agents/reviewer.md': '---\nname: reviewer\ndescription: Reads.\ntools: Read, Glob, LS\n---\n\nRead only.\n'}))
    await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json')).contributes.subagents).toEqual([
      {
        id: 'reviewer',
        name: 'Reviewer',
        description: 'Reads.',
        instructions: 'Read only.',
        fileAccess: 'read_only',
        tools: [
          {source: 'builtin', name: 'read'},
          {source: 'builtin', name: 'find'},
          {source: 'builtin', name: 'ls'},
        ],
      },
    ])
    await expectValid(root)
  })

  it('to Claude itself (--force): the fields loadout does not manage are kept', async () => {
    const root = build(
      claudeFiles({'.claude-plugin/plugin.json': {name: 'demo', description: 'Old text', userConfig: {token: {type: 'string'}}, skills: './skills/notes'}}),
    )
    const refused = await refusal(convert(root, 'claude'))
    expect(refused).toMatchObject({
      code: 'manifest-exists',
      message: `the plugin already has a Claude Code manifest: ${join(root, '.claude-plugin/plugin.json')}`,
    })
    const result = await convert(root, 'claude', {force: true})
    expect(result.manifestMode).toBe('replace')
    // the declared skill folder is kept exactly: skills/pdf-tools was never part of the plugin
    expect(readJson(join(root, '.claude-plugin/plugin.json'))).toEqual({
      name: 'demo',
      description: 'Old text',
      skills: './skills/notes',
      userConfig: {token: {type: 'string'}},
    })
    await expectValid(root)
  })
})

describe('from a cst-agent plugin', () => {
  it('to Claude: the stdio server inline exactly as read (one definition); the exec tool has no Claude form', async () => {
    const root = build(cstFiles())
    const result = await convert(root, 'claude')
    expect(readJson(join(root, '.claude-plugin/plugin.json'))).toEqual({
      name: 'wc-tools',
      version: '0.3.0',
      description: 'Word counting tools',
      author: {name: 'Bob Builder', email: 'bob@example.com'},
      mcpServers: {files: CST_SERVER},
    })
    expect(result.carried).toMatchObject({skills: ['count-words'], mcpServers: ['files'], tools: []})
    expect(reasons(result.notCarried)).toEqual(['mcp files (cwd)', 'mcp files (autoApprove)', 'tool count'])
    expect(reasonOf(result.notCarried, 'tool', 'count')).toContain('Claude Code plugins have no exec tools')
    expect(result.effects).toEqual([])
    const model = await expectValid(root)
    expect(model.mcpServers).toHaveLength(1)
    expect(model.tools.map((t) => t.name)).toEqual(['count'])
  })

  it('to Codex: skills and the server; the exec tool cannot go', async () => {
    const root = build(cstFiles())
    const result = await convert(root, 'codex')
    expect(readJson(join(root, '.codex-plugin/plugin.json'))).toMatchObject({
      name: 'wc-tools',
      skills: './skills/',
      mcpServers: {files: CST_SERVER},
      interface: {displayName: 'Wc Tools'},
    })
    expect(reasons(result.notCarried)).toEqual(['mcp files (autoApprove)', 'tool count'])
    await expectValid(root)
  })

  it('to Lexora: only the skill; the stdio server and the exec tool cannot go', async () => {
    const root = build(cstFiles())
    const result = await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json'))).toMatchObject({
      id: 'wc-tools',
      author: 'Bob Builder <bob@example.com>',
      contributes: {skills: [{id: 'wc-tools.count-words', path: 'skills/count-words/SKILL.md'}]},
    })
    expect(readJson(join(root, 'package.json')).contributes).not.toHaveProperty('mcpConnectors')
    expect(reasons(result.notCarried)).toEqual(['mcp files', 'tool count'])
    expect(reasonOf(result.notCarried, 'tool', 'count')).toBe('an exec tool is a cst-agent feature; Lexora packages run no local programs')
    await expectValid(root)
  })
})

describe('from a Lexora package', () => {
  it('to Claude: the connector inline, the subagent as agents/<id>.md; the MCP tool grant and authentication are reported', async () => {
    const root = build(lexoraFiles())
    const result = await convert(root, 'claude')
    expect(result.files).toEqual(['.claude-plugin/plugin.json', 'agents/researcher.md'])
    expect(readJson(join(root, '.claude-plugin/plugin.json'))).toEqual({
      name: 'search-kit',
      version: '2.0.0',
      description: 'Search the docs',
      mcpServers: {docs: {type: 'http', url: 'https://docs.example.com/mcp'}},
    })
    const agent = readFileSync(join(root, 'agents/researcher.md'), 'utf8')
    const [, yaml, body] = agent.split('---\n')
    expect(parseYaml(yaml!)).toEqual({name: 'researcher', description: 'Finds answers in the docs', tools: 'Read, Grep', skills: ['search']})
    expect(body!.trim()).toBe('You research questions.')
    expect(result.carried).toMatchObject({skills: ['search'], subagents: ['researcher'], mcpServers: ['docs']})
    expect(reasons(result.notCarried)).toEqual(['subagent researcher (tool docs/search)', 'subagent researcher (requiredSkills)', 'mcp docs (authentication)'])
    expect(reasonOf(result.notCarried, 'mcp', 'docs', 'authentication')).toContain('OAuth')
    const model = await expectValid(root)
    // loadout keeps reading the subagent from the Lexora manifest: one definition, no clash
    expect(model.subagents).toMatchObject([{name: 'researcher', file: join(root, 'package.json')}])
  })

  it('to cst-agent: the skill; the connector (remote) and the subagent cannot go', async () => {
    const root = build(lexoraFiles())
    const result = await convert(root, 'cst-agent')
    expect(readJson(join(root, 'plugin.json'))).toEqual({name: 'search-kit', version: '2.0.0', description: 'Search the docs', skills: 'skills'})
    expect(reasons(result.notCarried)).toEqual(['mcp docs', 'subagent researcher'])
    await expectValid(root)
  })

  it('to Codex: the connector inline; the subagent cannot go', async () => {
    const root = build(lexoraFiles())
    const result = await convert(root, 'codex')
    expect(readJson(join(root, '.codex-plugin/plugin.json'))).toMatchObject({
      skills: './skills/',
      mcpServers: {docs: {type: 'http', url: 'https://docs.example.com/mcp'}},
    })
    expect(reasons(result.notCarried)).toEqual(['subagent researcher'])
    await expectValid(root)
  })

  it('to Lexora itself (--force) writes the same manifest again', async () => {
    const root = build(lexoraFiles())
    const before = readFileSync(join(root, 'package.json'), 'utf8')
    expect(await refusal(convert(root, 'lexora'))).toMatchObject({code: 'manifest-exists'})
    const result = await convert(root, 'lexora', {force: true})
    expect(result).toMatchObject({manifestMode: 'replace', notCarried: [], effects: []})
    expect(readJson(join(root, 'package.json'))).toEqual(JSON.parse(before))
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe(`${JSON.stringify(JSON.parse(before), null, 2)}\n`)
  })
})

describe('Lexora rules applied while converting', () => {
  it('a skill folder inside another skill folder is left out', async () => {
    const root = build(
      {
        '.claude-plugin/plugin.json': {name: 'odd', skills: ['./skills/good', './skills/good/inner']},
        'skills/good/SKILL.md': skill('good'),
        'skills/good/inner/SKILL.md': skill('inner'),
      },
      'odd',
    )
    await expectValid(root)
    const result = await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json')).contributes.skills).toEqual([{id: 'odd.good', path: 'skills/good/SKILL.md'}])
    expect(result.carried.skills).toEqual(['good'])
    expect(reasonOf(result.notCarried, 'skill', 'inner')).toBe('its folder is inside the skill folder "skills/good"; Lexora skill folders may not nest')
    await expectValid(root)
  })

  it('a skill named unlike its folder is left out (and, no longer found by convention, reported lost)', async () => {
    const root = build(
      {'.claude-plugin/plugin.json': {name: 'odd'}, 'skills/folder-x/SKILL.md': skill('other-name'), 'skills/fine/SKILL.md': skill('fine')},
      'odd',
    )
    const result = await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json')).contributes.skills).toEqual([{id: 'odd.fine', path: 'skills/fine/SKILL.md'}])
    expect(reasonOf(result.notCarried, 'skill', 'other-name')).toBe(
      'Lexora names a skill after its folder: the folder is "folder-x" but the skill is "other-name"; rename one to match',
    )
    expect(result.effects).toEqual([{kind: 'skill', name: 'other-name', change: 'lost', detail: expect.stringContaining('found in skills/ by convention')}])
  })

  it('a plugin that already breaks a rule is converted, adds no new error, and says it still has one', async () => {
    const root = build(claudeFiles({'agents/reviewer.md': '---\nname: reviewer\n---\n\nNo description.\n'}))
    const result = await convert(root, 'codex')
    expect(result.validation).toMatchObject({
      valid: false,
      errors: 1,
      problems: [expect.objectContaining({code: 'subagent-description-missing', file: 'agents/reviewer.md'})],
    })
    expect(result.notes).toContain('the plugin had 1 error(s) before the conversion, and still has them: `loadout plugin validate` lists them')
    expect(existsSync(join(root, '.codex-plugin/plugin.json'))).toBe(true)
  })

  it('a single-skill plugin (SKILL.md at the root) has no Lexora skill form', async () => {
    const root = build({'SKILL.md': skill('solo')}, 'solo')
    const result = await convert(root, 'lexora')
    expect(reasonOf(result.notCarried, 'skill', 'solo')).toContain('not at the package root')
    expect(readJson(join(root, 'package.json')).contributes).toEqual({})
  })

  it('connectors: plain http, an SSE server and a token in the URL are left out; headers become "authentication"', async () => {
    const root = build(
      claudeFiles({
        '.mcp.json': {
          mcpServers: {
            plain: {type: 'http', url: 'http://127.0.0.1:8080/mcp'},
            stream: {type: 'sse', url: 'https://sse.example.com/mcp'},
            leaky: {type: 'http', url: 'https://mcp.example.com/mcp?access_token=abc'},
            signed: {type: 'http', url: 'https://signed.example.com/mcp', headers: {Authorization: 'Bearer ${TOKEN}'}},
          },
        },
      }),
    )
    const result = await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json')).contributes.mcpConnectors).toEqual([
      {id: 'signed', transport: 'streamable-http', url: 'https://signed.example.com/mcp', authentication: 'bearer'},
    ])
    expect(reasonOf(result.notCarried, 'mcp', 'plain')).toBe('Lexora connectors need an https URL, not http')
    expect(reasonOf(result.notCarried, 'mcp', 'stream')).toBe('Lexora connectors use streamable HTTP, not SSE')
    expect(reasonOf(result.notCarried, 'mcp', 'leaky')).toContain('carries "access_token"')
    expect(reasonOf(result.notCarried, 'mcp', 'signed', 'headers Authorization')).toContain('"authentication": "bearer"')
    await expectValid(root)
  })

  it('a connector that would differ from a server another manifest keeps defining is left out, not doubled', async () => {
    const root = build(
      claudeFiles({
        '.claude-plugin/plugin.json': {name: 'demo', mcpServers: './.mcp.json'},
        '.mcp.json': {mcpServers: {signed: {type: 'http', url: 'https://signed.example.com/mcp', headers: {Authorization: 'Bearer ${TOKEN}'}}}},
      }),
    )
    const result = await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json')).contributes).not.toHaveProperty('mcpConnectors')
    expect(reasonOf(result.notCarried, 'mcp', 'signed')).toBe(
      'its Lexora form leaves out its headers, and .mcp.json keeps the original: two definitions under one name would clash',
    )
    const model = await expectValid(root)
    expect(model.mcpServers.map((s) => s.name)).toEqual(['signed'])
  })

  it('agents a Claude manifest lists itself are not defined again in the Lexora manifest', async () => {
    const root = build(claudeFiles({'.claude-plugin/plugin.json': {name: 'demo', agents: ['./agents/reviewer.md']}}))
    const result = await convert(root, 'lexora')
    expect(readJson(join(root, 'package.json')).contributes).not.toHaveProperty('subagents')
    expect(reasonOf(result.notCarried, 'subagent', 'reviewer')).toContain('lists its agent files in "agents"')
    const model = await expectValid(root)
    expect(model.subagents).toMatchObject([{name: 'reviewer', file: join(root, 'agents/reviewer.md')}])
  })

  it('an npm package.json gains the Lexora fields and keeps its own', async () => {
    const root = build(claudeFiles({'package.json': {name: 'demo', version: '1.2.0', scripts: {test: 'vitest'}, dependencies: {yaml: '2.0.0'}}}))
    const result = await convert(root, 'lexora')
    expect(result.manifestMode).toBe('merge')
    const manifest = readJson(join(root, 'package.json'))
    expect(manifest).toMatchObject({name: 'demo', version: '1.2.0', scripts: {test: 'vitest'}, dependencies: {yaml: '2.0.0'}, id: 'demo'})
    expect(manifest).not.toHaveProperty('private')
    expect(Object.keys(manifest).slice(0, 4)).toEqual(['name', 'version', 'scripts', 'dependencies'])
    await expectValid(root)
  })
})

describe('--out', () => {
  it('copies the plugin and converts the copy; the source is untouched', async () => {
    const root = build(claudeFiles())
    const before = tree(root)
    const out = join(dirname(root), 'dist', 'codex')
    const result = await convert(root, 'codex', {out})
    expect(result).toMatchObject({path: out, out: true, source: root, replacedOut: false})
    expect(result.copied).toBe(Object.keys(before).length)
    expect(tree(root)).toEqual(before)
    expect(tree(out)).toEqual({...before, '.codex-plugin/plugin.json': expect.stringContaining('"skills": "./skills/"')})
    await expectValid(out)
    expect(readdirSync(join(dirname(root), 'dist'))).toEqual(['codex'])
  })

  it('refuses a non-empty folder without --force, and replaces it with --force', async () => {
    const root = build(cstFiles())
    const out = join(dirname(root), 'taken')
    mkdirSync(out)
    writeFileSync(join(out, 'mine.txt'), 'keep me\n')
    expect(await refusal(convert(root, 'claude', {out}))).toMatchObject({code: 'out-not-empty', message: `--out ${out} is not empty`})
    expect(tree(out)).toEqual({'mine.txt': 'keep me\n'})
    const result = await convert(root, 'claude', {out, force: true})
    expect(result.replacedOut).toBe(true)
    expect(existsSync(join(out, 'mine.txt'))).toBe(false)
    expect(existsSync(join(out, '.claude-plugin/plugin.json'))).toBe(true)
  })

  it('refuses a symbolic link, a folder inside the plugin and one that holds it', async () => {
    const root = build(cstFiles())
    const real = join(dirname(root), 'real')
    mkdirSync(real)
    symlinkSync(real, join(dirname(root), 'linked'))
    expect(await refusal(convert(root, 'claude', {out: join(dirname(root), 'linked'), force: true}))).toMatchObject({code: 'out-is-link'})
    expect(readdirSync(real)).toEqual([])
    expect(await refusal(convert(root, 'claude', {out: join(root, 'sub')}))).toMatchObject({code: 'out-inside-plugin'})
    expect(await refusal(convert(root, 'claude', {out: dirname(root), force: true}))).toMatchObject({code: 'out-holds-plugin'})
    expect(existsSync(join(root, 'sub'))).toBe(false)
    expect(existsSync(join(root, '.claude-plugin'))).toBe(false)
  })
})

describe('refusals and dry runs', () => {
  it('--dry-run reports the manifest and the checks, and writes nothing', async () => {
    const root = build(claudeFiles())
    const before = tree(dirname(root))
    const result = await convert(root, 'lexora', {dryRun: true})
    expect(result).toMatchObject({dryRun: true, manifest: 'package.json', validation: {valid: true}, manifestJson: {id: 'demo'}})
    expect(tree(dirname(root))).toEqual(before)
    const withOut = await convert(root, 'lexora', {dryRun: true, out: join(dirname(root), 'out')})
    expect(withOut.copied).toBeGreaterThan(0)
    expect(tree(dirname(root))).toEqual(before)
  })

  it('cst-agent cannot take plugin.json when it is the Lexora manifest, even with --force', async () => {
    const files = lexoraFiles()
    const root = build({'plugin.json': files['package.json']!, 'skills/search/SKILL.md': skill('search')}, 'search-kit')
    const before = tree(root)
    expect(await refusal(convert(root, 'cst-agent', {force: true}))).toMatchObject({code: 'manifest-file-taken'})
    expect(tree(root)).toEqual(before)
  })

  it('a plugin the reader refuses is not converted', async () => {
    const root = build({'.claude-plugin/plugin.json': {name: 'demo', skills: '../elsewhere'}})
    expect(await refusal(convert(root, 'codex'))).toMatchObject({code: 'path-parent-segment', message: expect.stringContaining('has a ".." segment')})
    expect(existsSync(join(root, '.codex-plugin'))).toBe(false)
  })

  it('a manifest folder that is a link is not written through', async () => {
    const root = build({...cstFiles(), 'elsewhere/.keep': '', '.claude-plugin': {link: 'elsewhere'}})
    expect(await refusal(convert(root, 'claude'))).toMatchObject({code: 'unsafe-path', message: expect.stringContaining('symbolic link')})
    expect(readdirSync(join(root, 'elsewhere'))).toEqual(['.keep'])
  })

  it('a conversion that would add an error is refused, and nothing is written', async () => {
    // cst-agent reads a SKILL.md without frontmatter (a warning); Codex reads skills by the Agent Skills rules
    const root = build({...cstFiles(), 'skills/count-words/SKILL.md': 'Counts the words of a text.\n'})
    await expectValid(root)
    const before = tree(dirname(root))
    const refused = await refusal(convert(root, 'codex'))
    expect(refused.code).toBe('convert-invalid')
    expect(refused.message).toContain('the plugin converted to Codex would not validate (nothing was written)')
    expect(refused.message).toContain('skills/count-words/SKILL.md: SKILL.md must start with YAML frontmatter')
    expect(tree(dirname(root))).toEqual(before)
  })

  it('an unknown format is a usage error', async () => {
    const root = build(cstFiles())
    expect(await refusal(convert(root, 'cursor'))).toMatchObject({code: 'bad-format', message: 'unknown --to format "cursor"'})
  })
})
