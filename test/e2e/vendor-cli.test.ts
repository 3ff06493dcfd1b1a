/**
 * The agents' own CLIs are the judges: a plugin with a skill, a subagent, a slash command and two
 * stdio MCP servers is installed with loadout into one agent in a sandbox HOME (user scope, then a
 * fresh sandbox for project scope), and the agent's CLI, pinned in test/support/vendor-clis.js and
 * installed by `npm test`'s pretest step, lists what it loads. Only local listing commands run, with
 * updates and telemetry off; the stand-in server answers the MCP handshake only when the reference to
 * KIT_TOKEN in its environment was expanded, so "connected" proves the agent read it as meant.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {beforeAll, describe, expect, it, vi} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {claudeInit, complaints, editJson, loadoutMarketplace, sharedMarketName, vendor, vendorEnv, type Agent} from '../support/vendor-run.js'
import {loadout, sandboxes} from './helpers.js'
import {STAND_IN} from '../support/stand-in-mcp.js'

const sandbox = sandboxes()
vi.setConfig({testTimeout: 120_000})

const FILES: Record<string, string> = {
  '.claude-plugin/marketplace.json': JSON.stringify({name: 'mk', plugins: [{name: 'kit', source: './plugins/kit', version: '1.0.0'}]}),
  'plugins/kit/.claude-plugin/plugin.json': JSON.stringify({name: 'kit', version: '1.0.0'}),
  'plugins/kit/skills/tidy/SKILL.md': '---\nname: tidy\ndescription: Use when tidying.\n---\n\nTidy.\n',
  'plugins/kit/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\n\nYou review code.\n',
  'plugins/kit/commands/review.md': '---\ndescription: Review the diff\n---\n\nReview $ARGUMENTS.\n',
  'plugins/kit/server/index.js': STAND_IN,
  'plugins/kit/.mcp.json': JSON.stringify({
    mcpServers: {
      plain: {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server/index.js']},
      token: {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server/index.js', '--token'], env: {TOKEN: '${KIT_TOKEN}'}},
    },
  }),
}

let market: string
beforeAll(() => {
  market = join(sandbox().dir, 'market')
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(market, rel)), {recursive: true})
    writeFileSync(join(market, rel), text)
  }
})

type Scope = 'user' | 'project'

const installKit = async (agent: Agent, scope: Scope, extra: string[] = []): Promise<{sb: Sandbox; output: string}> => {
  const sb = sandbox()
  const git = await new Promise<number>((resolve) => spawn('git', ['init', '-q', sb.project], {stdio: 'ignore'}).on('close', (c) => resolve(c ?? -1)))
  expect(git).toBe(0)
  const env = vendorEnv(sb)
  expect((await loadout(sb, ['marketplace', 'add', market, '--scope', 'user', '--json'], {env})).status).toBe(0)
  const installed = await loadout(sb, ['install', 'kit@mk', '--agent', agent, '--scope', scope, '--yes', ...extra], {env})
  expect(installed.status, installed.stdout + installed.stderr).toBe(0)
  return {sb, output: installed.stdout + installed.stderr}
}

const uninstallKit = async (sb: Sandbox, scope: Scope): Promise<void> => {
  const removed = await loadout(sb, ['uninstall', 'kit@mk', '--scope', scope, '--yes'], {env: vendorEnv(sb)})
  expect(removed.status, removed.stdout + removed.stderr).toBe(0)
}

describe.concurrent('what the agents’ own CLIs load from what loadout wrote', () => {
  it.each(['user', 'project'] as const)('Claude Code --loose (%s): MCP servers connect; the skill, subagent and command are listed', async (scope) => {
    const {sb} = await installKit('claude-code', scope, ['--loose'])
    if (scope === 'project') {
      // the user's own approval of the project and its .mcp.json servers, as the first start asks for it
      editJson(join(sb.home, '.claude', '.claude.json'), (json) => {
        json.projects = {[sb.project]: {hasTrustDialogAccepted: true, enabledMcpjsonServers: ['kit-plain', 'kit-token']}}
      })
      expect(readFileSync(join(sb.project, '.mcp.json'), 'utf8')).not.toContain('CLAUDE_PROJECT_DIR')
    }
    const list = await vendor('claude-code', sb, ['mcp', 'list'])
    expect(list.out).toMatch(/kit-plain: node \S+ - ✔ Connected/)
    expect(list.out).toMatch(/kit-token: node \S+ --token - ✔ Connected/)
    expect(complaints(list.out.replace(/Checking MCP server health…/, '')), list.out).toEqual([])
    const init = await claudeInit(sb)
    expect(init.mcp_servers).toEqual(
      expect.arrayContaining([
        {name: 'kit-plain', status: 'connected', source: scope === 'user' ? 'user' : 'project'},
        {name: 'kit-token', status: 'connected', source: scope === 'user' ? 'user' : 'project'},
      ]),
    )
    expect(init.skills).toContain('tidy')
    expect(init.agents).toContain('reviewer')
    expect(init.slash_commands).toContain('review')
    await uninstallKit(sb, scope)
    expect((await vendor('claude-code', sb, ['mcp', 'list'])).out).not.toContain('kit-')
  })

  it.each(['user', 'project'] as const)(
    'Codex (%s): codex mcp list --json lists the server; the subagent and skill reach the model; no custom prompts are written',
    async (scope) => {
      const {sb, output} = await installKit('codex', scope)
      if (scope === 'project') {
        const config = join(sb.home, '.codex', 'config.toml')
        mkdirSync(dirname(config), {recursive: true})
        writeFileSync(config, `[projects.${JSON.stringify(sb.project)}]\ntrust_level = "trusted"\n`)
      }
      const list = await vendor('codex', sb, ['mcp', 'list', '--json'])
      expect(list.status, list.out).toBe(0)
      const servers = JSON.parse(list.out.slice(list.out.indexOf('[')))
      const plain = servers.find((s: any) => s.name === 'kit-plain')
      expect(plain, list.out).toMatchObject({enabled: true, transport: {type: 'stdio', command: 'node'}})
      expect(plain.transport.args[0]).toMatch(scope === 'user' ? /^\/.*\/server\/index\.js$/ : /^\.loadout\/plugins\/.*\/server\/index\.js$/)
      expect(complaints(list.out), list.out).toEqual([])
      expect(existsSync(join(sb.home, '.codex', 'prompts'))).toBe(false)
      if (scope === 'user') expect(output).toMatch(/not written: command review: .*custom prompts .* removed/)
      // what the model is shown: the skill, and the subagent as one of its custom agents
      const prompt = await vendor('codex', sb, ['debug', 'prompt-input'])
      expect(prompt.status, prompt.out).toBe(0)
      expect(prompt.out).toContain('reviewer: {\\nReviews code.\\n}')
      expect(prompt.out).toMatch(/tidy: Use when tidying\. \(file: /)
      await uninstallKit(sb, scope)
      expect((await vendor('codex', sb, ['mcp', 'list', '--json'])).out).not.toContain('kit-')
    },
  )

  it.each(['user', 'project'] as const)('Gemini CLI (%s): MCP servers connect; the skill and subagent load without an error', async (scope) => {
    const {sb} = await installKit('gemini-cli', scope)
    editJson(join(sb.home, '.gemini', 'trustedFolders.json'), (json) => (json[sb.project] = 'TRUST_FOLDER'))
    const list = await vendor('gemini-cli', sb, ['mcp', 'list'])
    expect(list.out).toMatch(/✓ kit-plain: node \S+ \(stdio\) - Connected/)
    expect(list.out).toMatch(/✓ kit-token: node \S+ --token \(stdio\) - Connected/)
    expect(complaints(list.out), list.out).toEqual([])
    const agentFile = join(scope === 'user' ? join(sb.home, '.gemini') : join(sb.project, '.gemini'), 'agents', 'reviewer.md')
    expect(readFileSync(agentFile, 'utf8')).toContain('- read_file')
    const skills = await vendor('gemini-cli', sb, ['skills', 'list'])
    expect(skills.out).toMatch(/tidy \[Enabled\]/)
    // the agent registry loads ~/.gemini/agents and .gemini/agents at start-up and reports each file it cannot read
    expect(complaints(skills.out), skills.out).toEqual([])
  })

  it.each(['user', 'project'] as const)('OpenCode (%s): MCP servers connect, with one from mcp add; the subagent and the command are listed', async (scope) => {
    const {sb} = await installKit('opencode', scope)
    const server = join(sb.dir, 'stand-in.js')
    writeFileSync(server, STAND_IN)
    const added = await loadout(sb, ['mcp', 'add', 'added', '--agent', 'opencode', '--scope', scope, '--yes', '--json', '--', 'node', server], {
      env: vendorEnv(sb),
    })
    expect(added.status, added.stdout + added.stderr).toBe(0)
    const list = await vendor('opencode', sb, ['mcp', 'list'])
    expect(list.out).toMatch(/✓ kit-plain\s+\S*connected/)
    expect(list.out).toMatch(/✓ kit-token\s+\S*connected/)
    expect(list.out).toMatch(/✓ added\s+\S*connected/)
    expect(complaints(list.out), list.out).toEqual([])
    const agents = await vendor('opencode', sb, ['agent', 'list'])
    expect(agents.out).toMatch(/^reviewer \(subagent\)$/m)
    expect(complaints(agents.out), agents.out).toEqual([])
    // the slash command, from the folder OpenCode documents (it reads the older command/ too)
    const commands = join(scope === 'user' ? join(sb.home, '.config', 'opencode') : join(sb.project, '.opencode'), 'commands')
    expect(readdirSync(commands)).toEqual(['review.md'])
    const config = await vendor('opencode', sb, ['debug', 'config'])
    expect(config.status, config.out).toBe(0)
    expect(JSON.parse(config.out.slice(config.out.indexOf('{'))).command).toEqual({review: {description: 'Review the diff', template: 'Review $ARGUMENTS.'}})
  })

  it.each(['user', 'project'] as const)('Copilot CLI (%s): copilot mcp list --json lists both servers; the skill is listed', async (scope) => {
    const {sb} = await installKit('github-copilot', scope)
    if (scope === 'project') editJson(join(sb.home, '.copilot', 'config.json'), (json) => (json.trusted_folders = [sb.project]))
    const list = await vendor('github-copilot', sb, ['mcp', 'list', '--json'])
    expect(list.status, list.out).toBe(0)
    const servers = JSON.parse(list.out.slice(list.out.indexOf('{'))).mcpServers
    expect(servers['kit-plain'], list.out).toMatchObject({type: 'stdio', command: 'node', enabled: true})
    expect(servers['kit-token'], list.out).toMatchObject({env: {TOKEN: '${KIT_TOKEN}'}, enabled: true})
    expect(complaints(list.out), list.out).toEqual([])
    const skills = await vendor('github-copilot', sb, ['skill', 'list', '--json'])
    expect(JSON.parse(skills.out.slice(skills.out.indexOf('[')))).toEqual(expect.arrayContaining([expect.objectContaining({name: 'tidy'})]))
    expect(existsSync(join(scope === 'user' ? join(sb.home, '.copilot') : join(sb.project, '.github'), 'agents', 'reviewer.agent.md'))).toBe(true)
    await uninstallKit(sb, scope)
    expect((await vendor('github-copilot', sb, ['mcp', 'list', '--json'])).out).not.toContain('kit-')
  })
})

/**
 * `install` for Claude Code (native by default, no flag): each plugin becomes Claude Code's own plugin, through a
 * one-plugin marketplace loadout owns. Two plugins that share part names are both listed, namespaced
 * `<plugin>:<part>`, with their MCP servers; a plugin holding only language servers installs too;
 * disable takes a plugin out of the listing and enable brings it back; uninstalling both leaves the
 * settings file byte-identical to the one the user had.
 */
