import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {isLoadoutError, type LoadoutError} from '../../src/core/model/errors.js'
import type {PluginEntry} from '../../src/core/model/marketplace.js'
import {hasErrors, type Problem} from '../../src/core/model/problems.js'
import {checkLinksInside, checkManifestPath, linksOutside} from '../../src/core/kernel/plugin/paths.js'
import {inspectPlugin, readPlugin} from '../../src/core/kernel/plugin/read.js'

// ---------------------------------------------------------------------------------------------
// Building plugins in code

const made: string[] = []
afterAll(() => {
  for (const dir of made) rmSync(dir, {recursive: true, force: true})
})

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'loadout-plugin-read-'))
  made.push(dir)
  return dir
}

type Files = Record<string, string | object>

const writeFiles = (root: string, files: Files): void => {
  mkdirSync(root, {recursive: true})
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
}

/** A plugin folder named `name` in a fresh temporary folder, holding `files` (objects are written as JSON). */
const plugin = (files: Files, name = 'demo'): string => {
  const root = join(tempDir(), name)
  writeFiles(root, files)
  return root
}

/** A folder outside every plugin, whose files carry a canary: it must never show up in a result. */
const CANARY = 'CANARY-7f3a-never-read'
const outside = (files: Files): string => {
  const dir = join(tempDir(), 'outside')
  writeFiles(dir, files)
  return dir
}

