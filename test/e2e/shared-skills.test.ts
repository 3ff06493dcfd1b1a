/**
 * Agents whose skills folders coincide (Codex and the cross-agent target both write `~/.agents/skills`)
 * or overlap (Gemini CLI and Deep Agents Code also read `~/.agents/skills`; Cursor reads a project's
 * `.agents/skills`): for every such pair, in both scopes, installed together and one after the other,
 * and uninstalled either one first, the skill is written once, each agent's record names it, verify
 * passes, uninstalling one keeps it for the other, and the last uninstall leaves HOME and the project
 * as they were, byte for byte.
 *
 * The cases run in-process (test/e2e/in-process.ts: the commands' shared bodies and the core call
 * `uninstall` makes), the first one also through `bin/run.js`: what is tested is which folders hold
 * the skill and which records name it, not the process boundary.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {changes, loadout, sandboxes, snapshot} from './helpers.js'
import * as inProcess from './in-process.js'

const sandbox = sandboxes()

/** Each pair, with the skills folders (HOME- or project-relative) that either agent of it reads. */
const PAIRS: Array<{scope: 'user' | 'project'; agents: [string, string]; folders: string[]}> = [
  {scope: 'user', agents: ['codex', 'universal'], folders: ['.agents/skills']},
  {scope: 'user', agents: ['codex', 'gemini-cli'], folders: ['.agents/skills', '.gemini/skills']},
  {scope: 'user', agents: ['universal', 'gemini-cli'], folders: ['.agents/skills', '.gemini/skills']},
  {scope: 'user', agents: ['codex', 'deepagents'], folders: ['.agents/skills', '.deepagents/agent/skills']},
  {scope: 'user', agents: ['universal', 'deepagents'], folders: ['.agents/skills', '.deepagents/agent/skills']},
  {scope: 'project', agents: ['codex', 'universal'], folders: ['.agents/skills']},
  {scope: 'project', agents: ['codex', 'deepagents'], folders: ['.agents/skills', '.deepagents/skills']},
  {scope: 'project', agents: ['universal', 'deepagents'], folders: ['.agents/skills', '.deepagents/skills']},
  {scope: 'project', agents: ['codex', 'cursor'], folders: ['.agents/skills', '.cursor/skills']},
  {scope: 'project', agents: ['universal', 'cursor'], folders: ['.agents/skills', '.cursor/skills']},
]
const CASES = PAIRS.flatMap((pair) =>
  (['together', 'one after the other'] as const).flatMap((how) =>
    [0, 1].map((first) => ({...pair, how, first: pair.agents[first]!, last: pair.agents[1 - first]!})),
  ),
)

const SKILL = '---\nname: notes\ndescription: Keeps notes.\n---\n\nTake notes.\n'
const pluginIn = (sb: Sandbox): string => {
  const root = join(sb.dir, 'notes-kit')
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  mkdirSync(join(root, 'skills', 'notes'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'notes-kit', version: '1.0.0'}))
  writeFileSync(join(root, 'skills', 'notes', 'SKILL.md'), SKILL)
  return root
}
/** What loadout keeps for itself: its state, cache and installed copies, outside the agents' folders. */
const OWN = [
  '.config/loadout',
  '.cache/loadout',
  '.local/share/loadout',
  '.local',
  '.local/share',
  '.config',
  '.cache',
  '.loadout',
  'loadout.json',
  'loadout.lock',
]
const agentFiles = (root: string) => new Map([...snapshot(root)].filter(([k]) => !OWN.some((o) => k === o || k.startsWith(o + '/'))))

/** The four commands a case runs, through the CLI (each must exit 0) or in-process. */
interface Commands {
  install(root: string, agents: string): Promise<unknown>
  list(): Promise<unknown>
  verify(): Promise<unknown>
  uninstall(agent: string): Promise<unknown>
}

const throughCli = (sb: Sandbox, scope: 'user' | 'project'): Commands => {
  const run = async (args: string[]) => {
    const changing = args[0] === 'install' || args[0] === 'uninstall'
    const result = await loadout(sb, [...args, ...(changing ? ['--scope', scope, '--yes'] : []), '--json'])
    expect(result.status, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0)
    return result.json()
  }
  return {
    install: (root, agents) => run(['install', root, '--agent', agents]),
    list: () => run(['list']),
    verify: () => run(['verify']),
    uninstall: (agent) => run(['uninstall', 'notes-kit', '--agent', agent]),
  }
}

const inside = (sb: Sandbox, scope: 'user' | 'project'): Commands => {
  const env = inProcess.sandboxEnv(sb)
  return {
    install: (root, agents) => inProcess.install(env, [root], agents, scope),
    list: () => inProcess.list(env),
    verify: () => inProcess.verify(env),
    uninstall: (agent) => inProcess.uninstall(env, 'notes-kit', {agents: [agent], scope}),
  }
}

describe('agents that share a skills folder', () => {
  it.each(CASES.map((c, i) => ({...c, via: i === 0 ? 'the CLI' : 'in-process'})))(
    '$scope scope, $agents.0 + $agents.1, $how, $first uninstalled first ($via)',
    async ({scope, agents, folders, how, first, last, via}) => {
      const sb = sandbox({git: scope === 'project'})
      const root = pluginIn(sb)
      const base = scope === 'user' ? sb.home : sb.project
      const before = {home: agentFiles(sb.home), project: agentFiles(sb.project)}
      const run = via === 'the CLI' ? throughCli(sb, scope) : inside(sb, scope)
      if (how === 'together') await run.install(root, agents.join(','))
      else for (const agent of agents) await run.install(root, agent)

      // one copy among all the folders the two agents read
      const copies = folders.filter((f) => existsSync(join(base, f, 'notes', 'SKILL.md')))
      expect(copies).toHaveLength(1)
      expect(readFileSync(join(base, copies[0]!, 'notes', 'SKILL.md'), 'utf8')).toBe(SKILL)
      const listed = JSON.stringify(await run.list())
      expect(listed).toContain('notes-kit@direct')
      for (const agent of agents) expect(listed, agent).toContain(agent)
      await run.verify()

      await run.uninstall(first)
      expect(existsSync(join(base, copies[0]!, 'notes', 'SKILL.md')), `${last} still has the skill`).toBe(true)
      await run.verify()
      expect(JSON.stringify(await run.list())).toContain(last)

      await run.uninstall(last)
      expect(changes(before.home, agentFiles(sb.home))).toEqual([])
      expect(changes(before.project, agentFiles(sb.project))).toEqual([])
    },
  )
})
