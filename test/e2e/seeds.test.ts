/**
 * The seed documents' own rules, each checked with the seed's example shapes: Lexora API 4 (tool
 * objects, no apiVersion, forbidden fields, read-only subagents, packages instead of folders), Deep
 * Agents Code (skill precedence, tool restrictions, shadowing servers), cst-agent (tool names, the
 * workspace-trust caveat, skills loaded once) and CHARACTOID (YAML skills).
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
type Files = Record<string, string | object>

const write = (root: string, files: Files): string => {
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel)
    mkdirSync(dirname(full), {recursive: true})
    writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
  return root
}
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'))

const READ = {source: 'builtin', name: 'read'}
const GREP = {source: 'builtin', name: 'grep'}

/** The seed's package shape: API 4 by engines.lexora, tools as objects, no apiVersion. */
const seedPackage = (extra: object = {}, contributes: object = {}) => ({
  name: 'notes-kit',
  version: '1.0.0',
  id: 'acme.notes-kit',
  engines: {lexora: '^4.0.0'},
  ...extra,
  contributes: {
    skills: [{id: 'acme.notes-kit.notes', path: 'skills/notes/SKILL.md'}],
    mcpConnectors: [{id: 'docs', transport: 'streamable-http', url: 'https://docs.example.com/mcp', authentication: 'oauth'}],
    subagents: [
      {
        id: 'librarian',
        name: 'Librarian',
        instructions: 'Find sources.',
        fileAccess: 'inherit',
        tools: [READ, GREP, {source: 'mcp', connector: 'docs', name: 'search'}],
      },
    ],
    ...contributes,
  },
})
const SKILL = '---\nname: notes\ndescription: Keeps notes.\n---\n\nTake notes.\n'

