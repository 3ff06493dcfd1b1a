/**
 * Two plugins that share part names (a skill `access`, a subagent `code-reviewer`) installed into
 * agents that keep loose parts in shared folders (codex, deepagents, universal): the second one's
 * parts take the plugin-qualified name `<plugin>-<part>` on their own, said in the output; list,
 * verify, disable/enable and uninstall work on both, and uninstalling both leaves HOME as it was.
 * Only a file the user made by hand still refuses.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {changes, jsonError, loadout, sandboxes, snapshot} from './helpers.js'

const sandbox = sandboxes()

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), {recursive: true})
  writeFileSync(path, text)
}

const plugin = (sb: Sandbox, name: string): string => {
  const root = join(sb.dir, name)
  write(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0'}))
  write(join(root, 'skills', 'access', 'SKILL.md'), `---\nname: access\ndescription: access of ${name}.\n---\n\nBody of ${name}.\n`)
  write(join(root, 'agents', 'code-reviewer.md'), `---\nname: code-reviewer\ndescription: reviews code for ${name}.\n---\n\nReview as ${name}.\n`)
  return root
}

const AGENTS = 'codex,deepagents,universal'
type Scope = 'user' | 'project'
const install = (sb: Sandbox, scope: Scope, roots: string[], extra: string[] = []) =>
  loadout(sb, ['install', ...roots, '--agent', AGENTS, '--scope', scope, '--yes', ...extra])

/** Where the parts land, written out by hand from TARGETS.md: codex reads subagents only in a project. */
const PLACES = {
  user: {skills: '.agents/skills', subagents: {codex: '.codex/agents', deepagents: '.deepagents/agent/agents'} as Record<string, string>},
  project: {skills: '.agents/skills', subagents: {codex: '.codex/agents', deepagents: '.deepagents/agents'} as Record<string, string>},
}
const rootOf = (sb: Sandbox, scope: Scope) => (scope === 'user' ? sb.home : sb.project)
const subagentFile = (agent: string, name: string) => (agent === 'codex' ? `${name}.toml` : join(name, 'AGENTS.md'))
const skillText = (sb: Sandbox, scope: Scope, name: string) => readFileSync(join(rootOf(sb, scope), PLACES[scope].skills, name, 'SKILL.md'), 'utf8')
const subagentText = (sb: Sandbox, scope: Scope, agent: string, name: string) =>
  readFileSync(join(rootOf(sb, scope), PLACES[scope].subagents[agent]!, subagentFile(agent, name)), 'utf8')

const expectBoth = (sb: Sandbox, scope: Scope) => {
  expect(skillText(sb, scope, 'access')).toContain('Body of alpha.')
  const renamed = skillText(sb, scope, 'beta-access')
  expect(renamed).toContain('Body of beta.')
  expect(renamed).toMatch(/^name: beta-access$/m)
  for (const agent of Object.keys(PLACES[scope].subagents)) {
    expect(subagentText(sb, scope, agent, 'code-reviewer')).toContain('Review as alpha.')
    const other = subagentText(sb, scope, agent, 'beta-code-reviewer')
    expect(other).toContain('Review as beta.')
    expect(other).toMatch(agent === 'codex' ? /^name = "beta-code-reviewer"$/m : /^name: beta-code-reviewer$/m)
  }
}

interface Renamed {
  component: string
  name: string
  as: string
  because: string
}
interface Installed {
  plugin: string
  plans: Array<{target: string; renamed?: Renamed[]}>
}

/** The renames an install reported, one line each. */
const renamesOf = (result: Installed) =>
  result.plans.flatMap((p) => (p.renamed ?? []).map((r) => `${p.target} ${r.component}: ${r.name} -> ${r.as} (${r.because})`)).sort()

const expectedRenames = (scope: Scope) =>
  [
    ...['codex', 'deepagents', 'universal'].map((t) => `${t} beta@direct/skill/access: access -> beta-access (alpha@direct)`),
    ...Object.keys(PLACES[scope].subagents).map((t) => `${t} beta@direct/subagent/code-reviewer: code-reviewer -> beta-code-reviewer (alpha@direct)`),
  ].sort()

