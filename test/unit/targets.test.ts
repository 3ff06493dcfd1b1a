import {execFileSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {isLoadoutError} from '../../src/core/model/errors.js'
import type {Scope, ScopeContext} from '../../src/core/kernel/env/scope.js'
import {describeTargets} from '../../src/core/kernel/targets/describe.js'
import {AGENTS_DIR, loadTargets, pickTargets, splitList} from '../../src/core/kernel/targets/registry.js'
import {detectTarget, resolveBase, sectionLocations} from '../../src/core/kernel/targets/resolve.js'
import {SECTION_NAMES, type AgentTarget, type SectionName} from '../../src/core/kernel/targets/types.js'

const ROOT = join(import.meta.dirname, '..', '..')

/** Every target ../shared/TARGETS.md asks for. */
const REQUIRED_TARGETS = [
  'claude-code',
  'codex',
  'universal',
  'cursor',
  'opencode',
  'github-copilot',
  'gemini-cli',
  'cst-agent',
  'deepagents',
  'characteroid',
  'lexora',
]

let sandbox: string
let home: string
let project: string
let targets: AgentTarget[]

beforeAll(async () => {
  // the validator is compiled by the build; global-setup builds when dist/commands is missing
  if (!existsSync(join(ROOT, 'dist', 'schemas', 'agent-target.cjs'))) {
    execFileSync(process.execPath, [join(ROOT, 'bin', 'build.mjs')], {cwd: ROOT, stdio: 'inherit'})
  }
  sandbox = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-targets-')))
  home = join(sandbox, 'home')
  project = join(sandbox, 'project')
  mkdirSync(home)
  mkdirSync(project)
  targets = await loadTargets()
})

afterAll(() => rmSync(sandbox, {recursive: true, force: true}))

const envWith = (vars: Record<string, string> = {}, platform: NodeJS.Platform = 'linux'): Environment => ({
  vars,
  home,
  cwd: project,
  platform,
  interactive: false,
})

const target = (id: string): AgentTarget => {
  const found = targets.find((t) => t.id === id)
  if (!found) throw new Error(`no target ${id}`)
  return found
}

const context = (scope: Scope): ScopeContext => ({scope, projectRoot: project})

const paths = (id: string, section: SectionName, scope: Scope, env = envWith()): string[] =>
  sectionLocations(target(id), section, env, context(scope)).map((l) => l.absolute)

describe('the registry', () => {
  it('holds every target of TARGETS.md, each valid against the schema', async () => {
    const ids = targets.map((t) => t.id)
    for (const id of REQUIRED_TARGETS) expect(ids, id).toContain(id)
    // loadTargets validated each file; check that it read every file and nothing else
    const files = readdirSync(AGENTS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
    expect(ids).toEqual(files.map((f) => f.replace(/\.json$/, '')))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('validates each file on its own against the compiled schema', async () => {
    const {loadValidator} = await import('../../src/core/kernel/json/schemas.js')
    const validate = await loadValidator('agent-target')
    for (const file of readdirSync(AGENTS_DIR).filter((f) => f.endsWith('.json'))) {
      const data: unknown = JSON.parse(readFileSync(join(AGENTS_DIR, file), 'utf8'))
      expect(validate(data), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
  })

  it('start-up skips validating the shipped files only while they are the ones the build validated', async () => {
    const {REGISTRY_CHECKED, registrySnapshot, registryFiles} = await import('../../src/core/kernel/targets/registry.js')
    const files = registryFiles(AGENTS_DIR)
    expect(readFileSync(REGISTRY_CHECKED, 'utf8')).toBe(registrySnapshot(files))
    // one byte of one file, or a file's name, changes the text: the files are then validated again
    const [first, ...rest] = files
    expect(registrySnapshot([[first![0], `${first![1]} `], ...rest])).not.toBe(registrySnapshot(files))
    expect(registrySnapshot([[`x${first![0]}`, first![1]], ...rest])).not.toBe(registrySnapshot(files))
  })

  it('resolves every path of every target in both scopes, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const env = envWith({}, platform)
      for (const t of targets) {
        for (const section of SECTION_NAMES) {
          for (const scope of ['user', 'project'] as const) {
            for (const location of sectionLocations(t, section, env, context(scope))) {
              expect(location.scope).toBe(scope)
              // nothing resolves outside HOME or the project unless an environment variable said so
              const inside = location.absolute.startsWith(`${home}/`) || location.absolute.startsWith(`${project}/`)
              expect(inside, `${t.id} ${section} ${location.path} -> ${location.absolute}`).toBe(true)
              expect(location.absolute.startsWith(location.root), `${t.id} ${section} ${location.path}`).toBe(true)
            }
          }
        }
        expect(() => detectTarget(t, env)).not.toThrow()
      }
    }
  })

  it('gives every agent that installs a skills folder, except where TARGETS.md has none', () => {
    for (const t of targets) {
      if (t.installs === false) {
        expect(t.id).toBe('lexora')
        for (const section of SECTION_NAMES) expect(t[section], `${t.id} ${section}`).toBeUndefined()
        continue
      }
      expect(t.skills, t.id).toBeDefined()
      expect(t.detect.length, t.id).toBeGreaterThan(0)
    }
  })

  it('rejects a broken target file in another folder, naming the file', async () => {
    const dir = join(sandbox, 'broken-registry')
    mkdirSync(dir)
    copyFileSync(join(AGENTS_DIR, 'universal.json'), join(dir, 'universal.json'))
    expect((await loadTargets(dir)).map((t) => t.id)).toEqual(['universal'])

    const broken = {...JSON.parse(readFileSync(join(AGENTS_DIR, 'universal.json'), 'utf8')), id: 'broken-agent', confidence: 'maybe'}
    delete broken.detect
    writeFileSync(join(dir, 'broken-agent.json'), JSON.stringify(broken))
    const error = await loadTargets(dir).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isLoadoutError(error)).toBe(true)
    expect((error as Error).message).toContain('broken-agent.json')
    expect((error as Error).message).toMatch(/detect/)
    expect((error as Error).message).toMatch(/confidence/)
  })

  it('rejects a target whose id differs from its file name', async () => {
    const dir = join(sandbox, 'misnamed-registry')
    mkdirSync(dir)
    copyFileSync(join(AGENTS_DIR, 'universal.json'), join(dir, 'other.json'))
    await expect(loadTargets(dir)).rejects.toThrow(/other\.json.*"universal"/)
  })

  it('rejects a file that is not JSON, naming the file', async () => {
    const dir = join(sandbox, 'garbled-registry')
    mkdirSync(dir)
    writeFileSync(join(dir, 'garbled.json'), '{"id": "garbled",')
    const error = await loadTargets(dir).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isLoadoutError(error)).toBe(true)
    expect((error as Error).message).toContain('garbled.json')
  })

  it('rejects a location the schema does not know', async () => {
    const dir = join(sandbox, 'extra-registry')
    mkdirSync(dir)
    const data = JSON.parse(readFileSync(join(AGENTS_DIR, 'universal.json'), 'utf8'))
    data.skills.locations[0].pathh = '.agents/skills'
    writeFileSync(join(dir, 'universal.json'), JSON.stringify(data))
    await expect(loadTargets(dir)).rejects.toThrow(/universal\.json/)
  })

  it('picks targets by id and refuses an unknown one as a usage error listing the known ones', () => {
    expect(pickTargets(splitList(' codex, claude-code,codex,'), targets).map((t) => t.id)).toEqual(['codex', 'claude-code'])
    try {
      pickTargets(['claude'], targets)
      expect.unreachable()
    } catch (error) {
      expect(isLoadoutError(error) && error.exitStatus).toBe(2)
      expect(isLoadoutError(error) && error.suggestions.join(' ')).toContain('claude-code')
    }
  })
})

describe('resolution', () => {
  it('puts claude-code user folders under ~/.claude by default', () => {
    expect(paths('claude-code', 'skills', 'user')).toEqual([join(home, '.claude', 'skills')])
    expect(paths('claude-code', 'subagents', 'user')).toEqual([join(home, '.claude', 'agents')])
    expect(paths('claude-code', 'hooks', 'user')).toEqual([join(home, '.claude', 'settings.json')])
    expect(paths('claude-code', 'mcp', 'user')).toEqual([join(home, '.claude.json')])
  })

  it('moves claude-code user folders with CLAUDE_CONFIG_DIR', () => {
    const config = join(sandbox, 'claude-config')
    const env = envWith({CLAUDE_CONFIG_DIR: config})
    expect(paths('claude-code', 'skills', 'user', env)).toEqual([join(config, 'skills')])
    expect(paths('claude-code', 'subagents', 'user', env)).toEqual([join(config, 'agents')])
    expect(paths('claude-code', 'hooks', 'user', env)).toEqual([join(config, 'settings.json')])
    // project paths do not move
    expect(paths('claude-code', 'skills', 'project', env)).toEqual([join(project, '.claude', 'skills')])
  })

  it('moves the user .claude.json (mcpServers) into CLAUDE_CONFIG_DIR as well', () => {
    const config = join(sandbox, 'claude-config')
    expect(paths('claude-code', 'mcp', 'user', envWith({CLAUDE_CONFIG_DIR: config}))).toEqual([join(config, '.claude.json')])
  })

  it('ignores an empty CLAUDE_CONFIG_DIR', () => {
    expect(paths('claude-code', 'skills', 'user', envWith({CLAUDE_CONFIG_DIR: '  '}))).toEqual([join(home, '.claude', 'skills')])
  })

  it('expands ~ in an environment variable against the environment home', () => {
    expect(paths('claude-code', 'skills', 'user', envWith({CLAUDE_CONFIG_DIR: '~/alt-claude'}))).toEqual([join(home, 'alt-claude', 'skills')])
  })

  it('moves codex config.toml (and its older skills folder) with CODEX_HOME', () => {
    expect(paths('codex', 'mcp', 'user')).toEqual([join(home, '.codex', 'config.toml')])
    const codexHome = join(sandbox, 'codex-home')
    const env = envWith({CODEX_HOME: codexHome})
    expect(paths('codex', 'mcp', 'user', env)).toEqual([join(codexHome, 'config.toml')])
    expect(paths('codex', 'hooks', 'user', env)).toEqual([join(codexHome, 'hooks.json')])
    // ~/.agents/skills is not under CODEX_HOME
    expect(paths('codex', 'skills', 'user', env)).toEqual([join(home, '.agents', 'skills'), join(codexHome, 'skills')])
    const location = sectionLocations(target('codex'), 'mcp', env, context('user'))[0]!
    expect(location.key).toBeUndefined()
    expect(target('codex').mcp).toMatchObject({format: 'codex-toml', key: 'mcp_servers'})
  })

  it('moves cst-agent and opencode with XDG_CONFIG_HOME', () => {
    expect(paths('cst-agent', 'skills', 'user')).toEqual([join(home, '.config', 'cst-agent', 'skills')])
    // its own folder moves; the folders of Claude Code and the other agents it also reads stay in HOME
    const beside = [join(home, '.claude', 'skills'), join(home, '.agents', 'skills')]
    expect(paths('opencode', 'skills', 'user')).toEqual([join(home, '.config', 'opencode', 'skills'), ...beside])
    const xdg = join(sandbox, 'xdg-config')
    const env = envWith({XDG_CONFIG_HOME: xdg})
    expect(paths('cst-agent', 'skills', 'user', env)).toEqual([join(xdg, 'cst-agent', 'skills')])
    expect(paths('cst-agent', 'subagents', 'user', env)).toEqual([join(xdg, 'cst-agent', 'agents')])
    expect(paths('cst-agent', 'mcp', 'user', env)).toEqual([join(xdg, 'cst-agent', 'mcp.json')])
    expect(paths('cst-agent', 'plugins', 'user', env)).toEqual([join(xdg, 'cst-agent', 'plugins')])
    expect(paths('opencode', 'skills', 'user', env)).toEqual([join(xdg, 'opencode', 'skills'), ...beside])
  })

  it('uses %APPDATA% for cst-agent on Windows only', () => {
    const appData = join(sandbox, 'AppData', 'Roaming')
    const xdg = join(sandbox, 'xdg-config')
    expect(resolveBase(target('cst-agent'), 'cfg', envWith({APPDATA: appData, XDG_CONFIG_HOME: xdg}, 'win32'))).toBe(join(appData, 'cst-agent'))
    expect(paths('cst-agent', 'skills', 'user', envWith({APPDATA: appData}, 'win32'))).toEqual([join(appData, 'cst-agent', 'skills')])
    // elsewhere APPDATA means nothing
    expect(paths('cst-agent', 'skills', 'user', envWith({APPDATA: appData}, 'linux'))).toEqual([join(home, '.config', 'cst-agent', 'skills')])
    // on Windows without APPDATA it falls back like anywhere else
    expect(paths('cst-agent', 'skills', 'user', envWith({}, 'win32'))).toEqual([join(home, '.config', 'cst-agent', 'skills')])
  })

  it('resolves project paths against the project root, not the working directory', () => {
    const elsewhere = {...envWith(), cwd: join(sandbox, 'somewhere-else')}
    const projectOf = (id: string, section: SectionName) => sectionLocations(target(id), section, elsewhere, context('project')).map((l) => l.absolute)
    expect(projectOf('claude-code', 'skills')).toEqual([join(project, '.claude', 'skills')])
    expect(projectOf('claude-code', 'mcp')).toEqual([join(project, '.mcp.json')])
    expect(projectOf('codex', 'skills')).toEqual([join(project, '.agents', 'skills')])
    expect(projectOf('cst-agent', 'skills')).toEqual([join(project, '.agent', 'skills'), join(project, '.claude', 'skills')])
    // load order, highest first: the seed lists project .deepagents/skills below project .agents/skills
    expect(projectOf('deepagents', 'skills')).toEqual([join(project, '.agents', 'skills'), join(project, '.deepagents', 'skills')])
    expect(projectOf('github-copilot', 'subagents')).toEqual([join(project, '.github', 'agents')])
    expect(projectOf('opencode', 'mcp')).toEqual([join(project, 'opencode.json')])
    for (const location of sectionLocations(target('cursor'), 'skills', elsewhere, context('project'))) {
      expect(location.root).toBe(project)
    }
  })

  it('lists both scopes in the agent load order when asked', () => {
    const both = sectionLocations(target('claude-code'), 'skills', envWith(), context('project'), ['user', 'project'])
    expect(both.map((l) => l.scope)).toEqual(target('claude-code').skills!.precedence)
    expect(sectionLocations(target('universal'), 'skills', envWith(), context('project'), []).length).toBe(0)
  })

  it('marks the trusted-workspace-only cst-agent project files', () => {
    const mcp = sectionLocations(target('cst-agent'), 'mcp', envWith(), context('project'))
    expect(mcp.map((l) => [l.absolute, l.requiresTrust])).toEqual([[join(project, '.agent', 'mcp.json'), true]])
    const user = sectionLocations(target('cst-agent'), 'mcp', envWith(), context('user'))
    expect(user[0]!.requiresTrust).toBeUndefined()
  })

  it('uses a per-location key where a location gives one, else the section key', () => {
    const copilot = target('github-copilot')
    const [first, ...rest] = copilot.mcp!.locations
    const edited = {...copilot, mcp: {...copilot.mcp!, locations: [{...first!, key: 'servers'}, ...rest]}}
    const [d] = describeTargets([edited], envWith(), context('project'), ['project', 'user'])
    const mcp = d!.paths.filter((p) => p.section === 'mcp')
    expect(mcp.map((p) => [p.scope, p.key])).toEqual([
      ['project', 'servers'],
      ['project', 'mcpServers'],
      ['user', 'mcpServers'],
    ])
  })
})

describe('detection', () => {
  it('is a stat of the home folder, which appears and disappears with it', () => {
    const env = envWith()
    expect(detectTarget(target('claude-code'), env)).toBeUndefined()
    mkdirSync(join(home, '.claude'))
    try {
      expect(detectTarget(target('claude-code'), env)).toBe(join(home, '.claude'))
      expect(describeTargets([target('claude-code')], env, context('user'), ['user'])[0]).toMatchObject({
        detected: true,
        detectedAt: join(home, '.claude'),
      })
    } finally {
      rmSync(join(home, '.claude'), {recursive: true})
    }
    expect(detectTarget(target('claude-code'), env)).toBeUndefined()
    expect(describeTargets([target('claude-code')], env, context('user'), ['user'])[0]!.detected).toBe(false)
  })

  it('needs a folder: a file with the same name does not count', () => {
    writeFileSync(join(home, '.cursor'), '')
    try {
      expect(detectTarget(target('cursor'), envWith())).toBeUndefined()
    } finally {
      rmSync(join(home, '.cursor'))
    }
  })

  it('follows the home variables: CODEX_HOME and XDG_CONFIG_HOME', () => {
    const codexHome = join(sandbox, 'detect-codex')
    const xdg = join(sandbox, 'detect-xdg')
    const env = envWith({CODEX_HOME: codexHome, XDG_CONFIG_HOME: xdg})
    expect(detectTarget(target('codex'), env)).toBeUndefined()
    expect(detectTarget(target('cst-agent'), env)).toBeUndefined()
    mkdirSync(codexHome)
    mkdirSync(join(xdg, 'cst-agent'), {recursive: true})
    expect(detectTarget(target('codex'), env)).toBe(codexHome)
    expect(detectTarget(target('cst-agent'), env)).toBe(join(xdg, 'cst-agent'))
    // ~/.codex does not count when CODEX_HOME points elsewhere
    expect(detectTarget(target('codex'), envWith({CODEX_HOME: join(sandbox, 'missing')}))).toBeUndefined()
  })

  it('never detects lexora, which has no folder', () => {
    expect(detectTarget(target('lexora'), envWith())).toBeUndefined()
  })
})

describe('confidence', () => {
  const describeAll = () => describeTargets(targets, envWith(), context('project'), ['project', 'user'])
  const pathsOf = (id: string, section: SectionName) =>
    describeAll()
      .find((d) => d.id === id)!
      .paths.filter((p) => p.section === section)

  it('marks the whole of characteroid unconfirmed, down to each path', () => {
    const characteroid = describeAll().find((d) => d.id === 'characteroid')!
    expect(characteroid.confidence).toBe('unconfirmed')
    expect(characteroid.paths.length).toBeGreaterThan(0)
    for (const p of characteroid.paths) expect(p.confidence, `${p.section} ${p.path}`).toBe('unconfirmed')
  })

  it.each([
    ['codex', 'hooks'],
    ['cursor', 'subagents'],
  ] as const)('marks %s %s unconfirmed while the agent itself is confirmed', (id, section) => {
    expect(target(id).confidence).toBe('confirmed')
    const rows = pathsOf(id, section)
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) expect(row.confidence).toBe('unconfirmed')
  })

  it('leaves confirmed rows confirmed', () => {
    for (const [id, section] of [
      ['codex', 'skills'],
      ['codex', 'mcp'],
      ['codex', 'subagents'],
      ['claude-code', 'skills'],
      ['claude-code', 'subagents'],
      ['cst-agent', 'skills'],
      ['deepagents', 'subagents'],
      // confirmed by `opencode agent list` and `gemini skills list` (test/e2e/vendor-cli.test.ts)
      ['opencode', 'subagents'],
      ['opencode', 'mcp'],
      ['gemini-cli', 'subagents'],
    ] as const) {
      const rows = pathsOf(id, section)
      expect(rows.length, `${id} ${section}`).toBeGreaterThan(0)
      for (const row of rows) expect(row.confidence, `${id} ${section}`).toBe('confirmed')
    }
  })

  it('describes lexora as an agent loadout does not install into', () => {
    const lexora = describeAll().find((d) => d.id === 'lexora')!
    expect(lexora).toMatchObject({installs: false, detected: false, paths: []})
    expect(lexora.notes.join(' ')).toMatch(/install/)
  })
})