describe('Lexora API 4', () => {
  const lexora = (sb: Sandbox, pkg: object) => write(join(sb.project, 'notes-kit'), {'package.json': pkg, 'skills/notes/SKILL.md': SKILL})

  it("the seed's own package validates strictly: tool objects, engines.lexora, no apiVersion", async () => {
    const sb = sandbox()
    const result = await loadout(sb, ['plugin', 'validate', lexora(sb, seedPackage()), '--strict', '--json'])
    expect(result.status, result.stdout).toBe(0)
  })

  it.each([
    ['kind', {kind: 'extension'}, {}],
    ['credential', {credential: {type: 'api-key'}}, {}],
    ['contributes.agent', {}, {agent: {id: 'partner'}}],
  ])('declaring %s is an error', async (path, extra, contributes) => {
    const sb = sandbox()
    const result = await loadout(sb, ['plugin', 'validate', lexora(sb, seedPackage(extra, contributes)), '--json'])
    expect(result.status).toBe(4)
    const problems = (jsonError(result).details as {problems: Array<{code: string; path?: string; severity: string}>}).problems
    expect(problems).toContainEqual(expect.objectContaining({code: 'lexora-field-forbidden', path, severity: 'error'}))
  })

  it('plugin create --format lexora emits tool objects and no apiVersion', async () => {
    const sb = sandbox()
    const created = await loadout(sb, ['plugin', 'create', 'team-kit', '--format', 'lexora', '--with', 'skills,agents', '--no-git', '--json'])
    expect(created.status, created.stderr).toBe(0)
    const pkg = json(join(sb.project, 'team-kit/package.json'))
    expect(pkg).not.toHaveProperty('apiVersion')
    expect(pkg.engines).toEqual({lexora: '^4.0.0'})
    expect(pkg.contributes.subagents[0].tools).toEqual([READ, {source: 'builtin', name: 'find'}, GREP, {source: 'builtin', name: 'ls'}])
  })

  it('plugin convert --to lexora: a read-only reviewer gets read-only file access and tool objects', async () => {
    const sb = sandbox()
    const root = write(join(sb.project, 'review'), {
      '.claude-plugin/plugin.json': {name: 'review', version: '1.0.0'},
      'agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, Glob, WebFetch\n---\n\nYou review code.\n',
    })
    const result = await loadout(sb, ['plugin', 'convert', root, '--to', 'lexora', '--json'])
    expect(result.status, result.stderr + result.stdout).toBe(0)
    const agent = json(join(root, 'package.json')).contributes.subagents[0]
    expect(agent).toMatchObject({id: 'reviewer', fileAccess: 'read_only', tools: [READ, GREP, {source: 'builtin', name: 'find'}]})
  })

  it('install --agent lexora is refused, pointing at plugin pack; plugin pack writes the archive', async () => {
    const sb = sandbox()
    const root = lexora(sb, seedPackage())
    const install = await loadout(sb, ['install', root, '--agent', 'lexora', '--scope', 'user', '--json'])
    expect(install.status).toBe(2)
    expect(jsonError(install)).toMatchObject({
      code: 'agent-installs-packages',
      suggestions: expect.arrayContaining([expect.stringContaining('loadout plugin pack <plugin folder> --format lexora')]),
    })
    const out = join(sb.dir, 'dist')
    mkdirSync(out)
    const packed = await loadout(sb, ['plugin', 'pack', root, '--format', 'lexora', '--out', out, '--json'])
    expect(packed.status, packed.stderr).toBe(0)
    const body = packed.json()
    expect(body).toMatchObject({format: 'lexora', plugin: 'notes-kit', files: 2})
    const listed = execFileSync('tar', ['-tzf', body.archive], {encoding: 'utf8'}).trim().split('\n').sort()
    expect(listed).toEqual(['package/package.json', 'package/skills/notes/SKILL.md'])
    const unpacked = join(sb.dir, 'unpacked')
    mkdirSync(unpacked)
    execFileSync('tar', ['-xzf', body.archive, '-C', unpacked])
    expect(readFileSync(join(unpacked, 'package/skills/notes/SKILL.md'), 'utf8')).toBe(SKILL)
  })

  it('plugin pack --out into a missing folder is a clear error (exit 3), as npm pack --pack-destination refuses one', async () => {
    const sb = sandbox()
    const root = lexora(sb, seedPackage())
    const out = join(sb.dir, 'no-such-dist')
    const packed = await loadout(sb, ['plugin', 'pack', root, '--format', 'lexora', '--out', out, '--json'])
    expect(packed.status, packed.stderr).toBe(3)
    expect(jsonError(packed)).toMatchObject({code: 'pack-out-missing', suggestions: [`create it first: mkdir -p ${out}`]})
    expect(existsSync(out)).toBe(false)
  })

  it('plugin pack refuses a package that fails validation', async () => {
    const sb = sandbox()
    const root = lexora(sb, seedPackage({kind: 'extension'}))
    const packed = await loadout(sb, ['plugin', 'pack', root, '--format', 'lexora', '--out', sb.dir, '--json'])
    expect(packed.status).toBe(4)
    expect(jsonError(packed).code).toBe('pack-invalid')
    expect(existsSync(join(sb.dir, 'notes-kit.tgz'))).toBe(false)
  })
})

