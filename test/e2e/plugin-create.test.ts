/**
 * `plugin create` and `plugin validate`, through the built CLI: a plugin made with every part and
 * every format validates in each format and installs into claude-code, codex, deepagents and
 * cst-agent unchanged; bad names, taken folders and linked --dir are refused before anything is
 * written; validate exits 4 on a broken plugin and --fix repairs what is mechanical.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import type {CreatedPlugin} from '../../src/core/ops/authoring/plugin-create.js'
import type {PluginValidation} from '../../src/core/ops/authoring/plugin-validate.js'
import type {Sandbox} from '../support/cli.js'
import {changes, jsonError, loadout, sandboxes, snapshot} from './helpers.js'

const sandbox = sandboxes()

/** Each test runs the CLI several times; on a busy machine a run can take seconds. */
const SLOW = {timeout: 240_000}

/** The sandbox environment, with git's system config out of the way so only the sandbox HOME counts. */
const run = (sb: Sandbox, args: string[], cwd?: string) => loadout(sb, args, {env: {GIT_CONFIG_NOSYSTEM: '1'}, ...(cwd ? {cwd} : {})})

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>

/** Every file below `dir` except .git, relative and sorted. */
const files = (dir: string, base = dir): string[] =>
  readdirSync(dir, {withFileTypes: true})
    .flatMap((e) => {
      if (e.name === '.git') return []
      const full = join(dir, e.name)
      return e.isDirectory() ? files(full, base) : [full.slice(base.length + 1)]
    })
    .sort()

