/**
 * `plugin convert` through the built CLI: a Claude plugin, a cst-agent plugin and a Lexora package
 * are built in the sandbox and converted (into their own folder, or a copy with --out); each result
 * passes `loadout plugin validate`, and each refusal exits with its documented status and leaves
 * the sandbox as it was.
 */
import {mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, it} from 'vitest'
import type {PluginConversion} from '../../src/core/ops/authoring/convert.js'
import type {PluginValidation} from '../../src/core/ops/authoring/plugin-validate.js'
import type {Sandbox} from '../support/cli.js'
import {changes, jsonError, loadout, sandboxes, snapshot} from './helpers.js'

const sandbox = sandboxes()

/** Each test runs the CLI several times; on a busy machine a run can take seconds. */
const SLOW = {timeout: 240_000}

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>

const write = (root: string, files: Record<string, string | object>): string => {
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel)
    mkdirSync(dirname(full), {recursive: true})
    writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
  return root
}

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill, for tests.\n---\n\nDo the ${name} thing.\n`

/** A Claude plugin with skills, an agent, a stdio MCP server, an http one and a hook. */
const claudePlugin = (sb: Sandbox, name = 'demo'): string =>
  write(join(sb.project, name), {
    '.claude-plugin/plugin.json': {name: 'demo', version: '1.0.0', description: 'Demo plugin', author: {name: 'Ada'}},
    'skills/pdf-tools/SKILL.md': skill('pdf-tools'),
    'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\n\nYou review code.\n',
    'hooks/hooks.json': {hooks: {SessionStart: [{hooks: [{type: 'command', command: 'echo hi'}]}]}},
    '.mcp.json': {mcpServers: {local: {command: 'node', args: ['server.mjs']}, remote: {type: 'http', url: 'https://mcp.example.com/mcp'}}},
  })

/** A cst-agent plugin with an exec tool. */
const cstPlugin = (sb: Sandbox): string =>
  write(join(sb.project, 'wc-tools'), {
    'plugin.json': {
      name: 'wc-tools',
      description: 'Word counting',
      skills: 'skills',
      tools: [
        {
          name: 'count',
          description: 'Counts words',
          command: ['node', 'tools/count.mjs'],
          parameters: {type: 'object', properties: {text: {type: 'string'}}},
          perm: 'read',
        },
      ],
    },
    'skills/count-words/SKILL.md': skill('count-words'),
    'tools/count.mjs': 'console.log(0)\n',
  })

/** A Lexora package with an http connector and a subagent. */
const lexoraPlugin = (sb: Sandbox): string =>
  write(join(sb.project, 'search-kit'), {
    'package.json': {
      name: 'search-kit',
      description: 'Search the docs',
      id: 'acme.search-kit',
      engines: {lexora: '^4.0.0'},
      contributes: {
        skills: [{id: 'acme.search-kit.search', path: 'skills/search/SKILL.md'}],
        mcpConnectors: [{id: 'docs', transport: 'streamable-http', url: 'https://docs.example.com/mcp', authentication: 'none'}],
        subagents: [
          {
            id: 'researcher',
            name: 'Researcher',
            description: 'Finds answers',
            instructions: 'You research.',
            fileAccess: 'read_only',
            tools: [
              {source: 'builtin', name: 'read'},
              {source: 'builtin', name: 'grep'},
            ],
          },
        ],
      },
    },
    'skills/search/SKILL.md': skill('search'),
  })

const validates = async (sb: Sandbox, path: string, expect: any): Promise<PluginValidation> => {
  const validated = await loadout(sb, ['plugin', 'validate', path, '--json'])
  expect(validated.status, validated.stdout).toBe(0)
  const report = validated.json<PluginValidation>()
  expect(report).toMatchObject({valid: true, errors: 0})
  return report
}

const notCarried = (result: PluginConversion) => result.notCarried.map((n) => `${n.kind} ${n.name}${n.part ? ` (${n.part})` : ''}`).sort()

describe.concurrent('plugin convert', SLOW, () => {
  it.for([
    ['codex', '.codex-plugin/plugin.json', ['subagent reviewer']],
    ['cst-agent', 'plugin.json', ['hooks hooks', 'mcp remote', 'subagent reviewer']],
    ['lexora', 'package.json', ['hooks hooks', 'mcp local']],
  ] as const)('a Claude plugin --to %s --out: the copy holds the new manifest and validates', async ([format, manifest, lost], {expect}) => {
    const sb = sandbox()
    const root = claudePlugin(sb)
    const before = snapshot(root)
    const result = await loadout(sb, ['plugin', 'convert', 'demo', '--to', format, '--out', `out/${format}`, '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    const converted = result.json<PluginConversion>()
    const out = join(sb.project, 'out', format)
    expect(converted).toMatchObject({name: 'demo', from: ['claude'], to: format, source: root, path: out, out: true, manifest, files: [manifest]})
    expect(notCarried(converted)).toEqual(lost)
    expect(json(join(out, manifest))).toEqual(converted.manifestJson)
    expect(json(join(out, manifest))).toMatchObject({name: 'demo'})
    expect(changes(before, snapshot(root))).toEqual([])
    const report = await validates(sb, `out/${format}`, expect)
    expect(report.formats).toContain(format)
  })

  it('the Lexora manifest: skill ids, the https connector, the subagent with instructions and fileAccess', async ({expect}) => {
    const sb = sandbox()
    claudePlugin(sb)
    const result = await loadout(sb, ['plugin', 'convert', './demo', '--to', 'lexora', '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    expect(json(join(sb.project, 'demo/package.json'))).toMatchObject({
      id: 'demo',
      engines: {lexora: '^4.0.0'},
      contributes: {
        skills: [{id: 'demo.pdf-tools', path: 'skills/pdf-tools/SKILL.md'}],
        mcpConnectors: [{id: 'remote', transport: 'streamable-http', url: 'https://mcp.example.com/mcp', authentication: 'none'}],
        subagents: [
          {
            id: 'reviewer',
            name: 'Reviewer',
            description: 'Reviews code.',
            instructions: 'You review code.',
            fileAccess: 'read_only',
            tools: [
              {source: 'builtin', name: 'read'},
              {source: 'builtin', name: 'grep'},
            ],
          },
        ],
      },
    })
    const reason = result.json<PluginConversion>().notCarried.find((n) => n.name === 'local')?.reason
    expect(reason).toBe('Lexora has no local (stdio) MCP servers: only remote streamable-HTTP connectors')
    await validates(sb, 'demo', expect)
  })

  it('a cst-agent plugin --to claude: the exec tool is listed as not carried, on the terminal too', async ({expect}) => {
    const sb = sandbox()
    cstPlugin(sb)
    const result = await loadout(sb, ['plugin', 'convert', 'wc-tools', '--to', 'claude'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain('wrote the Claude Code manifest .claude-plugin/plugin.json for plugin "wc-tools" (cst-agent)')
    expect(result.stdout).toContain('carried over: 1 skill (count-words)')
    expect(result.stdout).toContain(
      'cannot carry over to Claude Code:\n  exec tool "count": an exec tool is a cst-agent feature; Claude Code plugins have no exec tools',
    )
    expect(result.stdout).toMatch(/^valid: 0 error\(s\), 0 warning\(s\)$/m)
    expect(json(join(sb.project, 'wc-tools/.claude-plugin/plugin.json'))).toEqual({name: 'wc-tools', description: 'Word counting'})
    const report = await validates(sb, 'wc-tools', expect)
    expect(report.formats.sort()).toEqual(['claude', 'cst-agent'])
  })

  it('a Lexora package --to claude writes agents/<id>.md; --to codex carries the connector', async ({expect}) => {
    const sb = sandbox()
    lexoraPlugin(sb)
    const claude = await loadout(sb, ['plugin', 'convert', 'search-kit', '--to', 'claude', '--json'])
    expect(claude.status, claude.stdout).toBe(0)
    expect(claude.json<PluginConversion>().files).toEqual(['.claude-plugin/plugin.json', 'agents/researcher.md'])
    expect(readFileSync(join(sb.project, 'search-kit/agents/researcher.md'), 'utf8')).toBe(
      '---\nname: researcher\ndescription: Finds answers\ntools: Read, Grep\n---\n\nYou research.\n',
    )
    expect(json(join(sb.project, 'search-kit/.claude-plugin/plugin.json')).mcpServers).toEqual({docs: {type: 'http', url: 'https://docs.example.com/mcp'}})
    const codex = await loadout(sb, ['plugin', 'convert', 'search-kit', '--to', 'codex', '--json'])
    expect(codex.status, codex.stdout).toBe(0)
    expect(notCarried(codex.json<PluginConversion>())).toEqual(['subagent researcher'])
    const report = await validates(sb, 'search-kit', expect)
    expect(report.formats.sort()).toEqual(['claude', 'codex', 'lexora'])
  })

  it('refuses to replace a manifest of that format without --force; --force replaces it', async ({expect}) => {
    const sb = sandbox()
    cstPlugin(sb)
    const first = await loadout(sb, ['plugin', 'convert', 'wc-tools', '--to', 'codex', '--json'])
    expect(first.status, first.stdout).toBe(0)
    const before = snapshot(sb.dir)
    const again = await loadout(sb, ['plugin', 'convert', 'wc-tools', '--to', 'codex', '--json'])
    expect(again.status).toBe(5)
    expect(jsonError(again)).toMatchObject({
      code: 'manifest-exists',
      message: `the plugin already has a Codex manifest: ${join(sb.project, 'wc-tools/.codex-plugin/plugin.json')}`,
    })
    expect(jsonError(again).suggestions.join(' ')).toContain('--force')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    const forced = await loadout(sb, ['plugin', 'convert', 'wc-tools', '--to', 'codex', '--force', '--json'])
    expect(forced.status, forced.stdout).toBe(0)
    expect(forced.json<PluginConversion>().manifestMode).toBe('replace')
  })

  it('refuses an --out that is a symbolic link or not empty; --dry-run writes nothing', async ({expect}) => {
    const sb = sandbox()
    claudePlugin(sb)
    mkdirSync(join(sb.dir, 'target'))
    symlinkSync(join(sb.dir, 'target'), join(sb.project, 'linked'))
    mkdirSync(join(sb.project, 'full'))
    writeFileSync(join(sb.project, 'full/mine.txt'), 'keep\n')
    const before = snapshot(sb.dir)

    const linked = await loadout(sb, ['plugin', 'convert', 'demo', '--to', 'codex', '--out', 'linked', '--force', '--json'])
    expect(linked.status).toBe(2)
    expect(jsonError(linked)).toMatchObject({code: 'out-is-link', message: expect.stringContaining(`--out ${join(sb.project, 'linked')} is a symbolic link`)})
    const full = await loadout(sb, ['plugin', 'convert', 'demo', '--to', 'codex', '--out', 'full', '--json'])
    expect(full.status).toBe(5)
    expect(jsonError(full)).toMatchObject({code: 'out-not-empty'})
    const dry = await loadout(sb, ['plugin', 'convert', 'demo', '--to', 'cst-agent', '--dry-run', '--json'])
    expect(dry.status, dry.stdout).toBe(0)
    expect(dry.json<PluginConversion>()).toMatchObject({
      dryRun: true,
      manifestJson: {name: 'demo', skills: 'skills', mcpServers: {local: {command: 'node', args: ['server.mjs']}}},
    })
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    expect(readdirSync(join(sb.dir, 'target'))).toEqual([])
  })

  it('needs --to, one of the four formats', async ({expect}) => {
    const sb = sandbox()
    claudePlugin(sb)
    const missing = await loadout(sb, ['plugin', 'convert', 'demo', '--json'])
    expect(missing.status).toBe(2)
    expect(jsonError(missing)).toMatchObject({code: 'to-missing', message: 'missing --to: the format to write, one of claude, codex, cst-agent, lexora'})
    const wrong = await loadout(sb, ['plugin', 'convert', 'demo', '--to', 'cursor', '--json'])
    expect(wrong.status).toBe(2)
    expect(jsonError(wrong).message).toBe('Expected --to=cursor to be one of: claude, codex, cst-agent, lexora')
  })
})
