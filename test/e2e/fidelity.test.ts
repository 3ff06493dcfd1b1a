/**
 * Real plugins install: a corpus built here reproduces each way real marketplaces broke loadout's
 * install (upper-case and spaced skill names, unquoted colons, non-string metadata, long
 * descriptions, an empty-URL server, a path missing in one of two manifests, hooks without their
 * list, a catalog in a sub-folder, an entry whose folder is missing, a broken Claude catalog beside
 * a Codex one) and installs every plugin of it, with warnings, into claude-code, codex, deepagents
 * and cst-agent; `plugin validate --strict` still reports each problem.
 */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {parse as parseToml} from 'smol-toml'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const AGENTS = 'claude-code,codex,deepagents,cst-agent'
type Files = Record<string, string | object>

const write = (root: string, files: Files): void => {
  for (const [rel, content] of Object.entries(files)) {
    const full = join(root, rel)
    mkdirSync(dirname(full), {recursive: true})
    writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  }
}

const manifest = (name: string, extra: object = {}) => ({name, version: '1.0.0', description: `The ${name} plugin`, ...extra})

/** Each plugin breaks one or more conformance rules the agents tolerate. */
const CORPUS: Record<string, Files> = {
  hookify: {
    '.claude-plugin/plugin.json': manifest('hookify'),
    // a spaced, upper-case name differing from its folder; a value with an unquoted colon; lists and numbers in metadata; an unknown field
    'skills/writing-rules/SKILL.md':
      '---\nname: Writing Hookify Rules\ndescription: Use when: the user asks to write a hookify rule\nmetadata:\n  tags: [rules, hooks]\n  version: 2\nmodel: sonnet\n---\n\nWrite rules.\n',
    'commands/hookify.md': '---\ndescription: Create a hookify rule\nargument-hint: <what to block>\n---\n\nCreate a rule that blocks $ARGUMENTS.\n',
    'hooks/hooks.json': {hooks: {Stop: [{matcher: '*', hooks: [{type: 'command', command: 'echo stop'}]}, {matcher: 'Edit'}]}},
  },
  'long-desc': {
    '.claude-plugin/plugin.json': manifest('long-desc'),
    'skills/long/SKILL.md': `---\nname: long\ndescription: ${'A very long description. '.repeat(50)}\n---\n\nBody.\n`,
    'skills/Upper Case/SKILL.md': '---\nname: Upper Case\ndescription: "A skill in a folder with a spaced name"\n---\n\nBody.\n',
  },
  servers: {
    '.claude-plugin/plugin.json': manifest('servers'),
    '.mcp.json': {mcpServers: {placeholder: {type: 'http', url: ''}, files: {command: 'node', args: ['server.js']}}},
    'skills/serve/SKILL.md': '---\nname: serve\ndescription: Serves files.\n---\n\nServe.\n',
  },
  'two-manifests': {
    '.claude-plugin/plugin.json': manifest('two-manifests'),
    '.codex-plugin/plugin.json': manifest('two-manifests', {skills: './codex-skills/'}),
    'skills/both/SKILL.md': '---\nname: both\ndescription: A skill both agents should get.\n---\n\nBoth.\n',
  },
  translated: {
    '.claude-plugin/plugin.json': manifest('translated'),
    '.codex-plugin/plugin.json': manifest('translated', {mcpServers: './.mcp.json'}),
    '.mcp.json': {
      mcpServers: {
        github: {
          type: 'http',
          url: 'https://api.example.com/mcp/',
          headers: {Authorization: 'Bearer ${GITHUB_PERSONAL_ACCESS_TOKEN}', 'X-Team': '${TEAM_ID}', 'X-Client': 'loadout'},
        },
        tfe: {command: 'docker', args: ['run', '-i', '-e', 'TFE_TOKEN=${TFE_TOKEN}', 'hashicorp/terraform-mcp-server'], env: {TFE_TOKEN: '${TFE_TOKEN}'}},
        native: {command: 'node', args: ['server.js'], cwd: '.', tool_timeout_sec: 30, env_vars: ['API_KEY']},
        mixed: {command: 'node', env: {URL: 'https://${HOST}/api'}},
        signin: {type: 'http', url: 'https://auth.example.com/mcp', oauth: {clientId: 'loadout-test', callbackPort: 8123}},
      },
    },
    'skills/run-script/SKILL.md':
      '---\nname: run-script\ndescription: Runs the bundled script.\nallowed-tools: Bash(python3 "${CLAUDE_PLUGIN_ROOT}/scripts/run.py")\n---\n\nRun `${CLAUDE_PLUGIN_ROOT}/scripts/run.py`; keep state in ${CLAUDE_PLUGIN_DATA}.\n',
    'agents/runner.md': '---\nname: runner\ndescription: Runs the script.\n---\n\nRun ${CLAUDE_PLUGIN_ROOT}/scripts/run.py.\n',
    'scripts/run.py': 'print(1)\n',
    'hooks/hooks.json': {
      hooks: {
        Stop: [
          {
            hooks: [
              {type: 'prompt', prompt: 'Check the work is done.'},
              {type: 'command', command: 'echo done', async: true},
            ],
          },
        ],
      },
    },
  },
  'nothing-written': {
    '.codex-plugin/plugin.json': manifest('nothing-written', {apps: './.app.json'}),
    '.app.json': {apps: {calendar: {id: 'connector_1'}}},
  },
}