describe.concurrent('Claude Code native plugins (the default)', () => {
  const nativePlugin = (root: string, name: string): string => {
    const files: Record<string, string> = {
      '.claude-plugin/plugin.json': JSON.stringify({name, version: '1.0.0'}),
      'skills/access/SKILL.md': `---\nname: access\ndescription: Use when ${name} grants access.\n---\n\nAccess for ${name}.\n`,
      'agents/code-reviewer.md': `---\nname: code-reviewer\ndescription: Reviews code for ${name}.\n---\n\nReview as ${name}.\n`,
      'commands/rev.md': `---\ndescription: Review with ${name}\n---\n\nReview $ARGUMENTS.\n`,
      'server/index.js': STAND_IN,
      '.mcp.json': JSON.stringify({mcpServers: {[`${name}-srv`]: {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server/index.js']}}}),
    }
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, name, rel)), {recursive: true})
      writeFileSync(join(root, name, rel), text)
    }
    return join(root, name)
  }
  const lspOnly = (root: string): string => {
    const dir = join(root, 'golsp')
    mkdirSync(join(dir, '.claude-plugin'), {recursive: true})
    writeFileSync(
      join(dir, '.claude-plugin', 'plugin.json'),
      JSON.stringify({name: 'golsp', version: '1.0.0', lspServers: {go: {command: 'gopls', args: ['serve'], extensionToLanguage: {'.go': 'go'}}}}),
    )
    return dir
  }
  /** What Claude Code loaded from plugins: their sources and the namespaced parts. */
  const pluginParts = async (sb: Sandbox) => {
    const init = await claudeInit(sb)
    const namespaced = (list: string[]) => list.filter((n) => n.includes(':')).sort()
    return {
      plugins: (init.plugins as Array<{source: string}>)
        .map((p) => p.source.replace(/@(.*)$/, (_, market: string) => `@${sharedMarketName(market)}`))
        .filter((s) => !s.endsWith('@builtin'))
        .sort(),
      skills: namespaced(init.skills),
      agents: namespaced(init.agents),
      commands: namespaced(init.slash_commands),
      mcp: (init.mcp_servers as Array<{name: string; status: string; source: string}>)
        .filter((m) => m.name.startsWith('plugin:'))
        // a loaded machine may still be starting a server ("pending"); "failed" would be a defect
        .map((m) => ({...m, status: m.status === 'pending' ? 'connected' : m.status}))
        .sort((a, b) => a.name.localeCompare(b.name)),
    }
  }
  const BOTH = {
    plugins: ['alpha@loadout-direct-alpha', 'beta@loadout-direct-beta', 'golsp@loadout-direct-golsp'],
    skills: ['alpha:access', 'beta:access'],
    agents: ['alpha:code-reviewer', 'beta:code-reviewer'],
    commands: ['alpha:access', 'alpha:rev', 'beta:access', 'beta:rev'],
    mcp: [
      {name: 'plugin:alpha:alpha-srv', status: 'connected', source: 'plugin'},
      {name: 'plugin:beta:beta-srv', status: 'connected', source: 'plugin'},
    ],
  }

  it.each(['user', 'project'] as const)(
    '%s scope: both plugins and an LSP-only one are listed, namespaced; uninstall restores settings.json',
    async (scope) => {
      const sb = sandbox()
      const git = await new Promise<number>((resolve) => spawn('git', ['init', '-q', sb.project], {stdio: 'ignore'}).on('close', (c) => resolve(c ?? -1)))
      expect(git).toBe(0)
      const env = vendorEnv(sb)
      const settings = scope === 'user' ? join(sb.home, '.claude', 'settings.json') : join(sb.project, '.claude', 'settings.json')
      const mine = '{\n    "theme":   "dark" ,\n  "enabledPlugins": {"x@y": false}\n}\n'
      mkdirSync(dirname(settings), {recursive: true})
      writeFileSync(settings, mine)
      if (scope === 'project') editJson(join(sb.home, '.claude', '.claude.json'), (json) => (json.projects = {[sb.project]: {hasTrustDialogAccepted: true}}))
      const plugins = [nativePlugin(sb.dir, 'alpha'), nativePlugin(sb.dir, 'beta'), lspOnly(sb.dir)]
      const installed = await loadout(sb, ['install', ...plugins, '--agent', 'claude-code', '--scope', scope, '--yes', '--json'], {env})
      expect(installed.status, installed.stdout + installed.stderr).toBe(0)
      // what Claude Code will run is what consent showed: the MCP servers, and the language server
      const consented = installed.json<{results: Array<{plugin: string; consent: {items: Array<{kind: string}>}}>}>().results
      expect(consented.find((r) => r.plugin === 'golsp@direct')!.consent.items).toEqual([
        {kind: 'lsp', component: 'golsp@direct/lsp/go', server: {command: 'gopls', args: ['serve']}},
      ])
      expect(consented.find((r) => r.plugin === 'alpha@direct')!.consent.items.map((i) => i.kind)).toEqual(['mcp'])
      const written = readFileSync(settings, 'utf8')
      expect(written).toContain('"theme":   "dark" ,')
      if (scope === 'project') {
        // a committed file: the marketplace is named relative to the project, never by a machine path
        expect(written).not.toContain(sb.dir)
        expect(loadoutMarketplace(JSON.parse(written), 'loadout-direct-alpha')).toEqual({
          source: {source: 'directory', path: './.loadout/plugins/alpha@direct'},
        })
        // Claude Code registers a project's marketplace at the first start and loads its plugins from the next
        await claudeInit(sb)
      }
      expect(await pluginParts(sb)).toEqual(BOTH)
      expect((await loadout(sb, ['verify', '--json'], {env})).status).toBe(0)

      const disabled = await loadout(sb, ['disable', 'beta@direct', '--scope', scope, '--json'], {env})
      expect(disabled.status, disabled.stdout).toBe(0)
      expect((await pluginParts(sb)).skills).toEqual(['alpha:access'])
      const enabled = await loadout(sb, ['enable', 'beta@direct', '--scope', scope, '--yes', '--json'], {env})
      expect(enabled.status, enabled.stdout).toBe(0)
      expect(await pluginParts(sb)).toEqual(BOTH)

      for (const id of ['alpha@direct', 'beta@direct', 'golsp@direct']) {
        const removed = await loadout(sb, ['uninstall', id, '--scope', scope, '--yes', '--json'], {env})
        expect(removed.status, removed.stdout).toBe(0)
      }
      expect(readFileSync(settings, 'utf8')).toBe(mine)
      expect((await pluginParts(sb)).plugins).toEqual([])
    },
  )
})

