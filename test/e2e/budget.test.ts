/**
 * `loadout budget` (issue 28): Claude Code's start-up descriptions in a sandbox HOME, hand-made ones
 * (a skill, a command, a subagent) and installed ones. The total moves by exactly the estimate
 * (ceil((name + description) / 4)) of each skill installed or turned off; an install that leaves the
 * agent over its budget (lowered through Claude Code's own SLASH_COMMAND_TOOL_CHAR_BUDGET) warns, on
 * stderr and in --json; `skills info` shows a skill's share.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()
let sb: Sandbox

const DESCRIPTIONS = {
  alpha: 'Use when counting the alpha things in a budget test.',
  beta: 'Use when counting the beta things, which take a somewhat longer description to say.',
  huge: `Use when the description is long. ${'Words that fill the listing. '.repeat(30)}`,
}
const estimate = (name: keyof typeof DESCRIPTIONS) => Math.ceil((name.length + DESCRIPTIONS[name].length) / 4)

const writePlugin = (name: string, skills: Array<keyof typeof DESCRIPTIONS>): string => {
  const root = join(sb.dir, name)
  mkdirSync(join(root, '.claude-plugin'), {recursive: true})
  writeFileSync(join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name, version: '1.0.0'}))
  for (const skill of skills) {
    mkdirSync(join(root, 'skills', skill), {recursive: true})
    writeFileSync(join(root, 'skills', skill, 'SKILL.md'), `---\nname: ${skill}\ndescription: ${DESCRIPTIONS[skill]}\n---\n\nBody.\n`)
  }
  return root
}

interface Row {
  agent: string
  scope: string
  tokens: number
  budget: number | null
  budgetedTokens: number
  budgetChars: number | null
  budgetSource: string | null
  over: boolean
  items: Array<{kind: string; name: string; owner: string; tokens: number; chars: number; counted: boolean; dropped: boolean}>
}

const claude = async (env: NodeJS.ProcessEnv = {}): Promise<Row> => {
  const result = await loadout(sb, ['budget', '--agent', 'claude-code', '--scope', 'user', '--json'], {env})
  expect(result.status, result.stderr).toBe(0)
  const rows = result.json().agents as Row[]
  expect(rows.map((r) => `${r.agent} ${r.scope}`)).toEqual(['claude-code user'])
  return rows[0]!
}

beforeAll(() => {
  sb = sandbox()
  const config = join(sb.home, '.claude')
  mkdirSync(join(config, 'skills', 'mine'), {recursive: true})
  writeFileSync(join(config, 'skills', 'mine', 'SKILL.md'), '---\nname: mine\ndescription: My own hand-made skill.\n---\n\nBody.\n')
  mkdirSync(join(config, 'commands'))
  writeFileSync(join(config, 'commands', 'deploy.md'), '---\ndescription: Deploy the current branch to staging.\n---\n\nDeploy.\n')
  mkdirSync(join(config, 'agents'))
  writeFileSync(join(config, 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews diffs for mistakes.\n---\n\nReview.\n')
})

describe('loadout budget', () => {
  let before: Row
  it('lists the hand-made skill, command and subagent, with the documented budget and its source', async () => {
    before = await claude()
    expect(before.items.map((i) => `${i.kind} ${i.name} ${i.owner}`)).toEqual(['skill mine user', 'command deploy user', 'subagent reviewer user'])
    const skill = before.items[0]!
    expect(skill.tokens).toBe(Math.ceil(('mine'.length + 'My own hand-made skill.'.length) / 4))
    expect(before).toMatchObject({budgetChars: 8000, budget: 2000, budgetSource: 'https://code.claude.com/docs/en/skills', over: false})
    // Claude Code's budget covers skills and commands, not subagents
    expect(before.items.map((i) => i.counted)).toEqual([true, true, false])
    expect(before.tokens).toBe(before.items.reduce((n, i) => n + i.tokens, 0))
    const text = await loadout(sb, ['budget', '--agent', 'claude-code', '--scope', 'user'])
    expect(text.stdout).toMatch(/claude-code user: \d+ of 2000 tokens/)
  })

  it('moves by exactly the estimate of each skill installed, and of one turned off', async () => {
    const installed = await loadout(sb, ['install', '--loose', writePlugin('kit', ['alpha', 'beta']), '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    expect(installed.json().overBudget).toBeUndefined()
    const after = await claude()
    expect(after.tokens - before.tokens).toBe(estimate('alpha') + estimate('beta'))
    expect(after.budgetedTokens - before.budgetedTokens).toBe(estimate('alpha') + estimate('beta'))
    expect(after.items.filter((i) => i.owner === 'kit@direct').map((i) => i.name)).toEqual(['alpha', 'beta'])
    const off = await loadout(sb, ['disable', 'kit@direct', '--skill', 'beta', '--scope', 'user'])
    expect(off.status, off.stderr).toBe(0)
    expect((await claude()).tokens).toBe(after.tokens - estimate('beta'))
  })

  it("skills info shows a skill's share of each agent's budget", async () => {
    const info = await loadout(sb, ['skills', 'info', 'alpha', '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(info.status, info.stderr).toBe(0)
    expect(info.json().budget).toEqual([
      {
        agent: 'claude-code',
        scope: 'user',
        tokens: estimate('alpha'),
        budget: 2000,
        percent: Math.round((estimate('alpha') / 2000) * 1000) / 10,
        dropped: false,
      },
    ])
  })

  it('an install that leaves the agent over its budget warns, naming what would be dropped', async () => {
    const now = await claude()
    const chars = now.items.filter((i) => i.counted).reduce((n, i) => n + i.chars, 0)
    // the budget lowered through Claude Code's own variable: what is there fits, the new skill does not
    const env = {SLASH_COMMAND_TOOL_CHAR_BUDGET: String(chars + 10)}
    expect((await claude(env)).over).toBe(false)
    const result = await loadout(sb, ['install', '--loose', writePlugin('big', ['huge']), '--agent', 'claude-code', '--scope', 'user'], {env})
    expect(result.status, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/warning: claude-code \(user\) now lists \d+ tokens of descriptions at start-up, over its budget of \d+: 3 would be dropped/)
    const row = await claude(env)
    expect(row).toMatchObject({over: true, budgetChars: chars + 10})
    // in the order Claude Code reads them (skills by name, then commands), the first that does not fit and all after it
    expect(row.items.filter((i) => i.counted).map((i) => `${i.name}${i.dropped ? ' dropped' : ''}`)).toEqual([
      'alpha',
      'huge dropped',
      'mine dropped',
      'deploy dropped',
    ])
    // the same under --json, in the result
    const again = await loadout(sb, ['install', '--loose', join(sb.dir, 'big'), '--agent', 'claude-code', '--scope', 'user', '--force', '--json'], {env})
    expect(again.status, again.stderr).toBe(0)
    expect(again.json().overBudget).toEqual([
      {agent: 'claude-code', scope: 'user', tokens: row.budgetedTokens, budget: Math.ceil((chars + 10) / 4), dropped: ['huge', 'mine', 'deploy']},
    ])
  })
})

describe('loadout budget, a plugin Claude Code loads as its own', () => {
  it('counts its parts as Claude Code names them, <plugin>:<part>, from the installed copy', async () => {
    sb = sandbox()
    const installed = await loadout(sb, ['install', writePlugin('nat', ['alpha', 'beta']), '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    const row = await claude()
    expect(row.items.map((i) => `${i.kind} ${i.name} ${i.owner} ${i.counted}`)).toEqual(['skill nat:alpha nat@direct true', 'skill nat:beta nat@direct true'])
    expect(row.items[0]!.tokens).toBe(Math.ceil(('nat:alpha'.length + DESCRIPTIONS.alpha.length) / 4))
    expect(row.tokens).toBe(row.items.reduce((n, i) => n + i.tokens, 0))
  })

  it('names a plugin that names itself nowhere as the catalog loadout wrote for Claude Code does, not by its copy folder', async () => {
    sb = sandbox()
    const root = join(sb.dir, 'bare-kit')
    mkdirSync(join(root, 'skills', 'alpha'), {recursive: true})
    writeFileSync(join(root, 'skills', 'alpha', 'SKILL.md'), `---\nname: alpha\ndescription: ${DESCRIPTIONS.alpha}\n---\n\nBody.\n`)
    const installed = await loadout(sb, ['install', root, '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    const copies = join(sb.home, '.local', 'share', 'loadout', 'plugins', 'direct', 'bare-kit')
    const catalog = JSON.parse(readFileSync(join(copies, '.claude-plugin', 'marketplace.json'), 'utf8')) as {plugins: Array<{name: string}>}
    expect(catalog.plugins.map((p) => p.name)).toEqual(['bare-kit'])
    expect((await claude()).items.map((i) => i.name)).toEqual(['bare-kit:alpha'])
  })

  it('counts the copy an install just made as a later budget reads it from the copy', async () => {
    sb = sandbox()
    const root = writePlugin('nat', ['alpha', 'beta', 'huge'])
    // a skill no agent loads: install leaves it out of what it writes, but it is in the copy
    mkdirSync(join(root, 'skills', 'bare'), {recursive: true})
    writeFileSync(join(root, 'skills', 'bare', 'SKILL.md'), '---\nname: bare\n---\n\nNo description.\n')
    mkdirSync(join(root, 'commands'))
    writeFileSync(join(root, 'commands', 'ship.md'), '---\ndescription: Ship it.\n---\n\nShip.\n')
    const env = {SLASH_COMMAND_TOOL_CHAR_BUDGET: '120'}
    const installed = await loadout(sb, ['install', root, '--agent', 'claude-code', '--scope', 'user', '--json'], {env})
    expect(installed.status, installed.stderr).toBe(0)
    // the install's own count, of the copy it made, against the copy read afterwards
    const row = await claude(env)
    expect(row.items.map((i) => i.name)).toEqual(['nat:alpha', 'nat:bare', 'nat:beta', 'nat:huge', 'nat:ship'])
    expect(installed.json().overBudget).toEqual([
      {
        agent: 'claude-code',
        scope: 'user',
        tokens: row.budgetedTokens,
        budget: 30,
        dropped: row.items.filter((i) => i.dropped).map((i) => i.name),
      },
    ])
  })

  it('remembers what an installed copy offers once its file list has settled, and counts the same from the memo', async () => {
    sb = sandbox()
    const installed = await loadout(sb, ['install', writePlugin('nat', ['alpha', 'beta', 'huge']), '--agent', 'claude-code', '--scope', 'user', '--json'])
    expect(installed.status, installed.stderr).toBe(0)
    const memo = join(sb.home, '.cache', 'loadout', 'stat-memo', 'native-parts')
    // just written: read from the copy, not remembered (kernel/fs/stat-memo.ts remembers a file 3 s old)
    const fresh = await claude()
    expect(existsSync(memo)).toBe(false)
    await sleep(3200)
    expect(await claude()).toEqual(fresh)
    expect(readFileSync(memo, 'utf8')).toContain('"name":"alpha"')
    // from the memo: the same rows, even after an edit by hand inside the copy (the budget counts what
    // loadout installed; verify names the edit)
    const copies = join(sb.home, '.local', 'share', 'loadout', 'plugins', 'direct', 'nat')
    // the copy is the one revision folder there (beside the catalog Claude Code reads it through)
    const copy = join(
      copies,
      readdirSync(copies).find((name) => !name.startsWith('.'))!,
    )
    const skill = join(copy, 'skills', 'huge', 'SKILL.md')
    const original = readFileSync(skill, 'utf8')
    writeFileSync(skill, original.replace(DESCRIPTIONS.huge, 'Short now.'))
    expect(await claude()).toEqual(fresh)
    const verify = await loadout(sb, ['verify', '--json'])
    expect(verify.status).toBe(7)
    expect(verify.json().error.details.records[0].changed).toEqual([`${copy}/skills/huge/SKILL.md`])
    // a damaged memo is passed over, as is a missing one: the copy is read again, the edit with it
    writeFileSync(memo, readFileSync(memo, 'utf8').replace('"parts"', '"prats"'))
    const reread = await claude()
    expect(reread.items.map((i) => i.name)).toEqual(['nat:alpha', 'nat:beta', 'nat:huge'])
    expect(reread.tokens).toBeLessThan(fresh.tokens)
    rmSync(memo)
    expect(await claude()).toEqual(reread)
    // a part turned off is left out (the copy put back first: disable wants it as installed)
    writeFileSync(skill, original)
    const off = await loadout(sb, ['disable', 'nat@direct', '--skill', 'beta', '--scope', 'user'])
    expect(off.status, off.stderr).toBe(0)
    expect((await claude()).items.map((i) => i.name)).toEqual(['nat:alpha', 'nat:huge'])
  })
})
