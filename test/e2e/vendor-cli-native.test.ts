/**
 * `install --native` for agents other than Claude Code, judged by their own CLIs (pinned in
 * test/support/vendor-clis.js). The Copilot CLI reads the same marketplace form as Claude Code, in its
 * own settings file: two plugins that share a skill name are both listed as its live plugins, the
 * skills namespaced `<plugin>:<part>`, the MCP servers tagged with their plugin; disable takes a
 * plugin out, enable brings it back, and uninstalling both leaves the settings file byte-identical.
 * Claude Code and the Copilot CLI share the catalog of a plugin both load natively; the Copilot CLI and
 * OpenCode read the skill folders of Claude Code and Codex, Gemini CLI that of Codex, and the Copilot
 * CLI Claude Code's MCP file: each judged by the agent's own CLI. Gemini CLI and Codex keep loose parts
 * (why: `pluginForm` in registry/agents/gemini-cli.json and codex.json), checked by
 * test/e2e/vendor-cli.test.ts.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {claudeInit, complaints, editJson, gitInit, loadoutMarketplace, sharedMarketName, vendor, vendorEnv} from '../support/vendor-run.js'
import {STAND_IN} from '../support/stand-in-mcp.js'
import {loadout, sandboxes, snapshot} from './helpers.js'

const sandbox = sandboxes()
vi.setConfig({testTimeout: 420_000})

/** A plugin whose skill shares its name with the other plugin's; each has its own MCP server. */
const namesake = (root: string, name: string): string => {
  const dir = join(root, name)
  const tree = new Map<string, string>([
    ['.claude-plugin/plugin.json', JSON.stringify({name, version: '1.0.0'})],
    ['skills/access/SKILL.md', `---\nname: access\ndescription: Grants access the ${name} way.\n---\n\nAccess via ${name}.\n`],
    ['server/index.js', STAND_IN],
    ['.mcp.json', JSON.stringify({mcpServers: {[`${name}-srv`]: {command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/server/index.js']}}})],
  ])
  for (const [rel, text] of tree) {
    mkdirSync(dirname(join(dir, rel)), {recursive: true})
    writeFileSync(join(dir, rel), text)
  }
  return dir
}

/** JSON a CLI printed after its own progress lines ("Package extraction took …"). */
const jsonAfter = (out: string, open: '[' | '{'): any => JSON.parse(out.slice(out.indexOf(open)))

/** What the Copilot CLI loads from plugins: its live plugins, their skills and their MCP servers. */
const copilotSees = async (sb: Sandbox) => {
  const runs = []
  // one at a time: the first run in a HOME unpacks Copilot's package there, which takes a minute on a loaded machine
  for (const args of [
    ['plugin', 'list'],
    ['skill', 'list'],
    ['mcp', 'list'],
  ])
    runs.push(await vendor('github-copilot', sb, [...args, '--json']))
  for (const run of runs) {
    expect(run.status, run.out).toBe(0)
    expect(complaints(run.out), run.out).toEqual([])
  }
  const [plugins, skills, mcp] = runs.map((run) => run.out)
  const servers = Object.entries(jsonAfter(mcp!, '{').mcpServers as Record<string, {sourcePlugin?: string; env?: Record<string, string>}>)
  return {
    plugins: (jsonAfter(plugins!, '[') as Array<{name: string; marketplace: string; source: string; enabled: boolean}>)
      .filter((p) => p.source !== 'builtin')
      .map((p) => `${p.name}@${sharedMarketName(p.marketplace)} ${p.source} ${p.enabled ? 'enabled' : 'disabled'}`)
      .sort(),
    skills: (jsonAfter(skills!, '[') as Array<{name: string; source: string; description: string}>)
      .filter((s) => s.source === 'plugin')
      .map((s) => `${s.name}: ${s.description}`)
      .sort(),
    servers: servers.map(([name, s]) => `${name} from ${s.sourcePlugin} at ${s.env?.CLAUDE_PLUGIN_ROOT}`).sort(),
  }
}

/** What `copilot skill list --json` lists; with `quiet`, Copilot also printed no complaint. */
const copilotSkills = async (sb: Sandbox, {quiet = false} = {}): Promise<Array<{name: string; source: string; path: string}>> => {
  const run = await vendor('github-copilot', sb, ['skill', 'list', '--json'])
  expect(run.status, run.out).toBe(0)
  if (quiet) expect(complaints(run.out), run.out).toEqual([])
  return jsonAfter(run.out, '[')
}

/** A sandbox whose project is a git work tree the Copilot CLI trusts (so it reads the project's files), and its environment. */
const trustedByCopilot = async (): Promise<{sb: Sandbox; env: NodeJS.ProcessEnv}> => {
  const sb = sandbox()
  expect(await gitInit(sb.project)).toBe(0)
  editJson(join(sb.home, '.copilot', 'config.json'), (json) => (json.trusted_folders = [sb.project]))
  return {sb, env: vendorEnv(sb)}
}

describe.concurrent('Copilot CLI native plugins (install --native)', () => {
  it('the user scope and two projects: in each folder Copilot runs the plugin from that folder’s own copy', async () => {
    const sb = sandbox()
    const [a, b, elsewhere] = [sb.project, join(sb.dir, 'other'), join(sb.dir, 'elsewhere')]
    for (const dir of [b, elsewhere]) mkdirSync(dir)
    for (const dir of [a, b]) expect(await gitInit(dir)).toBe(0)
    editJson(join(sb.home, '.copilot', 'config.json'), (json) => (json.trusted_folders = [a, b, elsewhere]))
    const env = vendorEnv(sb)
    const beta = namesake(sb.dir, 'beta')
    for (const [scope, cwd] of [
      ['user', a],
      ['project', a],
      ['project', b],
    ] as const) {
      const installed = await loadout(sb, ['install', beta, '--agent', 'github-copilot', '--scope', scope, '--native', '--yes', '--json'], {env, cwd})
      expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    }
    const userCopies = join(sb.home, '.local', 'share', 'loadout', 'plugins', 'direct', 'beta')
    for (const cwd of [a, b, elsewhere, b, a]) {
      const listed = await vendor('github-copilot', sb, ['plugin', 'list', '--json'], cwd)
      const markets = (jsonAfter(listed.out, '[') as Array<{name: string; marketplace: string}>).filter((p) => p.name === 'beta').map((p) => p.marketplace)
      // the user scope's marketplace, and the project's own (a name of its own: src/core/ops/install/native-name.ts)
      expect(markets.sort(), cwd).toEqual(
        cwd === elsewhere ? ['loadout-direct-beta'] : ['loadout-direct-beta', expect.stringMatching(/^loadout-direct-beta-[0-9a-f]{8}$/)],
      )
      const run = await vendor('github-copilot', sb, ['mcp', 'list', '--json'], cwd)
      const servers = jsonAfter(run.out, '{').mcpServers as Record<string, {env?: Record<string, string>}>
      // of two servers with one name Copilot keeps one: the project's, run from the project's copy
      expect(dirname(servers['beta-srv']?.env?.CLAUDE_PLUGIN_ROOT ?? ''), cwd).toBe(
        cwd === elsewhere ? userCopies : join(cwd, '.loadout', 'plugins', 'beta@direct'),
      )
    }
  })

  it.each(['user', 'project'] as const)('%s scope: both plugins are live, skills namespaced; uninstall restores the settings file', async (scope) => {
    const sb = sandbox()
    expect(await gitInit(sb.project)).toBe(0)
    const env = vendorEnv(sb)
    const settings = scope === 'user' ? join(sb.home, '.copilot', 'settings.json') : join(sb.project, '.github', 'copilot', 'settings.json')
    const mine = '{\n    "theme":   "dark" ,\n  "enabledPlugins": {"x@y": false}\n}\n'
    mkdirSync(dirname(settings), {recursive: true})
    writeFileSync(settings, mine)
    // the user's own trust in the project, which Copilot asks for before it reads the repository's settings
    if (scope === 'project') editJson(join(sb.home, '.copilot', 'config.json'), (json) => (json.trusted_folders = [sb.project]))
    const plugins = [namesake(sb.dir, 'alpha'), namesake(sb.dir, 'beta')]
    const installed = await loadout(sb, ['install', ...plugins, '--agent', 'github-copilot', '--scope', scope, '--native', '--yes', '--json'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    // consent showed what Copilot will run: each plugin's MCP server
    type Result = {plugin: string; consent: {items: Array<{kind: string}>}; plans: Array<{notes: Array<{note: string}>}>}
    const results = installed.json<{results: Result[]}>().results
    expect(results.map((r) => [r.plugin, r.consent.items.map((i) => i.kind)])).toEqual([
      ['alpha@direct', ['mcp']],
      ['beta@direct', ['mcp']],
    ])
    // Copilot reads a repository's settings only once the folder is trusted: said, as for its other project files
    const notes = results.flatMap((r) => r.plans.flatMap((p) => p.notes.map((n) => n.note)))
    expect(notes.filter((n) => n.includes('only in a trusted workspace'))).toHaveLength(scope === 'project' ? 2 : 0)
    const written = readFileSync(settings, 'utf8')
    expect(written).toContain('"theme":   "dark" ,')
    // the installed copies Copilot reads live: loadout's data folder, or the project's .loadout
    const copies = (name: string) =>
      scope === 'user' ? join(sb.home, '.local', 'share', 'loadout', 'plugins', 'direct', name) : join(sb.project, '.loadout', 'plugins', `${name}@direct`)
    if (scope === 'project') {
      // a committed file: the marketplace is named relative to the project, never by a machine path
      expect(written).not.toContain(sb.dir)
      expect(loadoutMarketplace(JSON.parse(written), 'loadout-direct-alpha')).toEqual({
        source: {source: 'directory', path: './.loadout/plugins/alpha@direct'},
      })
    }
    const both = await copilotSees(sb)
    expect(both.plugins).toEqual(['alpha@loadout-direct-alpha live enabled', 'beta@loadout-direct-beta live enabled'])
    expect(both.skills).toEqual(['alpha:access: Grants access the alpha way.', 'beta:access: Grants access the beta way.'])
    expect(both.servers).toHaveLength(2)
    for (const [i, name] of ['alpha', 'beta'].entries()) expect(both.servers[i]).toMatch(new RegExp(`^${name}-srv from ${name} at ${copies(name)}/[^/]+$`))
    expect((await loadout(sb, ['verify', '--json'], {env})).status).toBe(0)

    const disabled = await loadout(sb, ['disable', 'beta@direct', '--scope', scope, '--json'], {env})
    expect(disabled.status, disabled.stdout).toBe(0)
    const alone = await copilotSees(sb)
    expect(alone.plugins).toEqual(['alpha@loadout-direct-alpha live enabled'])
    expect(alone.skills).toEqual(['access: Grants access the alpha way.'])
    const enabled = await loadout(sb, ['enable', 'beta@direct', '--scope', scope, '--yes', '--json'], {env})
    expect(enabled.status, enabled.stdout).toBe(0)
    expect(await copilotSees(sb)).toEqual(both)

    for (const id of ['alpha@direct', 'beta@direct']) {
      const removed = await loadout(sb, ['uninstall', id, '--scope', scope, '--yes', '--json'], {env})
      expect(removed.status, removed.stdout).toBe(0)
    }
    expect(readFileSync(settings, 'utf8')).toBe(mine)
    expect(await copilotSees(sb)).toEqual({plugins: [], skills: [], servers: []})
  })
})

/** A plugin of two skills, `one` and `two`, in a folder of the sandbox. */
const twoSkills = (root: string): string => {
  const dir = join(root, 'duo')
  for (const [rel, text] of [
    ['.claude-plugin/plugin.json', JSON.stringify({name: 'duo', version: '1.0.0'})],
    ['skills/one/SKILL.md', '---\nname: one\ndescription: The first skill.\n---\n\nOne.\n'],
    ['skills/two/SKILL.md', '---\nname: two\ndescription: The second skill.\n---\n\nTwo.\n'],
  ] as const) {
    mkdirSync(dirname(join(dir, rel)), {recursive: true})
    writeFileSync(join(dir, rel), text)
  }
  return dir
}

/**
 * Claude Code and the Copilot CLI both load a plugin installed natively through the one catalog beside
 * loadout's copy, so the parts it offers are the same for both: a part turned off for one of them alone
 * is refused (it was taken for done, and Claude Code went on loading the part), and nothing changes;
 * turned off for both, neither CLI lists it. A second agent asking natively for every part of a plugin
 * the first has a part of off is refused alike, and takes loose parts.
 */
describe.concurrent('Claude Code and the Copilot CLI, one native plugin', () => {
  it('a part goes off for both or for neither; each CLI lists what the catalog offers', async () => {
    const sb = sandbox()
    expect(await gitInit(sb.project)).toBe(0)
    const env = vendorEnv(sb)
    const run = (args: string[]) => loadout(sb, [...args, '--scope', 'user', '--json'], {env})
    const seen = async () => {
      const listed = await copilotSkills(sb)
      return {
        claude: ((await claudeInit(sb)).skills as string[]).filter((s) => s.startsWith('duo:')).sort(),
        copilot: listed
          .filter((s) => /^(duo:)?(one|two)$/.test(s.name))
          .map((s) => `${s.name} (${s.source})`)
          .sort(),
      }
    }
    const plugin = twoSkills(sb.dir)
    const installed = await run(['install', plugin, '--agent', 'claude-code,github-copilot', '--native', '--yes'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const all = {claude: ['duo:one', 'duo:two'], copilot: ['one (plugin)', 'two (plugin)']}
    expect(await seen()).toEqual(all)

    for (const args of [
      ['disable', 'duo@direct', '--skill', 'one', '--agent', 'claude-code'],
      ['disable', 'duo@direct', '--skill', 'one', '--agent', 'github-copilot'],
    ]) {
      const before = snapshot(sb.home)
      const refused = await run(args)
      expect(refused.status, refused.stdout + refused.stderr).toBe(5)
      expect(refused.json<{error: {code: string; message: string}}>().error).toMatchObject({
        code: 'destination-shared',
        message: expect.stringContaining('load duo@direct as their own plugin through one catalog'),
      })
      expect(snapshot(sb.home)).toEqual(before)
    }
    expect(await seen()).toEqual(all)

    const off = await run(['disable', 'duo@direct', '--skill', 'one'])
    expect(off.status, off.stdout + off.stderr).toBe(0)
    expect(await seen()).toEqual({claude: ['duo:two'], copilot: ['two (plugin)']})
    expect((await run(['verify'])).status).toBe(0)
    const back = await run(['enable', 'duo@direct', '--skill', 'one', '--agent', 'github-copilot', '--yes'])
    expect(back.status, back.stdout + back.stderr).toBe(5)
    expect((await run(['enable', 'duo@direct', '--skill', 'one', '--yes'])).status).toBe(0)
    expect(await seen()).toEqual(all)

    // Copilot's install removed, a part turned off for Claude Code alone: Copilot then asks for every part
    expect((await run(['uninstall', 'duo@direct', '--agent', 'github-copilot', '--yes'])).status).toBe(0)
    expect((await run(['disable', 'duo@direct', '--skill', 'one'])).status).toBe(0)
    const whole = await run(['install', plugin, '--agent', 'github-copilot', '--native', '--yes'])
    expect(whole.status, whole.stdout + whole.stderr).toBe(5)
    expect((await run(['install', plugin, '--agent', 'github-copilot', '--loose', '--yes'])).status).toBe(0)
    expect(await seen()).toEqual({claude: ['duo:two'], copilot: ['one (personal-copilot)', 'two (personal-copilot)']})
  })
})

/**
 * The Copilot CLI reads a project's skills from `.claude/skills` and `.agents/skills` beside its own
 * `.github/skills` (registry/agents/github-copilot.json): installed for Claude Code, Codex and Copilot,
 * a skill is written for the first two and Copilot loads it once, from either; a skill of the user's
 * own of the same name in `.claude/skills` refuses the plugin's for Copilot, which would load one of
 * the two, unless --prefix names it `<plugin>-<name>`.
 */
describe.concurrent('Copilot CLI reads the skill folders of Claude Code and Codex', () => {
  it('project scope: one copy per folder, each skill listed once; the user’s own skill is not hidden', async () => {
    const {sb, env} = await trustedByCopilot()
    const listed = async () =>
      (await copilotSkills(sb, {quiet: true}))
        .filter((s) => s.source !== 'builtin')
        .map((s) => `${s.name} ${s.path.slice(sb.project.length + 1)}`)
        .sort()
    const plugin = twoSkills(sb.dir)
    const installed = await loadout(
      sb,
      ['install', plugin, '--agent', 'claude-code,codex,github-copilot', '--loose', '--scope', 'project', '--yes', '--json'],
      {
        env,
      },
    )
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(readdirSync(join(sb.project, '.claude', 'skills')).sort()).toEqual(['one', 'two'])
    expect(readdirSync(join(sb.project, '.agents', 'skills')).sort()).toEqual(['one', 'two'])
    expect(existsSync(join(sb.project, '.github', 'skills'))).toBe(false)
    const names = (await listed()).map((line) => line.split(' ')[0])
    expect(names).toEqual(['one', 'two'])
    expect((await loadout(sb, ['uninstall', 'duo@direct', '--scope', 'project', '--yes'], {env})).status).toBe(0)
    expect(await listed()).toEqual([])

    const own = join(sb.project, '.claude', 'skills', 'one', 'SKILL.md')
    mkdirSync(dirname(own), {recursive: true})
    writeFileSync(own, '---\nname: one\ndescription: The user’s own.\n---\n\nMine.\n')
    // Copilot would load one of the two skills named one: refused, as a skill of the user's in its own folder is
    const taken = await loadout(sb, ['install', plugin, '--agent', 'github-copilot', '--scope', 'project', '--yes', '--json'], {env})
    expect(taken.status, taken.stdout + taken.stderr).toBe(5)
    expect(taken.json<{error: {code: string; message: string}}>().error).toMatchObject({
      code: 'skill-taken',
      message: expect.stringContaining(own.slice(0, -'/SKILL.md'.length)),
    })
    const beside = await loadout(sb, ['install', plugin, '--agent', 'github-copilot', '--scope', 'project', '--prefix', '--yes'], {env})
    expect(beside.status, beside.stdout + beside.stderr).toBe(0)
    expect(await listed()).toEqual(['duo-one .github/skills/duo-one', 'one .claude/skills/one', 'two .github/skills/two'])
  })
})

describe.concurrent('Copilot CLI reads Claude Code’s project MCP file and settings', () => {
  it('a server installed for Claude Code alone is one Copilot starts too, and mcp list names it for Copilot', async () => {
    const {sb, env} = await trustedByCopilot()
    const plugin = namesake(sb.dir, 'alpha')
    const installed = await loadout(sb, ['install', plugin, '--agent', 'claude-code', '--loose', '--scope', 'project', '--yes'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const run = await vendor('github-copilot', sb, ['mcp', 'list', '--json'])
    expect(run.status, run.out).toBe(0)
    const servers = jsonAfter(run.out, '{').mcpServers as Record<string, {sourcePath?: string}>
    expect(Object.entries(servers).map(([name, s]) => `${name} ${s.sourcePath}`)).toEqual([`alpha-alpha-srv ${join(sb.project, '.mcp.json')}`])
    const listed = await loadout(sb, ['mcp', 'list', '--scope', 'project', '--json'], {env})
    const rows = listed.json<{servers: Array<{agent: string; name: string}>}>().servers
    expect(rows.filter((r) => r.name === 'alpha-alpha-srv').map((r) => r.agent)).toContain('github-copilot')
  })

  it('a plugin installed natively for Claude Code alone in a project is live in Copilot too', async () => {
    const {sb, env} = await trustedByCopilot()
    const installed = await loadout(sb, ['install', namesake(sb.dir, 'beta'), '--agent', 'claude-code', '--scope', 'project', '--yes'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect((await copilotSees(sb)).plugins).toEqual(['beta@loadout-direct-beta live enabled'])
  })
})

/**
 * OpenCode reads the skills of Claude Code (`.claude/skills`) and of the agents that share
 * `.agents/skills` beside its own folder, and warns at every start of a skill name it finds twice: with
 * Codex it takes Codex's copy; with Claude Code's loose parts too, both copies are needed, and the install
 * says OpenCode will warn.
 */
describe.concurrent('OpenCode reads the skill folders of Claude Code and Codex', () => {
  it('project scope: beside Codex one copy and no warning; beside Claude Code and Codex the install says it will warn', async () => {
    const sb = sandbox()
    expect(await gitInit(sb.project)).toBe(0)
    const env = vendorEnv(sb)
    const sees = async () => {
      const run = await vendor('opencode', sb, ['debug', 'skill', '--print-logs', '--log-level', 'WARN'])
      expect(run.status, run.out).toBe(0)
      const locations = [...run.out.matchAll(/"location": "([^"]+)"/g)].map((m) => m[1]!).filter((l) => l.startsWith(sb.project))
      return {locations: locations.map((l) => l.slice(sb.project.length + 1)).sort(), duplicates: run.out.match(/duplicate skill name/g)?.length ?? 0}
    }
    const plugin = twoSkills(sb.dir)
    const installed = await loadout(sb, ['install', plugin, '--agent', 'codex,opencode', '--scope', 'project', '--yes', '--json'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(existsSync(join(sb.project, '.opencode', 'skills'))).toBe(false)
    expect(await sees()).toEqual({locations: ['.agents/skills/one/SKILL.md', '.agents/skills/two/SKILL.md'], duplicates: 0})

    expect((await loadout(sb, ['uninstall', 'duo@direct', '--scope', 'project', '--yes'], {env})).status).toBe(0)
    const beside = await loadout(sb, ['install', plugin, '--agent', 'claude-code,codex,opencode', '--loose', '--scope', 'project', '--yes', '--json'], {env})
    expect(beside.status, beside.stdout + beside.stderr).toBe(0)
    const notes = beside.json<{plans: Array<{target: string; notes: Array<{note: string}>}>}>().plans.flatMap((p) => p.notes.map((n) => n.note))
    expect(notes.filter((n) => n.startsWith('OpenCode reads the skill'))).toHaveLength(2)
    expect((await sees()).duplicates).toBe(2)
  })
})

/**
 * Gemini CLI keeps loose parts (pluginForm in registry/agents/gemini-cli.json: its extensions do not
 * namespace their parts, and a second extension's skill of the same name overrides the first). As loose
 * parts, the second plugin's skill takes the plugin-qualified name, and Gemini CLI lists both skills
 * and both servers with no conflict.
 */
describe.concurrent('Gemini CLI: two plugins that share a skill name, as loose parts', () => {
  it('user scope: both skills listed (the second as beta-access), both servers; uninstall lists neither', async () => {
    const sb = sandbox()
    expect(await gitInit(sb.project)).toBe(0)
    const env = vendorEnv(sb)
    editJson(join(sb.home, '.gemini', 'trustedFolders.json'), (json) => (json[sb.project] = 'TRUST_FOLDER'))
    const plugins = [namesake(sb.dir, 'alpha'), namesake(sb.dir, 'beta')]
    const installed = await loadout(sb, ['install', ...plugins, '--agent', 'gemini-cli', '--scope', 'user', '--yes', '--json'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const skills = await vendor('gemini-cli', sb, ['skills', 'list'])
    expect(skills.out).toMatch(/^access \[Enabled\]\n\s+Description: Grants access the alpha way\./m)
    expect(skills.out).toMatch(/^beta-access \[Enabled\]\n\s+Description: Grants access the beta way\./m)
    expect(complaints(skills.out), skills.out).toEqual([])
    const servers = await vendor('gemini-cli', sb, ['mcp', 'list'])
    for (const name of ['alpha', 'beta']) expect(servers.out).toMatch(new RegExp(`✓ ${name}-${name}-srv: node \\S+ \\(stdio\\) - Connected`))
    expect(complaints(servers.out), servers.out).toEqual([])
    for (const id of ['alpha@direct', 'beta@direct']) {
      const removed = await loadout(sb, ['uninstall', id, '--scope', 'user', '--yes', '--json'], {env})
      expect(removed.status, removed.stdout).toBe(0)
    }
    expect((await vendor('gemini-cli', sb, ['skills', 'list'])).out).not.toMatch(/access/)
    expect((await vendor('gemini-cli', sb, ['mcp', 'list'])).out).not.toMatch(/-srv/)
  })

  it('project scope, beside Codex: one copy in .agents/skills, which Gemini CLI reads too, and no conflict', async () => {
    const sb = sandbox()
    expect(await gitInit(sb.project)).toBe(0)
    const env = vendorEnv(sb)
    editJson(join(sb.home, '.gemini', 'trustedFolders.json'), (json) => (json[sb.project] = 'TRUST_FOLDER'))
    const installed = await loadout(sb, ['install', twoSkills(sb.dir), '--agent', 'codex,gemini-cli', '--scope', 'project', '--yes'], {env})
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(readdirSync(join(sb.project, '.agents', 'skills')).sort()).toEqual(['one', 'two'])
    expect(existsSync(join(sb.project, '.gemini', 'skills'))).toBe(false)
    const skills = await vendor('gemini-cli', sb, ['skills', 'list'])
    expect(complaints(skills.out), skills.out).toEqual([])
    expect(skills.out.match(/^(one|two) \[Enabled\]$/gm)).toEqual(['one [Enabled]', 'two [Enabled]'])
  })
})