/** loadout's own folders, and the project's declaration of what it installed */
const OWN = ['.cache/loadout', '.config/loadout', '.local/share/loadout', 'loadout.json', 'loadout.lock', '.loadout']
const OWN_PARENTS = new Set(['.cache', '.config', '.local', '.local/share'])
const outsideOwn = (paths: readonly string[]) => paths.filter((p) => !OWN_PARENTS.has(p) && !OWN.some((o) => p === o || p.startsWith(o + '/')))

const lifecycle = async (sb: Sandbox, scope: Scope, before: {home: Map<string, string>; project: Map<string, string>}) => {
  expectBoth(sb, scope)
  const listed = await loadout(sb, ['list', '--json'])
  expect(listed.status, listed.stderr).toBe(0)
  expect(listed.stdout).toContain('alpha@direct')
  expect(listed.stdout).toContain('beta@direct')
  const verified = await loadout(sb, ['verify', '--json'])
  expect(verified.status, verified.stdout).toBe(0)

  // disable and enable beta: its renamed parts go and come back under the same names, alpha's stay
  const disabled = await loadout(sb, ['disable', 'beta@direct', '--scope', scope, '--json'])
  expect(disabled.status, disabled.stdout).toBe(0)
  expect(existsSync(join(rootOf(sb, scope), PLACES[scope].skills, 'beta-access'))).toBe(false)
  expect(skillText(sb, scope, 'access')).toContain('Body of alpha.')
  const enabled = await loadout(sb, ['enable', 'beta@direct', '--scope', scope, '--yes', '--json'])
  expect(enabled.status, enabled.stdout).toBe(0)
  expectBoth(sb, scope)

  // uninstall alpha: beta's parts stay as they are
  const alphaGone = await loadout(sb, ['uninstall', 'alpha@direct', '--scope', scope, '--yes', '--json'])
  expect(alphaGone.status, alphaGone.stdout).toBe(0)
  expect(existsSync(join(rootOf(sb, scope), PLACES[scope].skills, 'access'))).toBe(false)
  expect(skillText(sb, scope, 'beta-access')).toContain('Body of beta.')
  for (const agent of Object.keys(PLACES[scope].subagents)) expect(subagentText(sb, scope, agent, 'beta-code-reviewer')).toContain('Review as beta.')
  const still = await loadout(sb, ['verify', '--json'])
  expect(still.status, still.stdout).toBe(0)

  const betaGone = await loadout(sb, ['uninstall', 'beta@direct', '--scope', scope, '--yes', '--json'])
  expect(betaGone.status, betaGone.stdout).toBe(0)
  expect(outsideOwn(changes(before.home, snapshot(sb.home)))).toEqual([])
  expect(outsideOwn(changes(before.project, snapshot(sb.project)))).toEqual([])
}

const snapshots = (sb: Sandbox) => ({home: snapshot(sb.home), project: snapshot(sb.project)})

describe.each(['user', 'project'] as const)('two plugins sharing part names, into agents with loose parts (%s scope)', (scope) => {
  it('one after the other: the second takes <plugin>-<part>, said in the output and --json', async () => {
    const sb = sandbox({git: true})
    const before = snapshots(sb)
    const alpha = await install(sb, scope, [plugin(sb, 'alpha')])
    expect(alpha.status, alpha.stdout).toBe(0)
    const beta = await install(sb, scope, [plugin(sb, 'beta')], ['--json'])
    expect(beta.status, beta.stdout).toBe(0)
    expect(renamesOf(beta.json<Installed>())).toEqual(expectedRenames(scope))

    const human = await install(sb, scope, [join(sb.dir, 'beta')], ['--force'])
    expect(human.status, human.stderr).toBe(0)
    expect(human.stdout).toContain('skill "access" is installed as "beta-access": "access" belongs to alpha@direct')
    await lifecycle(sb, scope, before)
  })

  it('in one command: the second of the batch takes <plugin>-<part>', async () => {
    const sb = sandbox({git: true})
    const before = snapshots(sb)
    const both = await install(sb, scope, [plugin(sb, 'alpha'), plugin(sb, 'beta')], ['--json'])
    expect(both.status, both.stdout).toBe(0)
    const results = both.json<{results: Installed[]}>().results
    expect(renamesOf(results.find((r) => r.plugin === 'beta@direct')!)).toEqual(expectedRenames(scope))
    await lifecycle(sb, scope, before)
  })
})