describe('Deep Agents Code', () => {
  it('gets command hooks only: a prompt hook is left out with a reason, and consent shows neither it nor runs ""', async () => {
    const sb = sandbox()
    const root = write(join(sb.dir, 'hooked'), {
      '.claude-plugin/plugin.json': {name: 'hooked', version: '1.0.0'},
      'hooks/hooks.json': {
        hooks: {
          Stop: [{hooks: [{type: 'command', command: 'echo done'}]}],
          SessionStart: [{hooks: [{type: 'prompt', prompt: 'Summarise the repository.'}]}],
        },
      },
    })
    const result = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'user', '--yes'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).not.toContain('runs ""')
    // consent is built from what is written: the dropped prompt hook is not among what it asks for
    expect(result.stdout).not.toContain('gives a model the prompt "Summarise the repository."')
    expect(result.stdout).toMatch(/"prompt" hooks dropped/)
    const written = json(join(sb.home, '.deepagents', 'hooks.json'))
    expect(written.hooks).toEqual({Stop: [{hooks: [{type: 'command', command: 'echo done'}]}]})
  })

  it.each(['allowedTools', 'disabledTools', 'auth'])('an MCP server with %s is not written without it: refused, naming the field', async (field) => {
    const sb = sandbox()
    const root = write(join(sb.dir, 'narrow'), {
      '.claude-plugin/plugin.json': {name: 'narrow', version: '1.0.0'},
      '.mcp.json': {mcpServers: {files: {command: 'files-server', [field]: field === 'auth' ? {type: 'oauth'} : ['read']}}},
      'skills/notes/SKILL.md': SKILL,
    })
    const result = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const skipped = result.json().plans[0].skipped as Array<{component: string; reason: string}>
    expect(skipped).toContainEqual(expect.objectContaining({component: 'narrow@direct/mcp/files', reason: expect.stringContaining(`"${field}"`)}))
    const config = join(sb.home, '.deepagents', '.mcp.json')
    expect(existsSync(config) ? readFileSync(config, 'utf8') : '').not.toContain('files-server')
  })

  const SEED_ORDER_LOWEST_FIRST = ['.deepagents/agent/skills', '.agents/skills', 'project:.deepagents/skills', 'project:.agents/skills']

  it("skill precedence is the seed's, lowest to highest: user dcode, user ~/.agents, project .deepagents, project .agents", async () => {
    const sb = sandbox({git: true})
    const at = (place: string) => (place.startsWith('project:') ? join(sb.project, place.slice(8)) : join(sb.home, place))
    for (const place of SEED_ORDER_LOWEST_FIRST) write(at(place), {'same/SKILL.md': `---\nname: same\ndescription: From ${place}.\n---\n\nBody.\n`})
    const listed: Array<{path: string; status: string}> = []
    for (const scope of ['project', 'user']) {
      const result = await loadout(sb, ['skills', 'list', '--agent', 'deepagents', '--scope', scope, '--json'])
      expect(result.status, result.stderr).toBe(0)
      listed.push(...result.json().skills.filter((s: {name: string}) => s.name === 'same'))
    }
    const active = listed.filter((s: {status: string}) => s.status === 'active')
    expect(active.map((s: {path: string}) => s.path)).toEqual([join(at('project:.agents/skills'), 'same')])
    // highest first, as loadout lists load order
    expect(listed.map((s: {path: string}) => s.path)).toEqual([...SEED_ORDER_LOWEST_FIRST].reverse().map((p) => join(at(p), 'same')))
  })
})

type Plan = {
  target: string
  operations: Array<{component: string; dest?: string}>
  skipped: Array<{component: string; reason: string}>
  notes: Array<{component: string; note: string}>
}
const planOf = (body: {plans: Plan[]}, target: string): Plan => body.plans.find((p) => p.target === target)!