const skillMd = (name: string, description = `Does ${name} things.`) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nBody of ${name}.\n`
const agentMd = (name: string, description?: string) => `---\nname: ${name}\n${description ? `description: ${description}\n` : ''}---\nYou are ${name}.\n`

const entryOf = (fields: Partial<PluginEntry> = {}): PluginEntry => ({
  name: 'demo',
  source: {kind: 'relative', path: './demo'},
  tags: [],
  keywords: [],
  raw: {},
  problems: [],
  ...fields,
})

const refusal = (work: () => unknown): LoadoutError => {
  try {
    work()
  } catch (error) {
    if (isLoadoutError(error)) return error
    throw error
  }
  throw new Error('expected a LoadoutError, but nothing was thrown')
}

const codes = (problems: readonly Problem[]) => problems.map((p) => p.code)

/** Nothing from behind a bad path reached the result: the canary is nowhere in the error or the model. */
const expectNothingReadFrom = (root: string, error: LoadoutError) => {
  expect(JSON.stringify(error.toJSON())).not.toContain(CANARY)
  expect(error.message).not.toContain(CANARY)
  const {model} = inspectPlugin(root)
  expect(JSON.stringify(model)).not.toContain(CANARY)
  return model
}

// ---------------------------------------------------------------------------------------------
// The path rules

describe('checkManifestPath', () => {
  const root = plugin({'skills/a/SKILL.md': skillMd('a')})
  const ctx = {root, file: join(root, '.claude-plugin/plugin.json'), jsonPath: 'skills[1]', requireDotSlash: true}

  it('returns the absolute path of a ./-relative path inside the root', () => {
    expect(checkManifestPath('./skills/a', ctx)).toBe(join(root, 'skills/a'))
    expect(checkManifestPath('./not-yet-there', ctx)).toBe(join(root, 'not-yet-there'))
  })

  it('does not need ./ where the format does not (cst-agent, Lexora)', () => {
    expect(checkManifestPath('skills', {...ctx, requireDotSlash: false})).toBe(join(root, 'skills'))
  })

  it.each([
    ['../x', 'path-parent-segment', 'has a ".." segment'],
    ['./a/../../x', 'path-parent-segment', 'has a ".." segment'],
    ['./a/..\\..\\x', 'path-parent-segment', 'has a ".." segment'],
    ['/etc', 'path-absolute', 'is absolute'],
    ['C:\\x', 'path-absolute', 'is an absolute Windows path'],
    ['C:x', 'path-absolute', 'names a Windows drive'],
    ['\\\\server\\share', 'path-absolute', 'network (UNC) path'],
    ['~/x', 'path-absolute', 'home folder'],
    ['skills/a', 'path-not-dot-slash', 'must start with "./"'],
    ['', 'path-empty', 'empty path'],
    [42, 'path-not-string', 'not number'],
  ])('refuses %j with %s, naming the file, the JSON path and the rule', (raw, code, rule) => {
    const error = refusal(() => checkManifestPath(raw, ctx))
    expect(error.code).toBe(code)
    expect(error.exitStatus).toBe(4)
    expect(error.message).toContain('plugin.json')
    expect(error.message).toContain('skills[1]')
    expect(error.message).toContain(rule)
    const problems = (error.details as {problems: Problem[]}).problems
    expect(problems[0]).toMatchObject({severity: 'error', code, path: 'skills[1]', file: ctx.file})
  })

  it('refuses a path that resolves through a link out of the root, even to something that does not exist', () => {
    const away = outside({'secret.txt': CANARY})
    const root = plugin({})
    symlinkSync(away, join(root, 'lib'))
    const at = {...ctx, root}
    expect(refusal(() => checkManifestPath('./lib/secret.txt', at)).code).toBe('path-outside-root')
    expect(refusal(() => checkManifestPath('./lib/missing/deeper', at)).message).toContain(away)
    symlinkSync(join(away, 'nothing-here'), join(root, 'dangling'))
    expect(refusal(() => checkManifestPath('./dangling', at)).message).toContain('does not exist')
  })

  it('accepts a path through a link that stays inside the root', () => {
    const root = plugin({'real/a/SKILL.md': skillMd('a')})
    symlinkSync(join(root, 'real'), join(root, 'alias'))
    expect(checkManifestPath('./alias/a', {...ctx, root})).toBe(join(root, 'alias/a'))
  })
})

describe('checkLinksInside', () => {
  it('accepts links whose target resolves inside the root', () => {
    const root = plugin({'docs/guide.md': '# guide'})
    symlinkSync('../docs/guide.md', join(root, 'docs', 'alias.md'))
    mkdirSync(join(root, 'skills'))
    symlinkSync(join(root, 'docs'), join(root, 'skills', 'docs'))
    expect(() => checkLinksInside(root, root)).not.toThrow()
  })

  it('names each link that leads out and its target, without following it', () => {
    const root = plugin({'skills/a/SKILL.md': skillMd('a')})
    symlinkSync('/etc/passwd', join(root, 'skills/a/passwd'))
    const error = refusal(() => checkLinksInside(root, root))
    expect(error.code).toBe('link-outside-root')
    expect(error.message).toContain('skills/a/passwd')
    expect(error.message).toContain('/etc/passwd')
    expect(error.message).not.toMatch(/root:x?:0/)
  })

  it('shows a target in the home folder as ~/...', () => {
    const home = tempDir()
    writeFiles(join(home, '.ssh'), {id_ed25519: CANARY})
    const root = plugin({})
    symlinkSync(join(home, '.ssh'), join(root, 'keys'))
    const [found] = linksOutside(root, root, {home})
    expect(found?.message).toContain('~/.ssh')
    expect(found?.message).toContain('keys')
  })

  it('refuses a dangling link aimed outside', () => {
    const root = plugin({})
    symlinkSync('/nonexistent-loadout-target/x', join(root, 'gone'))
    expect(codes(linksOutside(root, root))).toEqual(['link-outside-root'])
    expect(linksOutside(root, root)[0]!.message).toContain('does not exist')
  })
})

// ---------------------------------------------------------------------------------------------
// Happy paths, one per manifest kind

describe('readPlugin: Claude manifest', () => {
  it('reads metadata and every component kind from the paths it names', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {
        name: 'review',
        version: '1.2.0',
        description: 'Code review helpers',
        author: {name: 'Ada', email: 'ada@example.com'},
        keywords: ['review', 'lint'],
        skills: ['./skills/pdf', './more'],
        agents: './roles',
        commands: ['./cmds/fix.md'],
        hooks: './config/hooks.json',
        mcpServers: './config/mcp.json',
      },
      'skills/pdf/SKILL.md': skillMd('pdf'),
      'more/csv/SKILL.md': skillMd('csv'),
      'more/xlsx/SKILL.md': skillMd('xlsx'),
      'roles/reviewer.md': agentMd('reviewer', 'Reviews diffs'),
      'cmds/fix.md': '# fix\n',
      'config/hooks.json': {hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/check.sh', timeout: 5}]}]}},
      'config/mcp.json': {mcpServers: {github: {command: 'npx', args: ['-y', 'gh-mcp'], env: {TOKEN: '${GITHUB_TOKEN}'}}}},
    })
    const model = readPlugin(root)
    expect(model).toMatchObject({
      name: 'review',
      version: '1.2.0',
      description: 'Code review helpers',
      author: 'Ada <ada@example.com>',
      keywords: ['review', 'lint'],
      root,
      manifests: ['claude'],
    })
    expect(model.skills.map((s) => [s.name, s.dir])).toEqual([
      ['pdf', join(root, 'skills/pdf')],
      ['csv', join(root, 'more/csv')],
      ['xlsx', join(root, 'more/xlsx')],
    ])
    expect(model.subagents).toEqual([
      {
        kind: 'subagent',
        name: 'reviewer',
        file: join(root, 'roles/reviewer.md'),
        frontmatter: {name: 'reviewer', description: 'Reviews diffs'},
        body: 'You are reviewer.\n',
      },
    ])
    expect(model.commands).toEqual([{kind: 'command', name: 'fix', file: join(root, 'cmds/fix.md')}])
    expect(model.hooks).toEqual([
      {
        kind: 'hooks',
        name: 'hooks',
        events: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/check.sh', timeout: 5}]}]},
      },
    ])
    expect(model.mcpServers).toEqual([{kind: 'mcp', name: 'github', config: {command: 'npx', args: ['-y', 'gh-mcp'], env: {TOKEN: '${GITHUB_TOKEN}'}}}])
    expect(model.problems).toEqual([])
  })

  it('reads inline hooks and MCP servers, leaving ${CLAUDE_PLUGIN_ROOT} and ${PLUGIN_ROOT} for the installer', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {
        name: 'inline',
        author: 'Grace',
        hooks: {SessionStart: [{hooks: [{type: 'command', command: '${PLUGIN_ROOT}/start.sh'}]}]},
        mcpServers: {
          local: {command: '${CLAUDE_PLUGIN_ROOT}/server', cwd: '${CLAUDE_PLUGIN_DATA}'},
          remote: {type: 'sse', url: 'https://mcp.example.com/sse', headers: {'X-Team': 'a'}},
          dev: {url: 'http://127.0.0.1:8080/mcp'},
        },
      },
    })
    const model = readPlugin(root)
    expect(model.author).toBe('Grace')
    expect(model.hooks[0]).toEqual({kind: 'hooks', name: 'inline', events: {SessionStart: [{hooks: [{type: 'command', command: '${PLUGIN_ROOT}/start.sh'}]}]}})
    expect(model.mcpServers.map((s) => [s.name, s.config])).toEqual([
      ['local', {command: '${CLAUDE_PLUGIN_ROOT}/server', cwd: '${CLAUDE_PLUGIN_DATA}'}],
      ['remote', {type: 'sse', url: 'https://mcp.example.com/sse', headers: {'X-Team': 'a'}}],
      ['dev', {type: 'http', url: 'http://127.0.0.1:8080/mcp'}],
    ])
  })

  it('keeps discovering a kind the manifest does not list', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {name: 'partial', commands: './cmds'},
      'cmds/a.md': '# a',
      'commands/ignored.md': '# not used: the manifest lists commands',
      'skills/found/SKILL.md': skillMd('found'),
    })
    const model = readPlugin(root)
    expect(model.commands.map((c) => c.name)).toEqual(['a'])
    expect(model.skills.map((s) => s.name)).toEqual(['found'])
  })
})

describe('readPlugin: Codex manifest', () => {
  it('reads skills, MCP servers and checks interface asset paths', () => {
    const root = plugin({
      '.codex-plugin/plugin.json': {
        name: 'codex-demo',
        version: '0.1.0',
        skills: './skills/',
        mcpServers: {docs: {url: 'https://docs.example.com/mcp'}},
        interface: {displayName: 'Codex demo', logo: './assets/logo.png', defaultPrompt: ['Summarise']},
      },
      'skills/notes/SKILL.md': skillMd('notes'),
    })
    const model = readPlugin(root)
    expect(model.manifests).toEqual(['codex'])
    expect(model.skills.map((s) => s.name)).toEqual(['notes'])
    expect(model.mcpServers).toEqual([{kind: 'mcp', name: 'docs', config: {type: 'http', url: 'https://docs.example.com/mcp'}}])
  })

  it('refuses an interface asset path outside the plugin', () => {
    const root = plugin({'.codex-plugin/plugin.json': {name: 'codex-demo', interface: {logo: '../logo.png'}}})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('path-parent-segment')
    expect(error.message).toContain('interface.logo')
  })
})

describe('readPlugin: Claude and Codex manifests together', () => {
  it('merges their components and warns about each disagreement', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {name: 'both', version: '1.0.0', description: 'Claude words', skills: './skills', mcpServers: './.mcp.json'},
      '.codex-plugin/plugin.json': {name: 'both-codex', version: '1.0.1', description: 'Claude words', skills: ['./codex-skills'], mcpServers: './.mcp.json'},
      'skills/a/SKILL.md': skillMd('a'),
      'codex-skills/b/SKILL.md': skillMd('b'),
      '.mcp.json': {mcpServers: {shared: {command: 'srv'}}},
    })
    const model = readPlugin(root)
    expect(model.manifests).toEqual(['claude', 'codex'])
    expect(model.name).toBe('both')
    expect(model.version).toBe('1.0.0')
    expect(model.skills.map((s) => s.name)).toEqual(['a', 'b'])
    // the same .mcp.json named by both manifests is one server, not a duplicate
    expect(model.mcpServers.map((s) => s.name)).toEqual(['shared'])
    const disagreements = model.problems.filter((p) => p.code === 'manifest-disagreement')
    expect(disagreements.map((p) => [p.severity, p.path])).toEqual([
      ['warning', 'name'],
      ['warning', 'version'],
    ])
    expect(disagreements[0]!.message).toContain('"both-codex"')
    expect(disagreements[0]!.message).toContain('.codex-plugin/plugin.json')
  })

  it('keeps one skill when both manifests name the same folder', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {name: 'same', skills: './skills'},
      '.codex-plugin/plugin.json': {name: 'same', skills: './skills/'},
      'skills/a/SKILL.md': skillMd('a'),
    })
    expect(readPlugin(root).skills.map((s) => s.name)).toEqual(['a'])
  })
})

describe('readPlugin: cst-agent plugin.json', () => {
  const cst = {
    name: 'shell-tools',
    version: '2.0.0',
    tools: [
      {name: 'grep repo', command: ['rg', '--json'], parameters: {type: 'object', properties: {q: {type: 'string'}}}, perm: 'read'},
      {name: 'deploy', description: 'Deploy it', command: 'bin/deploy.sh --prod', inputSchema: {type: 'object'}, timeout: 600},
    ],
    skills: 'skills',
    mcpServers: {
      files: {command: 'mcp-files', args: ['--root', '.'], env: {A: 'b'}, cwd: 'srv', disabled: false, autoApprove: ['read_file']},
      always: {command: 'mcp-always', autoApprove: true},
    },
  }

  it('reads tools (with defaults), a skills folder without ./ and stdio servers', () => {
    const root = plugin({'plugin.json': cst, 'skills/run/SKILL.md': skillMd('run'), 'bin/deploy.sh': '#!/bin/sh\n'})
    const model = readPlugin(root)
    expect(model.manifests).toEqual(['cst-agent'])
    expect(model.cstAgentManifest).toBe(join(root, 'plugin.json'))
    expect(model.tools).toEqual([
      {kind: 'tool', name: 'grep_repo', command: ['rg', '--json'], parameters: {type: 'object', properties: {q: {type: 'string'}}}, perm: 'read', timeout: 60},
      {kind: 'tool', name: 'deploy', command: 'bin/deploy.sh --prod', parameters: {type: 'object'}, perm: 'shell', timeout: 600, description: 'Deploy it'},
    ])
    expect(model.skills.map((s) => s.name)).toEqual(['run'])
    expect(model.mcpServers.map((s) => [s.name, s.config])).toEqual([
      ['files', {command: 'mcp-files', args: ['--root', '.'], env: {A: 'b'}, cwd: 'srv', disabled: false, autoApprove: ['read_file']}],
      ['always', {command: 'mcp-always', autoApprove: true}],
    ])
    expect(model.problems.map((p) => [p.severity, p.code, p.path])).toEqual([['warning', 'tool-name-sanitized', 'tools[0].name']])
  })

  it('reads a skill without frontmatter the cst-agent way (a warning, not an error)', () => {
    const root = plugin({'plugin.json': {name: 'lenient', skills: 'skills'}, 'skills/notes/SKILL.md': '# Notes\n\nTakes notes.\n'})
    const model = readPlugin(root)
    expect(model.skills.map((s) => s.name)).toEqual(['notes'])
    expect(hasErrors(model.problems)).toBe(false)
  })
})

describe('readPlugin: Lexora manifest', () => {
  const manifest = {
    id: 'acme.research',
    name: 'research',
    version: '4.0.0',
    engines: {lexora: '^4.0.0'},
    contributes: {
      skills: [{id: 'acme.research.cite', path: 'skills/cite/SKILL.md'}],
      mcpConnectors: [{id: 'papers', transport: 'streamable-http', url: 'https://papers.example.com/mcp', authentication: 'oauth'}],
      subagents: [{id: 'librarian', name: 'Librarian', description: 'Finds sources', instructions: 'Find three sources.', fileAccess: 'read_only'}],
    },
  }

  it.each(['package.json', 'plugin.json'])('reads contributes from %s', (file) => {
    const root = plugin({[file]: manifest, 'skills/cite/SKILL.md': skillMd('cite')})
    const model = readPlugin(root)
    expect(model.manifests).toEqual(['lexora'])
    expect(model.name).toBe('research')
    expect(model.skills).toEqual([{kind: 'skill', name: 'cite', dir: join(root, 'skills/cite')}])
    expect(model.mcpServers).toEqual([{kind: 'mcp', name: 'papers', config: {type: 'http', url: 'https://papers.example.com/mcp'}}])
    expect(model.subagents).toEqual([
      {
        kind: 'subagent',
        name: 'librarian',
        file: join(root, file),
        frontmatter: {id: 'librarian', name: 'Librarian', description: 'Finds sources', fileAccess: 'read_only'},
        body: 'Find three sources.',
      },
    ])
  })

  it('ignores a package.json without contributes', () => {
    const root = plugin({'package.json': {name: 'Some npm thing', version: '1.0.0'}, 'skills/a/SKILL.md': skillMd('a')})
    expect(readPlugin(root).manifests).toEqual(['none'])
  })

  it('refuses a connector on plain http to a remote host', () => {
    const root = plugin({'package.json': {name: 'x', contributes: {mcpConnectors: [{id: 'p', url: 'http://papers.example.com/mcp'}]}}})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('mcp-url-insecure')
    expect(error.message).toContain('contributes.mcpConnectors[0].url')
  })
})

describe('readPlugin: discovery by convention', () => {
  it('finds skills, agents, commands, hooks and .mcp.json without a manifest', () => {
    const root = plugin(
      {
        'skills/a/SKILL.md': skillMd('a'),
        'skills/b/SKILL.md': skillMd('b'),
        'skills/assets/logo.txt': 'not a skill',
        'agents/helper.md': 'You help.\n',
        'agents/critic.md': agentMd('sharp-critic', 'Criticises'),
        'agents/notes.txt': 'ignored',
        'commands/go.md': '# go',
        'hooks/hooks.json': {hooks: {Stop: [{hooks: [{type: 'command', command: 'echo done'}]}]}},
        '.mcp.json': {bare: {command: 'bare-server'}},
      },
      'my-tools',
    )
    const model = readPlugin(root)
    expect(model.name).toBe('my-tools')
    expect(model.manifests).toEqual(['none'])
    expect(model.skills.map((s) => s.name)).toEqual(['a', 'b'])
    expect(model.subagents.map((s) => [s.name, s.body])).toEqual([
      ['sharp-critic', 'You are sharp-critic.\n'],
      ['helper', 'You help.\n'],
    ])
    expect(model.commands.map((c) => c.name)).toEqual(['go'])
    expect(model.hooks.map((h) => h.name)).toEqual(['hooks'])
    expect(model.mcpServers).toEqual([{kind: 'mcp', name: 'bare', config: {command: 'bare-server'}}])
    expect(model.problems.map((p) => [p.severity, p.code])).toEqual([
      ['warning', 'skill-folder-without-skill-md'],
      ['warning', 'subagent-frontmatter-missing'],
      ['warning', 'subagent-description-missing'],
    ])
  })

  it('reads a root SKILL.md as a single-skill plugin named by its frontmatter', () => {
    const root = plugin({'SKILL.md': skillMd('pdf-tools')}, 'checkout-3f9a2c')
    const model = readPlugin(root)
    expect(model.name).toBe('pdf-tools')
    expect(model.skills).toEqual([{kind: 'skill', name: 'pdf-tools', dir: root}])
    expect(model.problems).toEqual([])
  })

  it('carries a skill’s own errors for the caller to weigh, without refusing the plugin', () => {
    const root = plugin({'skills/bad/SKILL.md': '---\nname: bad\n---\nno description\n'})
    const model = readPlugin(root)
    expect(model.skills.map((s) => s.name)).toEqual(['bad'])
    expect(codes(model.problems)).toContain('description-missing')
    expect(hasErrors(model.problems)).toBe(true)
  })

  it('refuses a folder name that is not kebab-case when nothing else names the plugin', () => {
    const root = plugin({'skills/a/SKILL.md': skillMd('a')}, 'My Plugin')
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('plugin-name-invalid')
    expect(error.message).toContain('"My Plugin"')
  })
})

describe('readPlugin: the marketplace entry', () => {
  it('with strict: false, is the whole definition and plugin.json is ignored', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {name: 'from-manifest', skills: './skills/ignored'},
      'skills/ignored/SKILL.md': skillMd('ignored'),
      'custom/picked/SKILL.md': skillMd('picked'),
      'roles/r.md': agentMd('r', 'A role'),
    })
    const entry = entryOf({
      name: 'from-entry',
      version: '3.1.0',
      description: 'Defined by the catalog',
      strict: false,
      raw: {
        skills: ['./custom/picked'],
        agents: ['./roles/r.md'],
        mcpServers: {svc: {command: 'svc'}},
        hooks: {Stop: [{hooks: [{type: 'command', command: 'x'}]}]},
      },
    })
    const model = readPlugin(root, {entry})
    expect(model).toMatchObject({name: 'from-entry', version: '3.1.0', description: 'Defined by the catalog', manifests: ['none']})
    expect(model.skills.map((s) => s.name)).toEqual(['picked'])
    expect(model.subagents.map((s) => s.name)).toEqual(['r'])
    expect(model.mcpServers.map((s) => s.name)).toEqual(['svc'])
    expect(model.hooks.map((h) => h.name)).toEqual(['inline'])
    expect(codes(model.problems)).toEqual(['manifest-ignored'])
  })

  it('with strict: false, holds its paths to the same rules, naming the entry and the JSON path', () => {
    const away = outside({'x/SKILL.md': skillMd('x', CANARY)})
    const root = join(dirname(away), 'demo')
    writeFiles(root, {})
    const entry = entryOf({strict: false, raw: {skills: ['../outside/x']}})
    const error = refusal(() => readPlugin(root, {entry}))
    expect(error.code).toBe('path-parent-segment')
    expect(error.message).toContain('marketplace entry "demo" skills[0]')
    expect(JSON.stringify(error.toJSON())).not.toContain(CANARY)
  })

  it('names the plugin when the manifest does not, and supplements it when strict', () => {
    const root = plugin({'.codex-plugin/plugin.json': {skills: './skills'}, 'skills/a/SKILL.md': skillMd('a')}, 'Folder_Name')
    const model = readPlugin(root, {entry: entryOf({name: 'catalog-name', raw: {mcpServers: {extra: {command: 'extra'}}}})})
    expect(model.name).toBe('catalog-name')
    expect(model.mcpServers.map((s) => s.name)).toEqual(['extra'])
  })

  it('says when it changed what was read (the budget then reads an installed copy itself)', () => {
    const named = plugin({'.claude-plugin/plugin.json': {name: 'demo'}, 'skills/a/SKILL.md': skillMd('a')})
    const unnamed = plugin({'skills/a/SKILL.md': skillMd('a')}, 'Folder_Name')
    const shaped = (root: string, entry?: PluginEntry) => inspectPlugin(root, entry ? {entry} : {}).shapedByEntry
    expect(shaped(named)).toBe(false)
    // metadata only, the manifest naming the plugin: the same model without it, but for the metadata
    expect(shaped(named, entryOf({name: 'other', version: '2.0.0', description: 'From the catalog'}))).toBe(false)
    expect(inspectPlugin(named, {entry: entryOf({name: 'other'})}).model.name).toBe('demo')
    // it names the plugin, declares parts, or sets the manifests aside
    expect(shaped(unnamed, entryOf({name: 'catalog-name'}))).toBe(true)
    expect(shaped(named, entryOf({raw: {skills: ['./skills/a']}}))).toBe(true)
    expect(shaped(named, entryOf({raw: {mcpServers: {extra: {command: 'extra'}}}}))).toBe(true)
    expect(shaped(named, entryOf({strict: false}))).toBe(true)
  })
})

// ---------------------------------------------------------------------------------------------
// Hostile input, each on its own

describe('hostile manifest paths', () => {
  it.each([
    ['../outside/x', 'path-parent-segment', 'has a ".." segment'],
    ['/etc', 'path-absolute', 'is absolute'],
    ['C:\\x', 'path-absolute', 'is an absolute Windows path'],
    ['C:x', 'path-absolute', 'names a Windows drive'],
    ['./a/../../outside/x', 'path-parent-segment', 'has a ".." segment'],
  ])('refuses skills path %j, naming skills[1] and the rule, reading nothing through it', (bad, code, rule) => {
    const away = outside({'x/SKILL.md': skillMd('x', CANARY)})
    const root = join(dirname(away), 'demo')
    writeFiles(root, {'.claude-plugin/plugin.json': {name: 'demo', skills: ['./skills/ok', bad]}, 'skills/ok/SKILL.md': skillMd('ok')})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe(code)
    expect(error.exitStatus).toBe(4)
    expect(error.message).toContain('.claude-plugin/plugin.json skills[1]')
    expect(error.message).toContain(rule)
    const model = expectNothingReadFrom(root, error)
    expect(model.skills.map((s) => s.name)).toEqual(['ok'])
  })

  it.each([
    ['agents', './../outside/a.md'],
    ['commands', '/etc/passwd'],
    ['hooks', '../outside/hooks.json'],
    ['mcpServers', 'C:\\outside\\mcp.json'],
  ])('refuses a hostile %s path too', (key, bad) => {
    const away = outside({'a.md': CANARY, 'hooks.json': {hooks: {Stop: [{hooks: [{type: 'command', command: CANARY}]}]}}})
    const root = join(dirname(away), 'demo')
    writeFiles(root, {'.claude-plugin/plugin.json': {name: 'demo', [key]: bad}})
    const error = refusal(() => readPlugin(root))
    expect(error.message).toContain(`.claude-plugin/plugin.json ${key}`)
    expectNothingReadFrom(root, error)
  })
})

describe('hostile links', () => {
  it('refuses a skill folder holding a link to /etc/passwd', () => {
    const root = plugin({'skills/a/SKILL.md': skillMd('a')})
    symlinkSync('/etc/passwd', join(root, 'skills/a/passwd'))
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('link-outside-root')
    expect(error.message).toContain('skills/a/passwd')
    expect(error.message).toContain('/etc/passwd')
    expect(error.message).toContain('never followed')
    expect(JSON.stringify(error.toJSON())).not.toMatch(/root:x?:0:0/)
  })

  it('refuses a link to ~/.ssh and shows it as such (a fake home)', () => {
    const home = tempDir()
    writeFiles(join(home, '.ssh'), {id_ed25519: CANARY})
    const root = plugin({'skills/a/SKILL.md': skillMd('a')})
    symlinkSync(join(home, '.ssh'), join(root, 'skills/a/keys'))
    const error = refusal(() => readPlugin(root, {home}))
    expect(error.code).toBe('link-outside-root')
    expect(error.message).toContain('skills/a/keys')
    expect(error.message).toContain('~/.ssh')
    expectNothingReadFrom(root, error)
  })

  it('refuses a skills folder that is a link out of the plugin (by convention)', () => {
    const away = outside({'stolen/SKILL.md': skillMd('stolen', CANARY)})
    const root = plugin({})
    symlinkSync(away, join(root, 'skills'))
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('link-outside-root')
    expect(error.message).toContain('symbolic link skills points outside the plugin root')
    const model = expectNothingReadFrom(root, error)
    expect(model.skills).toEqual([])
    expect(inspectPlugin(root).fatal).toHaveLength(1)
  })

  it('refuses a skills folder that is a link out of the plugin (named by the manifest)', () => {
    const away = outside({'stolen/SKILL.md': skillMd('stolen', CANARY)})
    const root = plugin({'.claude-plugin/plugin.json': {name: 'demo', skills: './skills'}})
    symlinkSync(away, join(root, 'skills'))
    const error = refusal(() => readPlugin(root))
    expect(error.message).toContain('.claude-plugin/plugin.json skills: path "./skills" resolves through a symbolic link')
    expect(codes(inspectPlugin(root).fatal)).toEqual(['link-outside-root', 'path-outside-root'])
    expectNothingReadFrom(root, error)
  })

  it('refuses a SKILL.md that is a link to a file outside', () => {
    const away = outside({'SKILL.md': skillMd('a', CANARY)})
    const root = plugin({})
    mkdirSync(join(root, 'skills/a'), {recursive: true})
    symlinkSync(join(away, 'SKILL.md'), join(root, 'skills/a/SKILL.md'))
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('link-outside-root')
    expect(error.message).toContain('skills/a/SKILL.md')
    const model = expectNothingReadFrom(root, error)
    expect(codes(model.problems)).toContain('skill-file-link-outside')
  })

  it('refuses a manifest that is a link to a file outside', () => {
    const away = outside({'plugin.json': {name: 'demo', description: CANARY}})
    const root = plugin({})
    mkdirSync(join(root, '.claude-plugin'))
    symlinkSync(join(away, 'plugin.json'), join(root, '.claude-plugin/plugin.json'))
    const error = refusal(() => readPlugin(root))
    expect(error.message).toContain('.claude-plugin/plugin.json points outside')
    expectNothingReadFrom(root, error)
  })

  it('refuses a dangling link aimed outside', () => {
    const root = plugin({'skills/a/SKILL.md': skillMd('a')})
    symlinkSync('/nonexistent-loadout/secret', join(root, 'skills/a/later'))
    const error = refusal(() => readPlugin(root))
    expect(error.message).toContain('does not exist')
  })

  it('accepts a link that stays inside the plugin', () => {
    const root = plugin({'shared/a/SKILL.md': skillMd('a')})
    mkdirSync(join(root, 'skills'))
    symlinkSync(join(root, 'shared/a'), join(root, 'skills/a'))
    expect(readPlugin(root).skills.map((s) => s.name)).toEqual(['a'])
  })
})

describe('names used twice', () => {
  it('refuses a plugin naming the same skill from two folders, naming both paths', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {name: 'demo', skills: ['./skills/a', './vendor/a']},
      'skills/a/SKILL.md': skillMd('a'),
      'vendor/a/SKILL.md': skillMd('a'),
    })
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('skill-duplicate')
    expect(error.message).toContain('skill "a" is named twice')
    expect(error.message).toContain('skills/a (skills[0] in .claude-plugin/plugin.json)')
    expect(error.message).toContain('vendor/a (skills[1] in .claude-plugin/plugin.json)')
  })

  it('refuses one manifest listing the same skill folder twice', () => {
    const root = plugin({'.claude-plugin/plugin.json': {name: 'demo', skills: ['./skills/a', './skills/a/']}, 'skills/a/SKILL.md': skillMd('a')})
    expect(refusal(() => readPlugin(root)).code).toBe('skill-duplicate')
  })

  it('refuses two MCP servers of one name from two sources', () => {
    const root = plugin({
      '.claude-plugin/plugin.json': {name: 'demo', mcpServers: ['./.mcp.json', {db: {command: 'other-db'}}]},
      '.mcp.json': {mcpServers: {db: {command: 'db'}}},
    })
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('mcp-duplicate')
    expect(error.message).toContain('MCP server "db" is named twice')
  })
})

describe('hostile or broken manifest content', () => {
  it('refuses a cst-agent MCP entry with a url (stdio only)', () => {
    const root = plugin({'plugin.json': {name: 'cst', mcpServers: {remote: {url: 'https://mcp.example.com'}}}})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('mcp-stdio-only')
    expect(error.message).toContain('plugin.json mcpServers.remote.url')
    expect(error.message).toContain('stdio only')
  })

  it('refuses a tool timeout of 601 seconds', () => {
    const root = plugin({'plugin.json': {name: 'cst', tools: [{name: 'slow', command: ['sleep', '1'], timeout: 601}]}})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('tool-timeout-too-long')
    expect(error.message).toContain('plugin.json tools[0].timeout')
    expect(error.message).toContain('601 seconds; the limit is 600')
  })

  it('refuses a tool program path that climbs out or is absolute', () => {
    const root = plugin({
      'plugin.json': {
        name: 'cst',
        tools: [
          {name: 'a', command: ['../bin/x']},
          {name: 'b', command: '/usr/bin/env bash'},
        ],
      },
    })
    const fatal = inspectPlugin(root).fatal
    expect(fatal.map((p) => [p.code, p.path])).toEqual([
      ['path-parent-segment', 'tools[0].command[0]'],
      ['path-absolute', 'tools[1].command'],
    ])
  })

  it('refuses a bad perm', () => {
    const root = plugin({'plugin.json': {name: 'cst', tools: [{name: 'a', command: 'x', perm: 'root'}]}})
    expect(refusal(() => readPlugin(root)).message).toContain('tools[0].perm')
  })

  it.each([
    ['.claude-plugin/plugin.json', '{"name": "demo",'],
    ['.codex-plugin/plugin.json', '{name: demo}'],
    ['plugin.json', '[1, 2'],
    ['hooks/hooks.json', '{"hooks": {"Stop": [}}'],
    ['.mcp.json', 'not json at all'],
  ])('refuses invalid JSON in %s, naming the file', (file, text) => {
    const root = plugin({[file]: text})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('manifest-not-json')
    expect(error.message).toContain(file)
    expect(error.message).toMatch(/line \d+, column \d+/)
  })

  it('refuses a manifest that is not an object', () => {
    const root = plugin({'.claude-plugin/plugin.json': '["./skills"]'})
    expect(refusal(() => readPlugin(root)).code).toBe('manifest-not-object')
  })

  it('warns (only) about a package.json that is not JSON', () => {
    const root = plugin({'package.json': '{oops', 'skills/a/SKILL.md': skillMd('a')})
    expect(codes(readPlugin(root).problems)).toEqual(['package-json-unreadable'])
  })

  it.each([
    [{web: {url: 'http://mcp.example.com'}}, 'mcp-url-insecure', 'web.url'],
    [{web: {url: 'https://user:secret@mcp.example.com'}}, 'mcp-url-credentials', 'web.url'],
    [{web: {url: 'ftp://mcp.example.com'}}, 'mcp-url-scheme', 'web.url'],
    [{both: {url: 'https://a.example', command: 'b'}}, 'mcp-server-ambiguous', 'both'],
    [{none: {args: ['x']}}, 'mcp-server-no-transport', 'none'],
    [{bad: {command: 'x', env: {A: 1}}}, 'mcp-field-invalid', 'bad.env'],
  ])('refuses MCP server %j', (servers, code, at) => {
    const root = plugin({'.mcp.json': {mcpServers: servers}})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe(code)
    expect(error.message).toContain(`.mcp.json mcpServers.${at}`)
  })

  it('refuses a hook without a command, naming its JSON path', () => {
    const root = plugin({'hooks/hooks.json': {hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command'}]}]}}})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('hook-command-invalid')
    expect(error.message).toContain('hooks/hooks.json hooks.PreToolUse[0].hooks[0].command')
  })

  it('refuses a subagent whose name would escape its folder', () => {
    const root = plugin({'agents/evil.md': agentMd('../../evil', 'x')})
    const error = refusal(() => readPlugin(root))
    expect(error.code).toBe('subagent-name-invalid')
    expect(error.message).toContain('agents/evil.md')
  })

  it('gathers every fatal problem into one error, with all problems in details', () => {
    const root = plugin({'.claude-plugin/plugin.json': {name: 'demo', skills: ['../a', '/b'], agents: 'C:x'}})
    const error = refusal(() => readPlugin(root))
    expect(error.message).toContain('breaks 3 rules')
    const problems = (error.details as {problems: Problem[]}).problems
    expect(problems.map((p) => p.path)).toEqual(['skills[0]', 'skills[1]', 'agents'])
  })
})