describe('a part the user made by hand', () => {
  it('still refuses (exit 5), naming the rule, and the file is left as it was', async () => {
    const sb = sandbox()
    const mine = join(sb.home, '.agents', 'skills', 'access', 'SKILL.md')
    write(mine, '---\nname: access\ndescription: mine.\n---\n\nMine.\n')
    const refused = await install(sb, 'user', [plugin(sb, 'alpha')], ['--json'])
    expect(refused.status, refused.stdout).toBe(5)
    const error = jsonError(refused)
    expect(error.code).toBe('skill-taken')
    expect(error.message).toContain('belongs to the user')
    expect(readFileSync(mine, 'utf8')).toContain('Mine.')
  })
})

/**
 * Claude Code, with no flag, takes each plugin as its own (its parts namespaced, nothing in its loose
 * folders); --loose asks for loose parts, and that form is kept by update and by a teammate's install
 * --frozen in a clone; --native on a loose install switches it back.
 */
describe('the form Claude Code gets, and how it is kept', () => {
  const claudeSkills = (root: string) => join(root, '.claude', 'skills')
  const form = (sb: Sandbox) =>
    (JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8')) as {installs: Array<{target: string; form?: string}>}).installs
      .filter((r) => r.target === 'claude-code')
      .map((r) => r.form)

  it('native by default; --loose is recorded in the lock and kept by update; --native switches back', async () => {
    const sb = sandbox({git: true})
    const alpha = plugin(sb, 'alpha')
    const native = await loadout(sb, ['install', alpha, '--agent', 'claude-code', '--scope', 'project', '--yes', '--json'])
    expect(native.status, native.stdout).toBe(0)
    expect(form(sb)).toEqual(['native'])
    expect(existsSync(claudeSkills(sb.project))).toBe(false)
    // a project's marketplace name has a suffix of its own (native-name.ts)
    const enabled = JSON.parse(readFileSync(join(sb.project, '.claude', 'settings.json'), 'utf8')).enabledPlugins
    expect(Object.keys(enabled)).toEqual([expect.stringMatching(/^alpha@loadout-direct-alpha-[0-9a-f]{8}$/)])

    const loose = await loadout(sb, ['install', alpha, '--agent', 'claude-code', '--scope', 'project', '--yes', '--loose', '--json'])
    expect(loose.status, loose.stdout).toBe(0)
    expect(form(sb)).toEqual(['loose'])
    expect(readFileSync(join(claudeSkills(sb.project), 'access', 'SKILL.md'), 'utf8')).toContain('Body of alpha.')
    expect(existsSync(join(sb.project, '.claude', 'settings.json'))).toBe(false)

    // a content change: update keeps the loose form
    write(join(alpha, 'skills', 'access', 'SKILL.md'), '---\nname: access\ndescription: access of alpha.\n---\n\nBody of alpha, v2.\n')
    const updated = await loadout(sb, ['update', '--scope', 'project', '--yes', '--json'])
    expect(updated.status, updated.stdout).toBe(0)
    expect(form(sb)).toEqual(['loose'])
    expect(readFileSync(join(claudeSkills(sb.project), 'access', 'SKILL.md'), 'utf8')).toContain('Body of alpha, v2.')

    const refused = await loadout(sb, ['install', alpha, '--loose', '--native', '--agent', 'claude-code', '--json'])
    expect(refused.status).toBe(2)
    expect(jsonError(refused).code).toBe('flags-exclusive')

    const back = await loadout(sb, ['install', alpha, '--agent', 'claude-code', '--scope', 'project', '--yes', '--native', '--json'])
    expect(back.status, back.stdout).toBe(0)
    expect(form(sb)).toEqual(['native'])
    expect(existsSync(join(claudeSkills(sb.project), 'access'))).toBe(false)
  })

  it('a teammate’s install --frozen in a clone at another path keeps --loose, and so does an install from loadout.json alone', async () => {
    const sb = sandbox({git: true})
    const root = join(sb.project, 'vendor', 'alpha')
    write(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'alpha', version: '1.0.0'}))
    write(join(root, 'skills', 'access', 'SKILL.md'), '---\nname: access\ndescription: access of alpha.\n---\n\nBody of alpha.\n')
    const installed = await loadout(sb, ['install', './vendor/alpha', '--agent', 'claude-code', '--scope', 'project', '--yes', '--loose', '--json'])
    expect(installed.status, installed.stdout).toBe(0)
    const clone = join(sb.dir, 'elsewhere', 'clone')
    for (const rel of ['loadout.json', 'loadout.lock', 'vendor/alpha/.claude-plugin/plugin.json', 'vendor/alpha/skills/access/SKILL.md'])
      write(join(clone, rel), readFileSync(join(sb.project, rel), 'utf8'))
    const frozen = await loadout(sb, ['install', '--frozen', '--yes', '--json'], {cwd: clone})
    expect(frozen.status, frozen.stdout + frozen.stderr).toBe(0)
    expect(readFileSync(join(claudeSkills(clone), 'access', 'SKILL.md'), 'utf8')).toContain('Body of alpha.')
    expect(existsSync(join(clone, '.claude', 'settings.json'))).toBe(false)
    // loadout.json says so too: a teammate whose lock lacks the plugin still gets loose parts
    expect(JSON.parse(readFileSync(join(sb.project, 'loadout.json'), 'utf8')).plugins['alpha@direct']).toMatchObject({form: 'loose'})
    const fresh = join(sb.dir, 'elsewhere', 'fresh')
    for (const rel of ['loadout.json', 'vendor/alpha/.claude-plugin/plugin.json', 'vendor/alpha/skills/access/SKILL.md'])
      write(join(fresh, rel), readFileSync(join(sb.project, rel), 'utf8'))
    const declared = await loadout(sb, ['install', '--agent', 'claude-code', '--yes', '--json'], {cwd: fresh})
    expect(declared.status, declared.stdout + declared.stderr).toBe(0)
    expect(readFileSync(join(claudeSkills(fresh), 'access', 'SKILL.md'), 'utf8')).toContain('Body of alpha.')
  })

  it('consent shows what Claude Code runs from its own plugin: monitors and bin/ beside hooks, MCP and language servers', async () => {
    const sb = sandbox()
    const root = plugin(sb, 'watch')
    write(join(root, 'monitors', 'monitors.json'), JSON.stringify([{name: 'errors', command: 'tail -F log/dev.log', description: 'errors'}]))
    write(join(root, 'bin', 'watch-tool'), '#!/bin/sh\necho hi\n')
    const planned = await loadout(sb, ['install', root, '--agent', 'claude-code', '--scope', 'user', '--dry-run', '--json'])
    expect(planned.status, planned.stdout).toBe(0)
    expect(planned.json<{consent: {items: unknown[]; approvedBy: string}}>().consent).toMatchObject({
      approvedBy: 'pending',
      items: [
        {kind: 'monitor', component: 'watch@direct/monitor/errors', monitor: {command: 'tail -F log/dev.log'}},
        {kind: 'bin', component: 'watch@direct/bin/watch-tool', file: 'bin/watch-tool'},
      ],
    })
    const refused = await loadout(sb, ['install', root, '--agent', 'claude-code', '--scope', 'user'])
    expect(refused.status).toBe(8)
    expect(refused.stderr + refused.stdout).toContain('needs your approval')
  })
})