describe('Deep Agents Code and cst-agent: what changes on the way is said', () => {
  const reviewer = '---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep, Glob, Bash(git diff:*), WebFetch\n---\n\nYou review code.\n'

  it("a subagent's tools restriction dropped for Deep Agents is a warning; cst-agent gets its own tool names", async () => {
    const sb = sandbox({git: true})
    const root = write(join(sb.dir, 'review'), {'.claude-plugin/plugin.json': {name: 'review', version: '1.0.0'}, 'agents/reviewer.md': reviewer})
    const result = await loadout(sb, ['install', root, '--agent', 'deepagents,cst-agent', '--scope', 'project', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const body = result.json()
    expect(planOf(body, 'deepagents').notes).toContainEqual({
      component: 'review@direct/subagent/reviewer',
      note: expect.stringContaining(
        '"tools" restriction (Read, Grep, Glob, Bash(git diff:*), WebFetch) dropped: Deep Agents Code file subagents cannot narrow tools and inherit all of the main agent\'s tools',
      ),
    })
    const written = readFileSync(join(sb.project, '.agent/agents/reviewer.md'), 'utf8')
    expect(written).toContain('tools: read_file,grep,glob,run_shell,WebFetch\n')
    expect(planOf(body, 'cst-agent').notes.map((n) => n.note)).toContainEqual(
      expect.stringContaining('tools with no known cst-agent counterpart, kept as written: WebFetch'),
    )
  })

  it("a same-named server in the project's root .mcp.json shadows the one written for Deep Agents: said", async () => {
    const sb = sandbox({git: true})
    writeFileSync(join(sb.project, '.mcp.json'), JSON.stringify({mcpServers: {'db-tools-query': {command: 'my-own-query'}}}, null, 2))
    const root = write(join(sb.dir, 'db-tools'), {
      '.claude-plugin/plugin.json': {name: 'db-tools', version: '1.0.0'},
      '.mcp.json': {mcpServers: {query: {command: 'node', args: ['q.js']}}},
    })
    const result = await loadout(sb, ['install', root, '--agent', 'deepagents', '--scope', 'project', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(json(join(sb.project, '.deepagents/.mcp.json')).mcpServers['db-tools-query']).toEqual({command: 'node', args: ['q.js']})
    expect(planOf(result.json(), 'deepagents').notes).toContainEqual({
      component: 'db-tools@direct/mcp/query',
      note: expect.stringContaining(`${join(sb.project, '.mcp.json')} already has a server "db-tools-query"`),
    })
  })

  it("cst-agent: the workspace-trust caveat for .agent/plugins and .agent/mcp.json, and a whole plugin's skills are not copied twice", async () => {
    const sb = sandbox({git: true})
    const root = write(join(sb.dir, 'wc'), {
      'plugin.json': {
        name: 'wc',
        version: '1.0.0',
        description: 'Word counts',
        skills: 'skills',
        tools: [{name: 'count', command: ['node', 'count.mjs'], perm: 'read'}],
        mcpServers: {files: {command: 'node', args: ['files.mjs']}},
      },
      'count.mjs': 'console.log(1)\n',
      'files.mjs': 'console.log(2)\n',
      'skills/counting/SKILL.md': '---\nname: counting\ndescription: Counts words.\n---\n\nCount.\n',
    })
    const result = await loadout(sb, ['install', root, '--agent', 'cst-agent', '--scope', 'project', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const plan = planOf(result.json(), 'cst-agent')
    const trust = plan.notes.filter((n) => n.note.includes('only in a trusted workspace: run `/plugins trust` in cst-agent'))
    expect(trust.map((n) => n.component).sort()).toEqual(['wc@direct/mcp/files', 'wc@direct/plugin/wc'])
    expect(existsSync(join(sb.project, '.agent/plugins/wc/skills/counting/SKILL.md'))).toBe(true)
    expect(existsSync(join(sb.project, '.agent/skills/counting'))).toBe(false)
    expect(plan.skipped).toContainEqual({
      component: 'wc@direct/skill/counting',
      reason: expect.stringContaining('a copy in its skills folder would load it twice'),
    })
  })
})

describe('CHARACTOID: YAML skills', () => {
  it("the seed's example_skill passes skills validate", async () => {
    const sb = sandbox()
    const file = join(sb.dir, 'example_skill.yaml')
    writeFileSync(file, 'name: example_skill\ndescription: An example skill.\ninstructions: |\n  Say hello to the user.\ntool_names:\n  - web_search\n')
    const result = await loadout(sb, ['skills', 'validate', file, '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(result.json().skills).toEqual([{path: file, name: 'example_skill', valid: true, problems: []}])
  })

  it('install writes a YAML skill; skills list --agent characteroid lists it and it validates', async () => {
    const sb = sandbox()
    const root = write(join(sb.dir, 'notes'), {
      '.claude-plugin/plugin.json': {name: 'notes', version: '1.0.0'},
      'skills/take-notes/SKILL.md': '---\nname: take-notes\ndescription: Takes notes: short ones.\n---\n\nWrite notes to ${CLAUDE_PLUGIN_DATA}/notes.md.\n',
      'skills/take-notes/template.md': '# Notes\n',
    })
    const installed = await loadout(sb, ['install', root, '--agent', 'characteroid', '--scope', 'user', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const file = join(sb.home, '.characteroid/skills/take-notes.yaml')
    const text = readFileSync(file, 'utf8')
    expect(text).toMatch(/^name: take-notes\ndescription: "Takes notes: short ones."\ninstructions: \|\n {2}Write notes to \/.*\/notes\.md\.\n$/)
    expect(planOf(installed.json(), 'characteroid').notes.map((n) => n.note)).toContainEqual(expect.stringContaining('only the text of SKILL.md is written'))
    const listed = await loadout(sb, ['skills', 'list', '--agent', 'characteroid', '--scope', 'user', '--json'])
    expect(listed.status, listed.stderr).toBe(0)
    expect(listed.json().skills).toMatchObject([
      {agent: 'characteroid', name: 'take-notes', path: file, description: 'Takes notes: short ones.', status: 'active', valid: true, owner: 'notes@direct'},
    ])
    expect((await loadout(sb, ['skills', 'validate', file])).status).toBe(0)
    expect((await loadout(sb, ['uninstall', 'notes@direct', '--scope', 'user', '--yes'])).status).toBe(0)
    expect(existsSync(file)).toBe(false)
  })
})
