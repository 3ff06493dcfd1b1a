/**
 * The Gemini CLI extension format (src/core/manifest-formats/gemini/), added as a folder and a
 * registry schema: `gemini-extension.json` is read for install (metadata, MCP servers in Gemini's
 * shape, `${extensionPath}`), checked by `plugin validate`, and not offered by convert or create.
 */
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {convertPlugin, CONVERT_FORMATS} from '../../src/core/ops/authoring/convert.js'
import {PLUGIN_FORMATS} from '../../src/core/ops/authoring/plugin-create.js'
import {validatePlugin} from '../../src/core/ops/authoring/plugin-validate.js'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {isLoadoutError} from '../../src/core/model/errors.js'
import {inspectPlugin} from '../../src/core/kernel/plugin/read.js'

const ROOT = join(import.meta.dirname, '..', '..')
const made: string[] = []
afterAll(() => {
  for (const dir of made) rmSync(dir, {recursive: true, force: true})
})

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'schemas', 'gemini-extension.cjs')))
    throw new Error('run node bin/build.mjs first: the compiled gemini-extension schema is missing')
})

const plugin = (files: Record<string, string | object>, name = 'ext'): string => {
  const dir = mkdtempSync(join(tmpdir(), 'loadout-gemini-'))
  made.push(dir)
  const root = join(dir, name)
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
  return root
}

const SKILL = '---\nname: lint\ndescription: Lints the code.\n---\n\nLint it.\n'

const extension = (extra: object = {}) => ({
  name: 'ext',
  version: '1.2.0',
  description: 'An extension for Gemini CLI',
  mcpServers: {
    local: {command: 'node', args: ['${extensionPath}${/}server.js'], cwd: '${extensionPath}'},
    remote: {httpUrl: 'https://mcp.example.com/mcp', headers: {Authorization: 'Bearer ${TOKEN}'}},
    events: {url: 'https://mcp.example.com/sse'},
  },
  ...extra,
})

const codes = (problems: ReadonlyArray<{code: string}>) => problems.map((p) => p.code)