const CATALOG = {
  name: 'fidelity',
  owner: {name: 'Tests'},
  plugins: [
    ...Object.keys(CORPUS).map((name) => ({name, source: `./${name}`})),
    {name: 'gone', source: './gone'},
    // entries loadout cannot read or install: the catalog still adds
    42,
    {name: 'from-pip', source: {source: 'pip', package: 'acme-from-pip'}},
  ],
}

let work: string
const sandbox = sandboxes()

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-fidelity-')))
  // the catalog lives in a sub-folder of the repository, beside the plugins it lists
  write(join(work, 'market'), {'README.md': '# plugins\n', 'plugins/.claude-plugin/marketplace.json': CATALOG})
  for (const [name, files] of Object.entries(CORPUS)) write(join(work, 'market', 'plugins', name), files)
  // a broken Claude catalog beside a sound Codex one whose entry is the repository itself
  write(join(work, 'dual'), {
    '.claude-plugin/marketplace.json': {name: 'dual', plugins: {not: 'a list'}},
    '.agents/plugins/marketplace.json': {name: 'dual', plugins: [{name: 'dual', source: {source: 'url', url: './'}, policy: {installation: 'AVAILABLE'}}]},
    '.claude-plugin/plugin.json': manifest('dual'),
    'skills/dual/SKILL.md': '---\nname: dual\ndescription: The repository is the plugin.\n---\n\nDual.\n',
  })
})

afterAll(() => rmSync(work, {recursive: true, force: true}))

const codes = (problems: ReadonlyArray<{code: string}>) => new Set(problems.map((p) => p.code))

/** Every file and folder under HOME but loadout's own, with each file's bytes. */
const homeFiles = (home: string): Record<string, string> => {
  const own = new Set(['.config/loadout', '.cache/loadout', '.local/share/loadout'])
  const out: Record<string, string> = {}
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (own.has(r)) continue
      if (entry.isDirectory()) {
        if (!['.config', '.cache', '.local', '.local/share'].includes(r)) out[r] = 'dir'
        walk(join(dir, entry.name), r)
      } else out[r] = readFileSync(join(dir, entry.name), 'utf8')
    }
  }
  walk(home, '')
  return out
}

describe('uninstall', () => {
  it('every plugin of the corpus installed into four agents, then uninstalled: HOME is back byte for byte', async () => {
    const sb = sandbox()
    // an agent's settings the user already has: they must come back unchanged
    write(sb.home, {'.claude/settings.json': {theme: 'dark'}, '.codex/config.toml': 'model = "o4-mini"\n'})
    const before = homeFiles(sb.home)
    expect((await loadout(sb, ['marketplace', 'add', join(work, 'market')])).status).toBe(0)
    for (const name of Object.keys(CORPUS)) {
      const installed = await loadout(sb, ['install', `${name}@fidelity`, '--agent', AGENTS, '--scope', 'user', '--yes'])
      expect(installed.status, `${name}: ${installed.stderr}`).toBe(name === 'nothing-written' ? 4 : 0)
    }
    expect(homeFiles(sb.home)).not.toEqual(before)
    for (const name of Object.keys(CORPUS).filter((n) => n !== 'nothing-written')) {
      const removed = await loadout(sb, ['uninstall', `${name}@fidelity`, '--scope', 'user', '--yes'])
      expect(removed.status, `${name}: ${removed.stderr}`).toBe(0)
    }
    expect(homeFiles(sb.home)).toEqual(before)
  })
})