describe.concurrent('plugin create --with skills,agents,hooks,mcp --format all', SLOW, () => {
  it('makes a plugin that validates in every format and installs into four agents', async ({expect}) => {
    const sb = sandbox()
    const created = await run(sb, [
      'plugin',
      'create',
      'team-kit',
      '--with',
      'skills,agents,hooks,mcp',
      '--format',
      'all',
      '--description',
      'Team conventions for reviews',
      '--json',
    ])
    expect(created.status, created.stderr + created.stdout).toBe(0)
    const result = created.json<CreatedPlugin>()
    const root = join(sb.project, 'team-kit')
    expect(result).toMatchObject({
      name: 'team-kit',
      path: root,
      formats: ['claude', 'codex', 'cst-agent', 'lexora'],
      parts: ['skills', 'agents', 'hooks', 'mcp'],
      git: {initialized: true},
      replaced: false,
    })
    expect(files(root)).toEqual(
      [
        '.claude-plugin/plugin.json',
        '.codex-plugin/plugin.json',
        '.mcp.json',
        'README.md',
        'agents/team-kit.md',
        'hooks/hooks.json',
        'package.json',
        'plugin.json',
        'servers/team-kit.mjs',
        'skills/team-kit/SKILL.md',
      ].sort(),
    )
    expect(lstatSync(join(root, '.git')).isDirectory()).toBe(true)
    expect(json(join(root, '.claude-plugin/plugin.json'))).toMatchObject({name: 'team-kit', description: 'Team conventions for reviews'})
    expect(json(join(root, '.codex-plugin/plugin.json'))).toMatchObject({
      name: 'team-kit',
      skills: './skills/',
      mcpServers: './.mcp.json',
      interface: {displayName: 'Team Kit'},
    })
    expect(json(join(root, 'plugin.json'))).toMatchObject({name: 'team-kit', skills: 'skills'})
    expect(json(join(root, 'package.json'))).toMatchObject({
      id: 'team-kit',
      engines: {lexora: '^4.0.0'},
      contributes: {skills: [{id: 'team-kit.team-kit', path: 'skills/team-kit/SKILL.md'}]},
    })
    expect(json(join(root, '.mcp.json'))).toEqual({mcpServers: {'team-kit': {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/servers/team-kit.mjs']}}})
    expect(json(join(root, 'hooks/hooks.json')).hooks.SessionStart[0].hooks[0]).toMatchObject({type: 'command', command: expect.stringMatching(/^echo /)})
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('# Team Kit')

    const validated = await run(sb, ['plugin', 'validate', 'team-kit', '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
    const report = validated.json<PluginValidation>()
    expect(report).toMatchObject({name: 'team-kit', valid: true, errors: 0, warnings: 0, problems: []})
    expect(report.formats.sort()).toEqual(['claude', 'codex', 'cst-agent', 'lexora'])
    expect(report.components).toMatchObject({skills: ['team-kit'], subagents: ['team-kit'], mcpServers: ['team-kit'], hooks: ['hooks']})

    // the MCP server it ships answers over stdio
    const reply = execFileSync(process.execPath, [join(root, 'servers/team-kit.mjs')], {
      input: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}\n',
    }).toString()
    expect(JSON.parse(reply)).toMatchObject({id: 1, result: {content: [{type: 'text', text: 'Hello, Ada!'}]}})

    const h = sb.home
    for (const dir of ['.claude', '.codex', '.deepagents', '.config/cst-agent']) mkdirSync(join(h, dir), {recursive: true})
    const installed = await run(sb, [
      'install',
      '--loose',
      './team-kit',
      '--agent',
      'claude-code,codex,deepagents,cst-agent',
      '--scope',
      'user',
      '--yes',
      '--json',
    ])
    expect(installed.status, installed.stderr + installed.stdout).toBe(0)
    expect(installed.json().status).toBe('installed')
    // Deep Agents Code reads Codex's ~/.agents/skills: one copy serves both
    for (const dir of ['.claude/skills', '.agents/skills', '.config/cst-agent/skills']) {
      expect(readFileSync(join(h, dir, 'team-kit', 'SKILL.md'), 'utf8'), dir).toContain('name: team-kit')
    }
    expect(existsSync(join(h, '.claude/agents/team-kit.md'))).toBe(true)
    expect(existsSync(join(h, '.deepagents/agent/agents/team-kit/AGENTS.md'))).toBe(true)
    expect(existsSync(join(h, '.config/cst-agent/agents/team-kit.md'))).toBe(true)
    const claudeServers = json(join(h, '.claude.json')).mcpServers as Record<string, {args: string[]}>
    expect(Object.values(claudeServers).some((s) => s.args[0]!.endsWith('/servers/team-kit.mjs') && !s.args[0]!.includes('${'))).toBe(true)
    expect(readFileSync(join(h, '.codex/config.toml'), 'utf8')).toMatch(/\[mcp_servers\.[^\]]*team-kit[^\]]*\]/)
    expect(Object.keys(json(join(h, '.config/cst-agent/mcp.json')).mcpServers).join()).toContain('team-kit')
    expect(JSON.stringify(json(join(h, '.claude/settings.json')).hooks.SessionStart)).toContain('team-kit: plugin loaded')

    const verified = await run(sb, ['verify', '--json'])
    expect(verified.status, verified.stdout).toBe(0)
  })

  it.for(['claude', 'codex', 'cst-agent', 'lexora'])('with --format %s alone, the plugin validates (strict)', async (format, {expect}) => {
    const sb = sandbox()
    const parts = format === 'cst-agent' ? 'skills,agents,hooks,mcp,commands,tools' : 'skills,agents,hooks,mcp,commands'
    const created = await run(sb, ['plugin', 'create', 'one-kit', '--with', parts, '--format', format, '--no-git', '--json'])
    expect(created.status, created.stdout).toBe(0)
    expect(created.json<CreatedPlugin>().formats).toEqual([format])
    const validated = await run(sb, ['plugin', 'validate', './one-kit', '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
    expect(validated.json<PluginValidation>()).toMatchObject({formats: [format], valid: true, problems: []})
  })
})

describe('plugin create --format lexora --with mcp', SLOW, () => {
  it('alone, defines the MCP server as a contributes.mcpConnectors entry (Lexora runs no stdio server) that validates and installs', async ({expect}) => {
    const sb = sandbox()
    const created = await run(sb, ['plugin', 'create', 'conn-kit', '--with', 'mcp', '--format', 'lexora', '--no-git', '--json'])
    expect(created.status, created.stdout).toBe(0)
    const root = join(sb.project, 'conn-kit')
    expect(json(join(root, 'package.json')).contributes.mcpConnectors).toEqual([
      expect.objectContaining({id: 'conn-kit', transport: 'streamable-http', url: 'https://mcp.example.com/conn-kit', authentication: 'none'}),
    ])
    expect(existsSync(join(root, '.mcp.json'))).toBe(false)
    expect(existsSync(join(root, 'servers'))).toBe(false)
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('contributes.mcpConnectors')
    const validated = await run(sb, ['plugin', 'validate', './conn-kit', '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
    const installed = await run(sb, ['install', '--loose', './conn-kit', '--agent', 'claude-code', '--scope', 'user', '--yes'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(Object.values(JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers)).toEqual([
      {type: 'http', url: 'https://mcp.example.com/conn-kit'},
    ])
  })
})

describe.concurrent('plugin create options', SLOW, () => {
  it('takes the author from git config, or --author, or leaves it out', async ({expect}) => {
    const sb = sandbox()
    const none = await run(sb, ['plugin', 'create', 'no-author', '--no-git', '--json'])
    expect(none.status, none.stdout).toBe(0)
    expect(none.json<CreatedPlugin>().authorFrom).toBe('none')
    expect(json(join(sb.project, 'no-author/.claude-plugin/plugin.json'))).not.toHaveProperty('author')

    writeFileSync(join(sb.home, '.gitconfig'), '[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n')
    const fromGit = await run(sb, ['plugin', 'create', 'git-author', '--format', 'claude,lexora', '--no-git', '--json'])
    expect(fromGit.status, fromGit.stdout).toBe(0)
    expect(fromGit.json<CreatedPlugin>()).toMatchObject({author: {name: 'Ada Lovelace', email: 'ada@example.com'}, authorFrom: 'git-config'})
    expect(json(join(sb.project, 'git-author/.claude-plugin/plugin.json')).author).toEqual({name: 'Ada Lovelace', email: 'ada@example.com'})
    expect(json(join(sb.project, 'git-author/package.json')).author).toBe('Ada Lovelace <ada@example.com>')

    const flag = await run(sb, ['plugin', 'create', 'flag-author', '--author', 'Grace Hopper <grace@example.com>', '--no-git', '--json'])
    expect(flag.json<CreatedPlugin>()).toMatchObject({author: {name: 'Grace Hopper', email: 'grace@example.com'}, authorFrom: 'flag'})
  })

  it('--dir chooses the folder; --dry-run writes nothing; --no-git makes no repository', async ({expect}) => {
    const sb = sandbox()
    const before = snapshot(sb.dir)
    const dry = await run(sb, ['plugin', 'create', 'dry-kit', '--with', 'skills,commands', '--dry-run', '--json'])
    expect(dry.status, dry.stdout).toBe(0)
    expect(dry.json<CreatedPlugin>()).toMatchObject({dryRun: true, files: expect.arrayContaining(['commands/dry-kit.md', 'skills/dry-kit/SKILL.md'])})
    expect(changes(before, snapshot(sb.dir))).toEqual([])

    const placed = await run(sb, ['plugin', 'create', 'placed', '--dir', 'plugins/placed-here', '--no-git', '--json'])
    expect(placed.status, placed.stdout).toBe(0)
    expect(placed.json<CreatedPlugin>().path).toBe(join(sb.project, 'plugins/placed-here'))
    expect(existsSync(join(sb.project, 'plugins/placed-here/skills/placed/SKILL.md'))).toBe(true)
    expect(existsSync(join(sb.project, 'plugins/placed-here/.git'))).toBe(false)
    expect(readdirSync(join(sb.project, 'plugins'))).toEqual(['placed-here'])
  })

  it('takes what the author typed literally, never as template code', async ({expect}) => {
    const sb = sandbox()
    const description = 'Checks {{name}} and {{title}} for $& "quotes", \\ back: slashes # and: yaml traps'
    const created = await run(sb, [
      'plugin',
      'create',
      'lit-kit',
      '--with',
      'skills,agents',
      '--format',
      'claude,codex,lexora',
      '--description',
      description,
      '--no-git',
      '--json',
    ])
    expect(created.status, created.stdout).toBe(0)
    const root = join(sb.project, 'lit-kit')
    expect(json(join(root, '.claude-plugin/plugin.json')).description).toBe(description)
    expect(json(join(root, 'package.json')).description).toBe(description)
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(`\n${description}\n`)
    const frontmatter = readFileSync(join(root, 'skills/lit-kit/SKILL.md'), 'utf8').split('---\n')[1]!
    expect(parseYaml(frontmatter)).toEqual({name: 'lit-kit', description})
    const validated = await run(sb, ['plugin', 'validate', 'lit-kit', '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)

    const long = await run(sb, ['plugin', 'create', 'long-kit', '--description', 'x'.repeat(1025), '--json'])
    expect(long.status).toBe(2)
    expect(jsonError(long)).toMatchObject({code: 'description-too-long', message: 'the description is 1025 characters; the limit is 1024'})
    expect(existsSync(join(sb.project, 'long-kit'))).toBe(false)
  })

  it('makes no nested repository inside a git work tree', async ({expect}) => {
    const sb = sandbox()
    execFileSync('git', ['init', '--quiet'], {cwd: sb.project, env: {...sb.env, GIT_CONFIG_NOSYSTEM: '1'}})
    const created = await run(sb, ['plugin', 'create', 'inner-kit', '--json'])
    expect(created.status, created.stdout).toBe(0)
    expect(created.json<CreatedPlugin>().git).toMatchObject({initialized: false, skipped: expect.stringContaining('inside the git work tree')})
    expect(existsSync(join(sb.project, 'inner-kit/.git'))).toBe(false)
  })
})

describe.concurrent('plugin create refuses bad input before writing anything', SLOW, () => {
  it.for([
    ['my plugin', 'contains whitespace; use kebab-case'],
    ['../evil', 'contains a path separator (/ or \\)'],
    ['..', 'contains ".."'],
    ['Team-Kit', 'has upper-case letters'],
    ['team--kit', 'has two hyphens in a row'],
  ])('name %j', async ([name, rule], {expect}) => {
    const sb = sandbox()
    const before = snapshot(sb.dir)
    const result = await run(sb, ['plugin', 'create', name, '--json'])
    expect(result.status).toBe(2)
    expect(jsonError(result)).toMatchObject({code: 'plugin-name-invalid', message: expect.stringContaining(`plugin name ${JSON.stringify(name)} ${rule}`)})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('an existing folder without --force; with --force it is replaced', async ({expect}) => {
    const sb = sandbox()
    const dir = join(sb.project, 'taken')
    mkdirSync(dir)
    writeFileSync(join(dir, 'mine.txt'), 'keep me\n')
    const before = snapshot(sb.dir)
    const refused = await run(sb, ['plugin', 'create', 'taken', '--json'])
    expect(refused.status).toBe(5)
    expect(jsonError(refused)).toMatchObject({code: 'plugin-dir-exists', message: `${dir} already exists`})
    expect(jsonError(refused).suggestions.join(' ')).toContain('--force')
    expect(changes(before, snapshot(sb.dir))).toEqual([])

    const forced = await run(sb, ['plugin', 'create', 'taken', '--force', '--no-git', '--json'])
    expect(forced.status, forced.stdout).toBe(0)
    expect(forced.json<CreatedPlugin>().replaced).toBe(true)
    expect(existsSync(join(dir, 'mine.txt'))).toBe(false)
    expect(existsSync(join(dir, '.claude-plugin/plugin.json'))).toBe(true)
    expect(readdirSync(sb.project)).toEqual(['taken'])
  })

  it('a --dir that is a symbolic link, or lies below one', async ({expect}) => {
    const sb = sandbox()
    const elsewhere = join(sb.dir, 'elsewhere')
    mkdirSync(elsewhere)
    symlinkSync(elsewhere, join(sb.project, 'link'))
    const before = snapshot(sb.dir)
    const direct = await run(sb, ['plugin', 'create', 'linked', '--dir', 'link', '--force', '--json'])
    expect(direct.status).toBe(2)
    expect(jsonError(direct)).toMatchObject({
      code: 'dir-is-link',
      message: `${join(sb.project, 'link')} is a symbolic link (to ${elsewhere}); loadout does not create a plugin through a link`,
    })
    const below = await run(sb, ['plugin', 'create', 'linked', '--dir', 'link/linked', '--json'])
    expect(below.status).toBe(4)
    expect(jsonError(below).message).toContain(`refusing to write through the symbolic link ${join(sb.project, 'link')}`)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    expect(readdirSync(elsewhere)).toEqual([])
  })

  it('unknown parts and formats, and tools without cst-agent', async ({expect}) => {
    const sb = sandbox()
    const before = snapshot(sb.dir)
    const [part, format, tools] = await Promise.all([
      run(sb, ['plugin', 'create', 'odd-kit', '--with', 'skills,widgets', '--json']),
      run(sb, ['plugin', 'create', 'odd-kit', '--format', 'vscode', '--json']),
      run(sb, ['plugin', 'create', 'odd-kit', '--with', 'tools', '--format', 'claude', '--json']),
    ])
    expect(part.status).toBe(2)
    expect(jsonError(part)).toMatchObject({code: 'bad-with', message: 'unknown --with value "widgets"'})
    expect(format.status).toBe(2)
    expect(jsonError(format)).toMatchObject({code: 'bad-format', message: 'unknown --format value "vscode"'})
    expect(jsonError(format).suggestions.join()).toContain('claude, codex, cst-agent, lexora, all')
    expect(tools.status).toBe(2)
    expect(jsonError(tools)).toMatchObject({code: 'tools-need-cst-agent', message: expect.stringContaining('--with tools needs --format cst-agent')})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('plugin validate', SLOW, () => {
  it('validates a folder of plugins plugin by plugin, failing when one fails', async ({expect}) => {
    const sb = sandbox()
    const folder = join(sb.project, 'plugins')
    mkdirSync(folder)
    for (const name of ['one', 'two']) expect((await run(sb, ['plugin', 'create', name, '--no-git', '--dir', join(folder, name)])).status).toBe(0)
    const ok = await run(sb, ['plugin', 'validate', 'plugins', '--json'])
    expect(ok.status, ok.stdout).toBe(0)
    expect(ok.json<{plugins: PluginValidation[]}>().plugins.map((p) => p.name)).toEqual(['one', 'two'])
    writeFileSync(join(folder, 'two', '.claude-plugin', 'plugin.json'), '{"name": "Two Words"}')
    const bad = await run(sb, ['plugin', 'validate', 'plugins', '--json'])
    expect(bad.status).toBe(4)
    expect(jsonError(bad).message).toMatch(/plugin "(Two Words|two)"/)
  })

  it('exits 4 listing every problem, --fix repairs the mechanical ones, --strict fails on warnings', async ({expect}) => {
    const sb = sandbox()
    const created = await run(sb, ['plugin', 'create', 'fix-me', '--with', 'skills,agents', '--no-git', '--json'])
    expect(created.status, created.stdout).toBe(0)
    const manifest = join(sb.project, 'fix-me/.claude-plugin/plugin.json')
    writeFileSync(
      manifest,
      '{\n  "name": "Fix-Me",\n  "skills": "skills",\n  "agents": ["./agents/fix-me.md"],\n  "homepage": "https://example.com",\n  "colour": "blue"\n}\n',
    )

    const broken = await run(sb, ['plugin', 'validate', 'fix-me', '--json'])
    expect(broken.status).toBe(4)
    const error = jsonError(broken)
    expect(error.code).toBe('validation-failed')
    const problems = (error.details as PluginValidation).problems
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({severity: 'error', code: 'plugin-name-invalid', file: '.claude-plugin/plugin.json', path: 'name'}),
        expect.objectContaining({
          severity: 'error',
          code: 'path-not-dot-slash',
          file: '.claude-plugin/plugin.json',
          path: 'skills',
          message: 'path "skills" must start with "./" (relative to the plugin root)',
        }),
        expect.objectContaining({severity: 'warning', code: 'manifest-field-unknown', path: 'colour'}),
      ]),
    )
    const human = await run(sb, ['plugin', 'validate', 'fix-me'])
    expect(human.status).toBe(4)
    expect(human.stderr).toContain('path-not-dot-slash')
    expect(human.stderr).toContain('--fix')

    const fixed = await run(sb, ['plugin', 'validate', 'fix-me', '--fix', '--json'])
    expect(fixed.status, fixed.stdout).toBe(0)
    expect(fixed.json<PluginValidation>().fixes).toEqual([
      {file: '.claude-plugin/plugin.json', path: 'name', rule: 'name-case', before: 'Fix-Me', after: 'fix-me'},
      {file: '.claude-plugin/plugin.json', path: 'skills', rule: 'path-not-dot-slash', before: 'skills', after: './skills'},
    ])
    expect(readFileSync(manifest, 'utf8')).toBe(
      '{\n  "name": "fix-me",\n  "skills": "./skills",\n  "agents": ["./agents/fix-me.md"],\n  "homepage": "https://example.com",\n  "colour": "blue"\n}\n',
    )

    const strict = await run(sb, ['plugin', 'validate', 'fix-me', '--strict', '--json'])
    expect(strict.status).toBe(4)
    expect(jsonError(strict).message).toContain('0 error(s), 1 warning(s) (strict)')
  })

  it('a folder that does not exist is not found (exit 3)', async ({expect}) => {
    const sb = sandbox()
    const result = await run(sb, ['plugin', 'validate', 'nowhere', '--json'])
    expect(result.status).toBe(3)
    expect(jsonError(result).code).toBe('plugin-not-found')
  })
})
