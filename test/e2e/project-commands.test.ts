/**
 * A slash command installed in project scope is recorded in loadout.lock under the agent's project
 * commands folder; every later command in that project reads the lock back and must accept it. The
 * matrix is every agent whose registry file has a project-scope commands folder (the five below at
 * least), each installed on its own and all of them together, then list, verify, doctor, mcp list,
 * a second install and uninstall in the same project.
 */
import {existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {ROOT} from '../support/cli.js'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

/** Agents that keep slash commands in a project folder, read from the registry the CLI ships. */
const projectCommandAgents = readdirSync(join(ROOT, 'registry', 'agents'))
  .map((f) => JSON.parse(readFileSync(join(ROOT, 'registry', 'agents', f), 'utf8')) as {id: string; commands?: {locations?: Array<{scope: string}>}})
  .filter((a) => a.commands?.locations?.some((l) => l.scope === 'project'))
  .map((a) => a.id)
  .sort()

const FILES: Record<string, string> = {
  '.claude-plugin/marketplace.json': JSON.stringify({
    name: 'cmds',
    plugins: [
      {name: 'slash', source: './plugins/slash', version: '1.0.0'},
      {name: 'other', source: './plugins/other', version: '1.0.0'},
    ],
  }),
  'plugins/slash/.claude-plugin/plugin.json': JSON.stringify({name: 'slash', version: '1.0.0'}),
  'plugins/slash/commands/review.md': '---\ndescription: Review the diff\n---\n\nReview $ARGUMENTS.\n',
  'plugins/slash/skills/tidy/SKILL.md': '---\nname: tidy\ndescription: Use when tidying.\n---\n\nTidy.\n',
  'plugins/other/.claude-plugin/plugin.json': JSON.stringify({name: 'other', version: '1.0.0'}),
  'plugins/other/skills/other-skill/SKILL.md': '---\nname: other-skill\ndescription: Another skill.\n---\n\nOther.\n',
}

let market: string
beforeAll(() => {
  const sb = sandbox()
  market = join(sb.dir, 'market')
  for (const [rel, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(market, rel)), {recursive: true})
    writeFileSync(join(market, rel), text)
  }
})

describe('a project-scope slash command leaves the project usable', () => {
  it('the matrix covers the agents the trial named', () => {
    expect(projectCommandAgents).toEqual(expect.arrayContaining(['claude-code', 'cursor', 'gemini-cli', 'github-copilot', 'opencode']))
  })

  it.each([...projectCommandAgents.map((a) => [a]), [projectCommandAgents.join(',')]])(
    '--agent %s: list, verify, doctor, mcp list, install and uninstall all read the lock',
    async (agents) => {
      const sb = sandbox({git: true})
      expect((await loadout(sb, ['marketplace', 'add', market, '--scope', 'user', '--json'])).status).toBe(0)
      const installed = await loadout(sb, ['install', '--loose', 'slash@cmds', '--agent', agents, '--scope', 'project', '--yes', '--json'])
      expect(installed.status, installed.stdout + installed.stderr).toBe(0)
      const lock = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8'))
      expect(JSON.stringify(lock)).toMatch(/commands|prompts|command\//)

      for (const args of [['list', '--scope', 'project'], ['verify', '--scope', 'project'], ['doctor'], ['mcp', 'list', '--scope', 'project']]) {
        const result = await loadout(sb, [...args, '--json'])
        expect(result.stderr, args.join(' ')).not.toMatch(/lock-unsafe|refusing to use it/)
        expect(result.status, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0)
      }
      const second = await loadout(sb, ['install', '--loose', 'other@cmds', '--agent', agents, '--scope', 'project', '--yes', '--json'])
      expect(second.status, second.stdout + second.stderr).toBe(0)
      for (const plugin of ['slash@cmds', 'other@cmds']) {
        const removed = await loadout(sb, ['uninstall', plugin, '--scope', 'project', '--yes', '--json'])
        expect(removed.status, removed.stdout + removed.stderr).toBe(0)
      }
      for (const folder of ['.claude/commands', '.cursor/commands', '.gemini/commands', '.github/prompts', '.opencode/commands']) {
        expect(existsSync(join(sb.project, folder)), folder).toBe(false)
      }
    },
  )
})

describe('OpenCode reads commands/ and the older command/: a name in either is taken', () => {
  it('the user’s own .opencode/command/review.md is refused as one in .opencode/commands would be; --prefix writes slash-review', async () => {
    const sb = sandbox({git: true})
    expect((await loadout(sb, ['marketplace', 'add', market, '--scope', 'user', '--json'])).status).toBe(0)
    const mine = join(sb.project, '.opencode', 'command', 'review.md')
    mkdirSync(dirname(mine), {recursive: true})
    writeFileSync(mine, '---\ndescription: my own review\n---\n\nMine.\n')
    const refused = await loadout(sb, ['install', 'slash@cmds', '--agent', 'opencode', '--scope', 'project', '--yes', '--json'])
    expect(refused.status, refused.stdout).toBe(5)
    expect(JSON.parse(refused.stdout).error).toMatchObject({code: 'command-taken'})
    expect(existsSync(join(sb.project, '.opencode', 'commands'))).toBe(false)
    const prefixed = await loadout(sb, ['install', 'slash@cmds', '--agent', 'opencode', '--scope', 'project', '--prefix', '--yes', '--json'])
    expect(prefixed.status, prefixed.stdout + prefixed.stderr).toBe(0)
    expect(readdirSync(join(sb.project, '.opencode', 'commands'))).toEqual(['slash-review.md'])
    expect(readFileSync(mine, 'utf8')).toContain('Mine.')
  })
})