describe('a catalog in a sub-folder, with an entry whose folder is missing', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = sandbox()
  })

  it('adds, lists every plugin and warns about the missing folder', async () => {
    const added = await loadout(sb, ['marketplace', 'add', join(work, 'market'), '--json'])
    expect(added.status, added.stderr).toBe(0)
    const body = added.json()
    expect(body.name).toBe('fidelity')
    expect(body.pluginCount).toBe(Object.keys(CORPUS).length + 2)
    expect(body.warnings).toContainEqual(expect.objectContaining({code: 'entry-folder-missing', message: expect.stringContaining('./gone')}))
    expect(body.warnings).toContainEqual(expect.objectContaining({code: 'entry-not-object', path: `plugins[${Object.keys(CORPUS).length + 1}]`}))
    expect(body.warnings).toContainEqual(expect.objectContaining({code: 'source-unsupported'}))
  })

  it('refuses a name already registered before reading anything', async () => {
    const again = await loadout(sb, ['marketplace', 'add', join(work, 'nowhere'), '--name', 'fidelity', '--json'])
    expect(again.status).toBe(5)
    expect(jsonError(again).code).toBe('marketplace-name-taken')
  })

  /** the corpus plugin no agent gets anything from: refused (exit 4) rather than recorded as an empty install */
  const WRITES_SOMETHING = Object.keys(CORPUS).filter((name) => name !== 'nothing-written')

  it.each(WRITES_SOMETHING)('installs %s into four agents, with warnings', async (name) => {
    // loose parts: the checks below read what each agent's own files hold
    const result = await loadout(sb, ['install', `${name}@fidelity`, '--agent', AGENTS, '--scope', 'user', '--loose', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const body = result.json()
    expect(body.status).toBe('installed')
    expect(body.problems.every((p: {severity: string}) => p.severity === 'warning')).toBe(true)
  })

  it('installed the parts the agents load, and said what it left out', async () => {
    const h = sb.home
    // the folder name stands in for the unusable frontmatter name
    expect(readFileSync(join(h, '.claude/skills/writing-rules/SKILL.md'), 'utf8')).toContain('Use when: the user asks')
    expect(existsSync(join(h, '.agents/skills/writing-rules/SKILL.md'))).toBe(true)
    expect(existsSync(join(h, '.claude/skills/long/SKILL.md'))).toBe(true)
    expect(existsSync(join(h, '.claude/skills/Upper Case/SKILL.md'))).toBe(true)
    // the sound server went in, the placeholder did not
    const claude = JSON.parse(readFileSync(join(h, '.claude.json'), 'utf8'))
    expect(Object.keys(claude.mcpServers).filter((k) => k.startsWith('servers-'))).toEqual(['servers-files'])
    // the Codex manifest's missing path does not hide the conventional skills folder
    expect(existsSync(join(h, '.claude/skills/both/SKILL.md'))).toBe(true)
    expect(existsSync(join(h, '.agents/skills/both/SKILL.md'))).toBe(true)
    // the hook with its list went in
    expect(JSON.parse(readFileSync(join(h, '.claude/settings.json'), 'utf8')).hooks.Stop[0].hooks[0].command).toBe('echo stop')
  })

  it('says which parts were not written, and why', async () => {
    const hookify = await loadout(sb, ['install', '--loose', 'hookify@fidelity', '--agent', 'claude-code', '--scope', 'user', '--yes', '--force', '--json'])
    const found = codes(hookify.json().problems)
    for (const code of ['name-uppercase', 'frontmatter-yaml-lenient', 'metadata-value-not-string', 'field-unknown', 'hook-list-missing'])
      expect(found, code).toContain(code)
    const servers = await loadout(sb, ['install', '--loose', 'servers@fidelity', '--agent', 'claude-code', '--scope', 'user', '--yes', '--force', '--json'])
    expect(servers.json().problems).toContainEqual(expect.objectContaining({code: 'mcp-url-invalid', severity: 'warning', path: 'mcpServers.placeholder.url'}))
    const two = await loadout(sb, ['install', 'two-manifests@fidelity', '--agent', 'codex', '--scope', 'user', '--force', '--json'])
    expect(two.json().problems).toContainEqual(expect.objectContaining({code: 'path-missing', severity: 'warning', path: 'skills'}))
    const none = await loadout(sb, ['install', '--loose', 'nothing-written@fidelity', '--agent', 'claude-code', '--scope', 'user', '--force', '--json'])
    expect(none.status, none.stdout).toBe(4)
    const body = jsonError(none)
    expect(body.code).toBe('nothing-written')
    const details = body.details as {problems: unknown[]; plans: Array<{skipped: Array<{reason: string}>}>}
    expect(details.problems).toContainEqual(expect.objectContaining({code: 'app-connectors-not-installed'}))
    expect(details.plans[0]!.skipped[0]!.reason).toMatch(/nothing written for Claude Code/)
  })

  it('an entry whose folder is missing fails alone', async () => {
    const result = await loadout(sb, ['install', '--loose', 'gone@fidelity', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(result.status).not.toBe(0)
  })
})

describe('plugin validate --strict still reports each conformance problem', () => {
  it.each([
    ['hookify', ['name-uppercase', 'frontmatter-yaml-lenient', 'metadata-value-not-string', 'field-unknown', 'hook-list-missing']],
    ['long-desc', ['description-too-long', 'name-uppercase']],
    ['servers', ['mcp-url-invalid']],
    ['two-manifests', ['path-missing']],
    ['nothing-written', ['app-connectors-not-installed']],
  ])('%s', async (name, expected) => {
    const sb = sandbox()
    const result = await loadout(sb, ['plugin', 'validate', join(work, 'market', 'plugins', name), '--strict', '--json'])
    expect(result.status).toBe(4)
    const problems = (jsonError(result).details as {problems: Array<{code: string}>} | undefined)?.problems ?? result.json().problems
    for (const code of expected) expect(codes(problems), code).toContain(code)
  })
})

describe('a repository with a broken Claude catalog and a Codex one', () => {
  it('reads the Codex catalog, where {"source": "url", "url": "./"} is the repository itself', async () => {
    const sb = sandbox()
    const added = await loadout(sb, ['marketplace', 'add', join(work, 'dual'), '--json'])
    expect(added.status, added.stderr).toBe(0)
    expect(added.json().warnings).toContainEqual(expect.objectContaining({code: 'catalog-fallback'}))
    expect(added.json().pluginCount).toBe(1)
    const installed = await loadout(sb, ['install', '--loose', 'dual@dual', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    expect(existsSync(join(sb.home, '.claude/skills/dual/SKILL.md'))).toBe(true)
  })
})

describe('slash commands, written for every agent that has them', () => {
  let sb: Sandbox
  beforeAll(async () => {
    sb = sandbox({git: true})
    const added = await loadout(sb, ['marketplace', 'add', join(work, 'market')])
    expect(added.status, added.stderr).toBe(0)
  })

  it('user scope: Claude Code and Cursor copy the Markdown, Codex as a prompt, OpenCode, Gemini CLI as TOML', async () => {
    const result = await loadout(sb, [
      'install',
      'hookify@fidelity',
      '--agent',
      'claude-code,cursor,codex,opencode,gemini-cli',
      '--scope',
      'user',
      '--loose',
      '--yes',
      '--json',
    ])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    const h = sb.home
    const source = readFileSync(join(work, 'market/plugins/hookify/commands/hookify.md'), 'utf8')
    expect(existsSync(join(h, '.codex/prompts')), 'Codex reads no custom prompts since 0.117').toBe(false)
    for (const file of ['.claude/commands/hookify.md', '.cursor/commands/hookify.md', '.config/opencode/commands/hookify.md']) {
      expect(readFileSync(join(h, file), 'utf8'), file).toBe(source)
    }
    expect(readFileSync(join(h, '.gemini/commands/hookify.toml'), 'utf8')).toBe(
      'description = "Create a hookify rule"\nprompt = "Create a rule that blocks {{args}}.\\n"\n',
    )
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status, verify.stdout).toBe(0)
    const removed = await loadout(sb, ['uninstall', 'hookify@fidelity', '--scope', 'user', '--yes', '--json'])
    expect(removed.status, removed.stderr).toBe(0)
    for (const file of ['.claude/commands/hookify.md', '.cursor/commands', '.codex/prompts', '.config/opencode/commands', '.gemini/commands'])
      expect(existsSync(join(h, file)), file).toBe(false)
  })

  it('project scope: a GitHub Copilot prompt file; Codex has no slash commands and says so', async () => {
    const result = await loadout(sb, ['install', 'hookify@fidelity', '--agent', 'github-copilot,codex', '--scope', 'project', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    expect(readFileSync(join(sb.project, '.github/prompts/hookify.prompt.md'), 'utf8')).toBe(
      '---\ndescription: "Create a hookify rule"\nargument-hint: "<what to block>"\nmode: "agent"\n---\n\nCreate a rule that blocks ${input:args}.\n',
    )
    const codex = result.json().plans.find((p: {target: string}) => p.target === 'codex')
    expect(codex.skipped).toContainEqual({
      component: 'hookify@fidelity/command/hookify',
      reason: 'Codex has no slash command files: custom prompts (~/.codex/prompts) were removed in Codex 0.117',
    })
  })
})

describe("each part in the target agent's own form", () => {
  let sb: Sandbox
  let body: {plans: Array<{target: string; skipped: Array<{component: string; reason: string}>; notes: Array<{component: string; note: string}>}>}
  beforeAll(async () => {
    sb = sandbox()
    expect((await loadout(sb, ['marketplace', 'add', join(work, 'market')])).status).toBe(0)
    const result = await loadout(sb, ['install', '--loose', 'translated@fidelity', '--agent', 'claude-code,codex', '--scope', 'user', '--yes', '--json'])
    expect(result.status, result.stdout + result.stderr).toBe(0)
    body = result.json()
  })
  const pluginRoot = () => {
    const state = JSON.parse(readFileSync(join(sb.home, '.config/loadout/state.json'), 'utf8'))
    return state.installs.find((r: {plugin: string}) => r.plugin === 'translated@fidelity').pluginRoot as string
  }

  it('Codex: ${VAR} becomes bearer_token_env_var, env_http_headers and env_vars; native fields are kept, cwd resolved', () => {
    const servers = parseToml(readFileSync(join(sb.home, '.codex/config.toml'), 'utf8')).mcp_servers as Record<string, Record<string, unknown>>
    expect(servers['translated-github']).toEqual({
      url: 'https://api.example.com/mcp/',
      http_headers: {'X-Client': 'loadout'},
      env_http_headers: {'X-Team': 'TEAM_ID'},
      bearer_token_env_var: 'GITHUB_PERSONAL_ACCESS_TOKEN',
    })
    expect(servers['translated-tfe']).toEqual({
      command: 'docker',
      args: ['run', '-i', '-e', 'TFE_TOKEN', 'hashicorp/terraform-mcp-server'],
      env_vars: ['TFE_TOKEN'],
    })
    expect(servers['translated-native']).toEqual({command: 'node', args: ['server.js'], env_vars: ['API_KEY'], cwd: pluginRoot(), tool_timeout_sec: 30})
    // a variable inside a longer value cannot be said in Codex's form: the server is left out, saying why
    expect(servers['translated-mixed']).toBeUndefined()
    const codex = body.plans.find((p) => p.target === 'codex')!
    expect(codex.skipped).toContainEqual({
      component: 'translated@fidelity/mcp/mixed',
      reason: expect.stringMatching(/Codex does not expand \$\{VAR\}: env "URL" would reach the server as literal text/),
    })
    expect(codex.notes).toContainEqual({component: 'translated@fidelity/mcp/signin', note: expect.stringContaining('"oauth" dropped')})
  })

  it('Claude Code: the oauth block is kept, Codex-native fields are written as ${VAR}', () => {
    const servers = JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers
    expect(servers['translated-signin']).toEqual({type: 'http', url: 'https://auth.example.com/mcp', oauth: {clientId: 'loadout-test', callbackPort: 8123}})
    expect(servers['translated-native'].env).toEqual({API_KEY: '${API_KEY}'})
  })

  it("${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} in skill and subagent text become the installed copy's paths", () => {
    const root = pluginRoot()
    const skill = readFileSync(join(sb.home, '.claude/skills/run-script/SKILL.md'), 'utf8')
    expect(skill).toContain(`allowed-tools: Bash(python3 "${root}/scripts/run.py")`)
    expect(skill).not.toContain('${CLAUDE_PLUGIN')
    expect(existsSync(join(root, 'scripts/run.py'))).toBe(true)
    expect(readFileSync(join(sb.home, '.claude/agents/runner.md'), 'utf8')).toContain(`Run ${root}/scripts/run.py.`)
  })

  it('hook prompt entries and async are kept for Claude Code, and dropped with a note elsewhere', () => {
    const stop = JSON.parse(readFileSync(join(sb.home, '.claude/settings.json'), 'utf8')).hooks.Stop[0]
    expect(stop.hooks).toEqual([
      {type: 'prompt', prompt: 'Check the work is done.'},
      {type: 'command', command: 'echo done', async: true},
    ])
    const codexHooks = JSON.parse(readFileSync(join(sb.home, '.codex/hooks.json'), 'utf8')).hooks.Stop[0]
    expect(codexHooks.hooks).toEqual([{type: 'command', command: 'echo done'}])
    const notes = body.plans.find((p) => p.target === 'codex')!.notes.map((n) => n.note)
    expect(notes).toContainEqual(expect.stringContaining('"prompt" hooks dropped'))
    expect(notes).toContainEqual(expect.stringContaining('"async" dropped'))
  })

  it('verify passes and uninstall takes it all out', async () => {
    expect((await loadout(sb, ['verify'])).status).toBe(0)
    expect((await loadout(sb, ['uninstall', 'translated@fidelity', '--scope', 'user', '--yes'])).status).toBe(0)
    expect(existsSync(join(sb.home, '.claude/skills/run-script'))).toBe(false)
  })
})

describe('the real catalogs in ../shared/corpus/real', () => {
  const REAL = join(import.meta.dirname, '..', '..', '..', 'shared', 'corpus', 'real')
  const catalogs = existsSync(REAL) ? readdirSync(REAL).sort() : []

  it('the corpus is there', () => {
    expect(catalogs).toEqual(expect.arrayContaining(['claude-plugins-official', 'superpowers']))
  })

  it.each(catalogs)('%s loads, with every plugin it lists', async (name) => {
    const sb = sandbox()
    const root = join(REAL, name)
    const raw = JSON.parse(readFileSync(join(root, '.claude-plugin/marketplace.json'), 'utf8'))
    const added = await loadout(sb, ['marketplace', 'add', root, '--json'])
    expect(added.status, added.stderr).toBe(0)
    const body = added.json()
    expect(body.pluginCount).toBe(raw.plugins.length)
    const info = await loadout(sb, ['marketplace', 'info', body.name, '--json'])
    expect(info.status, info.stderr).toBe(0)
    expect(
      info
        .json()
        .plugins.map((p: {name: string}) => p.name)
        .sort(),
    ).toEqual(raw.plugins.map((p: {name: string}) => p.name).sort())
  })

  it('superpowers through its Codex catalog alone: {"source": "url", "url": "./"} is the repository', async () => {
    const sb = sandbox()
    const copy = join(work, 'superpowers-codex')
    write(copy, {'.agents/plugins/marketplace.json': readFileSync(join(REAL, 'superpowers/.agents/plugins/marketplace.json'), 'utf8')})
    const added = await loadout(sb, ['marketplace', 'add', copy, '--json'])
    expect(added.status, added.stderr).toBe(0)
    expect(added.json()).toMatchObject({name: 'superpowers-dev', pluginCount: 1, warnings: []})
  })

  it('the official plugins shipped in the corpus read for install into four agents', async () => {
    const sb = sandbox()
    const root = join(REAL, 'claude-plugins-official')
    expect((await loadout(sb, ['marketplace', 'add', root])).status).toBe(0)
    const raw = JSON.parse(readFileSync(join(root, '.claude-plugin/marketplace.json'), 'utf8')) as {plugins: Array<{name: string; source: unknown}>}
    const present = raw.plugins.filter((p) => typeof p.source === 'string' && existsSync(join(root, p.source))).map((p) => p.name)
    expect(present.length).toBeGreaterThan(0)
    // the corpus keeps some plugins as their manifest alone: nothing to write, which install refuses by name
    const manifestOnly = (plugin: string) => readdirSync(join(root, 'plugins', plugin)).every((e) => e === '.claude-plugin')
    expect(present.filter((p) => !manifestOnly(p)).length).toBeGreaterThan(0)
    for (const plugin of present) {
      const result = await loadout(sb, ['install', `${plugin}@claude-plugins-official`, '--agent', AGENTS, '--scope', 'user', '--dry-run', '--json'])
      if (manifestOnly(plugin)) {
        expect(result.status, `${plugin}: ${result.stdout}`).toBe(4)
        expect(jsonError(result).code).toBe('nothing-written')
        continue
      }
      expect(result.status, `${plugin}: ${result.stdout}${result.stderr}`).toBe(0)
      expect(result.json().status).toBe('planned')
    }
  })
})