describe('reading gemini-extension.json', () => {
  it('reads the metadata, finds skills by convention, and reads MCP servers in loadout terms', () => {
    const {model, fatal} = inspectPlugin(plugin({'gemini-extension.json': extension(), 'skills/lint/SKILL.md': SKILL}))
    expect(fatal).toEqual([])
    expect(model).toMatchObject({name: 'ext', version: '1.2.0', description: 'An extension for Gemini CLI', manifests: ['gemini']})
    expect(model.skills.map((s) => s.name)).toEqual(['lint'])
    const servers = Object.fromEntries(model.mcpServers.map((s) => [s.name, s.config]))
    expect(servers).toEqual({
      local: {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.js'], cwd: '${CLAUDE_PLUGIN_ROOT}'},
      remote: {type: 'http', url: 'https://mcp.example.com/mcp', headers: {Authorization: 'Bearer ${TOKEN}'}},
      events: {type: 'sse', url: 'https://mcp.example.com/sse'},
    })
  })

  it('refuses a server with both httpUrl and url, a plain-http remote, and a context file outside the extension', () => {
    const root = plugin({
      'gemini-extension.json': extension({
        mcpServers: {both: {httpUrl: 'https://a.example.com/mcp', url: 'https://b.example.com/sse'}, plain: {httpUrl: 'http://mcp.example.com/mcp'}},
        contextFileName: ['GEMINI.md', '../outside.md'],
      }),
      'GEMINI.md': '# Context\n',
    })
    const {model} = inspectPlugin(root)
    expect(model.mcpServers).toEqual([])
    const errors = model.problems.filter((p) => p.severity === 'error')
    expect(errors.find((p) => p.code === 'mcp-server-ambiguous')).toMatchObject({path: 'mcpServers.both'})
    expect(codes(errors)).toContain('mcp-url-insecure')
    expect(errors.find((p) => p.path === 'contextFileName[1]')).toBeDefined()
  })

  it('says what it does not install: context files and excludeTools', () => {
    const {model} = inspectPlugin(
      plugin({'gemini-extension.json': extension({contextFileName: 'GEMINI.md', excludeTools: ['run_shell_command']}), 'GEMINI.md': '# Context\n'}),
    )
    const warnings = model.problems.filter((p) => p.severity === 'warning')
    expect(warnings.find((p) => p.code === 'context-files-not-installed')).toMatchObject({path: 'contextFileName'})
    expect(warnings.find((p) => p.code === 'exclude-tools-not-installed')).toMatchObject({path: 'excludeTools'})
  })

  it('beside a Claude manifest or a .mcp.json it is left to Gemini CLI: the plugin installs as it did without it', () => {
    const withClaude = inspectPlugin(
      plugin({
        '.claude-plugin/plugin.json': {name: 'ext', version: '2.0.0'},
        '.mcp.json': {mcpServers: {claude: {command: 'node', args: ['a.js']}}},
        'gemini-extension.json': extension(),
      }),
    )
    expect(withClaude.model.manifests).toEqual(['claude'])
    expect(withClaude.model.mcpServers.map((s) => s.name)).toEqual(['claude'])
    const withMcpFile = inspectPlugin(plugin({'.mcp.json': {mcpServers: {claude: {command: 'node', args: ['a.js']}}}, 'gemini-extension.json': extension()}))
    expect(withMcpFile.model.manifests).toEqual(['none'])
    expect(withMcpFile.model.mcpServers.map((s) => s.name)).toEqual(['claude'])
  })
})

describe('plugin validate with gemini-extension.json', () => {
  it('a good extension is valid, and validate names its format', async () => {
    const result = await validatePlugin(plugin({'gemini-extension.json': extension(), 'skills/lint/SKILL.md': SKILL}))
    expect(result).toMatchObject({formats: ['gemini'], valid: true, errors: 0})
    expect(result.components.mcpServers.sort()).toEqual(['events', 'local', 'remote'])
  })

  it('the schema: version is required and an unknown field is a warning; the rules: name and context files', async () => {
    const {version: _version, ...noVersion} = extension({name: 'Bad Name', contextFileName: 'MISSING.md', colour: 'blue'})
    const result = await validatePlugin(plugin({'gemini-extension.json': noVersion}))
    expect(result.valid).toBe(false)
    const byCode = (code: string) => result.problems.find((p) => p.code === code)
    expect(byCode('manifest-field-missing')).toMatchObject({severity: 'error', path: 'version', file: 'gemini-extension.json'})
    expect(byCode('manifest-field-unknown')).toMatchObject({severity: 'warning', path: 'colour'})
    expect(byCode('manifest-field-unknown')!.message).toContain('Gemini CLI')
    expect(byCode('plugin-name-invalid')).toMatchObject({severity: 'error', path: 'name'})
    expect(byCode('path-missing')).toMatchObject({severity: 'error', path: 'contextFileName'})
    const loose = await validatePlugin(plugin({'gemini-extension.json': extension({version: 'one'})}))
    expect(loose.problems.find((p) => p.code === 'manifest-version-not-semver')).toMatchObject({severity: 'warning', path: 'version'})
  })
})

describe('a read-only format', () => {
  it('is not offered by plugin convert --to or plugin create --format', async () => {
    expect(CONVERT_FORMATS).not.toContain('gemini')
    expect(PLUGIN_FORMATS).not.toContain('gemini')
    const root = plugin({'gemini-extension.json': extension(), 'skills/lint/SKILL.md': SKILL})
    const env: Environment = {vars: {}, cwd: dirname(root), home: dirname(root), platform: process.platform, interactive: false}
    const refused = await convertPlugin({path: root, to: 'gemini', force: false, dryRun: true, env}).catch((error: unknown) => error)
    expect(isLoadoutError(refused) && refused.code).toBe('bad-format')
  })

  it('converts from it: --to claude carries its servers inline and its skills by convention', async () => {
    const root = plugin({'gemini-extension.json': extension(), 'skills/lint/SKILL.md': SKILL})
    const env: Environment = {vars: {}, cwd: dirname(root), home: dirname(root), platform: process.platform, interactive: false}
    const result = await convertPlugin({path: root, to: 'claude', force: false, dryRun: true, env})
    expect(result.from).toEqual(['gemini'])
    expect(result.carried).toMatchObject({skills: ['lint']})
    expect(result.carried.mcpServers.sort()).toEqual(['events', 'local', 'remote'])
    expect(result.manifestJson).toMatchObject({
      name: 'ext',
      version: '1.2.0',
      mcpServers: {local: {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server.js']}},
    })
    expect(result.validation.valid).toBe(true)
  })
})