/**
 * The issue's case, whole: a marketplace (built here) whose three plugins each have a skill `access`
 * and two of them a subagent `code-reviewer`, installed in one command with no flag into Claude Code,
 * Codex and Deep Agents. Claude Code's own CLI lists every part once under its plugin's name; the
 * loose agents get the first plugin's part under its own name and the others' as `<plugin>-<part>`.
 */
describe('a marketplace whose plugins share part names, into claude-code, codex and deepagents', () => {
  const PLUGINS = {discord: true, imessage: true, telegram: false}
  const channels = (root: string): string => {
    const files: Record<string, string> = {
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'channels',
        owner: {name: 'test'},
        plugins: Object.keys(PLUGINS).map((name) => ({name, source: `./plugins/${name}`, version: '1.0.0'})),
      }),
    }
    for (const [name, reviewer] of Object.entries(PLUGINS)) {
      files[`plugins/${name}/.claude-plugin/plugin.json`] = JSON.stringify({name, version: '1.0.0'})
      files[`plugins/${name}/skills/access/SKILL.md`] = `---\nname: access\ndescription: Use when ${name} grants access.\n---\n\nAccess for ${name}.\n`
      if (reviewer)
        files[`plugins/${name}/agents/code-reviewer.md`] = `---\nname: code-reviewer\ndescription: Reviews ${name} code.\n---\n\nReview as ${name}.\n`
    }
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, rel)), {recursive: true})
      writeFileSync(join(root, rel), text)
    }
    return root
  }

  it('user scope: installs whole with no flag; Claude Code lists each part once as <plugin>:<part>, codex and deepagents get <plugin>-<part>', async () => {
    const sb = sandbox()
    const env = vendorEnv(sb)
    expect((await loadout(sb, ['marketplace', 'add', channels(join(sb.dir, 'channels')), '--scope', 'user', '--json'], {env})).status).toBe(0)
    const ids = Object.keys(PLUGINS).map((n) => `${n}@channels`)
    const installed = await loadout(sb, ['install', ...ids, '--agent', 'claude-code,codex,deepagents', '--scope', 'user', '--yes', '--json'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const results = installed.json<{results: Array<{plugin: string; plans: Array<{target: string; renamed: Array<{name: string; as: string}>}>}>}>().results
    expect(results.map((r) => r.plugin).sort()).toEqual(ids)
    // Claude Code took none of them loose: no rename there, nothing in its loose folders
    for (const r of results) expect(r.plans.find((p) => p.target === 'claude-code')!.renamed).toEqual([])
    for (const folder of ['skills', 'agents']) expect(existsSync(join(sb.home, '.claude', folder))).toBe(false)

    const init = await claudeInit(sb)
    const fromPlugins = (list: string[]) => list.filter((n) => n.endsWith(':access') || n.endsWith(':code-reviewer')).sort()
    expect(fromPlugins(init.skills)).toEqual(['discord:access', 'imessage:access', 'telegram:access'])
    expect(fromPlugins(init.agents)).toEqual(['discord:code-reviewer', 'imessage:code-reviewer'])
    expect(init.skills).not.toContain('access')
    expect(init.agents).not.toContain('code-reviewer')

    // the loose agents: one plugin keeps the name, the others take `<plugin>-<part>`, each file once
    const keeper = keeperOf(sb, 'access')
    const others = Object.keys(PLUGINS).filter((n) => n !== keeper)
    expect(readdirSync(join(sb.home, '.agents', 'skills')).sort()).toEqual(['access', ...others.map((n) => `${n}-access`)].sort())
    const reviewers = readdirSync(join(sb.home, '.deepagents', 'agent', 'agents')).sort()
    expect(reviewers).toHaveLength(2)
    expect(reviewers).toContain('code-reviewer')
    expect(reviewers.filter((n) => n !== 'code-reviewer')).toEqual([expect.stringMatching(/^(discord|imessage)-code-reviewer$/)])
    expect(existsSync(join(sb.home, '.deepagents', 'agent', 'skills'))).toBe(false)
    expect((await loadout(sb, ['verify', '--json'], {env})).status).toBe(0)

    // what Claude Code reads is loadout's verified copy: a change to it is caught
    const settings = JSON.parse(readFileSync(join(sb.home, '.claude', 'settings.json'), 'utf8'))
    const offered = settings.extraKnownMarketplaces['loadout-channels-telegram'].source.path as string
    const catalog = JSON.parse(readFileSync(join(offered, '.claude-plugin', 'marketplace.json'), 'utf8'))
    writeFileSync(join(offered, catalog.plugins[0].source, 'skills', 'access', 'SKILL.md'), '---\nname: access\ndescription: changed.\n---\n\nChanged.\n')
    const tampered = await loadout(sb, ['verify', '--json'], {env})
    expect(tampered.status, tampered.stdout).not.toBe(0)
    expect(tampered.stdout).toContain('telegram@channels')
  })
})

/** The plugin whose part kept its own name in ~/.agents/skills (read from its SKILL.md body). */
const keeperOf = (sb: Sandbox, name: string): string =>
  /Access for (\w+)\./.exec(readFileSync(join(sb.home, '.agents', 'skills', name, 'SKILL.md'), 'utf8'))![1]!
