import {existsSync, mkdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, it} from 'vitest'
import type {SkillsListResult} from '../../src/commands/skills/list.js'
import type {CreatedSkill} from '../../src/core/ops/skills/create.js'
import type {DeletedSkill} from '../../src/core/ops/skills/delete.js'
import type {SkillInfo} from '../../src/core/ops/skills/info.js'
import type {SkillsValidation} from '../../src/core/ops/skills/validate-paths.js'
import {AGENTS, changes, changesOutside, jsonError, loadout, sandboxes, skillsFolder, snapshot, writeSkill} from './helpers.js'

const sandbox = sandboxes()
const SCOPES = ['user', 'project'] as const

describe.concurrent('create, validate, list, info and delete for each agent in each scope', () => {
  for (const agent of AGENTS) {
    for (const scope of SCOPES) {
      it(`${agent}, ${scope} scope`, async ({expect}) => {
        const sb = sandbox({git: true})
        const name = `e2e-${agent}`
        const folder = skillsFolder(sb, agent, scope)
        const skillDir = join(folder, name)
        const description = `Checks ${agent} skills end to end. Use in tests only.`
        const before = snapshot(sb.dir)

        const create = await loadout(sb, ['skills', 'create', name, '--agent', agent, '--scope', scope, '--description', description, '--json'])
        expect(create.status, create.stdout + create.stderr).toBe(0)
        const created = create.json<CreatedSkill>()
        expect(created).toMatchObject({name, scope, dryRun: false, skipped: []})
        expect(created.destinations).toEqual([{agents: [agent], path: skillDir, replaced: false}])
        expect(readFileSync(join(skillDir, 'SKILL.md'), 'utf8')).toMatch(new RegExp(`^---\\nname: ${name}\\ndescription: "${description}"\\n---\\n`))
        const afterCreate = snapshot(sb.dir)
        expect(changesOutside(changes(before, afterCreate), [relative(sb.dir, skillDir)])).toEqual([])

        const [validate, list, info] = await Promise.all([
          loadout(sb, ['skills', 'validate', skillDir, '--json']),
          loadout(sb, ['skills', 'list', '--agent', agent, '--scope', scope, '--json']),
          loadout(sb, ['skills', 'info', name, '--agent', agent, '--scope', scope, '--json']),
        ])
        expect(validate.status, validate.stdout).toBe(0)
        expect(validate.json<SkillsValidation>()).toMatchObject({
          valid: true,
          errors: 0,
          warnings: 0,
          skills: [{path: skillDir, name, valid: true, problems: []}],
        })

        expect(list.status, list.stderr).toBe(0)
        const listed = list.json<SkillsListResult>()
        expect(listed.agents).toEqual([agent])
        expect(listed.scopes).toEqual([scope])
        expect(listed.skills).toEqual([{agent, name, scope, folder, path: skillDir, description, status: 'active', valid: true, problems: [], owner: 'user'}])

        expect(info.status, info.stderr).toBe(0)
        const shown = info.json<SkillInfo>()
        expect(shown).toMatchObject({name, description, path: skillDir, frontmatter: {name, description}, problems: []})
        expect(shown.files.map((f) => f.path)).toEqual(['SKILL.md'])
        expect(shown.locations.map((l) => [l.agent, l.scope, l.status, l.path])).toEqual([[agent, scope, 'active', skillDir]])

        const del = await loadout(sb, ['skills', 'delete', name, '--agent', agent, '--scope', scope, '--yes', '--json'])
        expect(del.status, del.stdout).toBe(0)
        expect(del.json<DeletedSkill>()).toMatchObject({name, scope, dryRun: false, removals: [{agents: [agent], path: skillDir}]})
        expect(existsSync(skillDir)).toBe(false)
        expect(existsSync(folder)).toBe(true)
        // only the skill folder went: nothing else changed, and no staging leftovers remain
        expect(changes(afterCreate, snapshot(sb.dir)).filter((p) => !p.startsWith(relative(sb.dir, skillDir)))).toEqual([])
      })
    }
  }
})

describe.concurrent('default scope, agent detection and environment overrides', () => {
  it('writes to the project inside a git work tree, and to the user folders elsewhere', async ({expect}) => {
    const git = sandbox({git: true})
    const plain = sandbox()
    const [inGit, outside] = await Promise.all([
      loadout(git, ['skills', 'create', 'scoped', '--agent', 'claude-code', '--json']),
      loadout(plain, ['skills', 'create', 'scoped', '--agent', 'claude-code', '--json']),
    ])
    expect(inGit.status, inGit.stdout).toBe(0)
    expect(inGit.json<CreatedSkill>()).toMatchObject({scope: 'project', destinations: [{path: join(git.project, '.claude/skills/scoped')}]})
    expect(existsSync(join(git.project, '.claude/skills/scoped/SKILL.md'))).toBe(true)
    expect(existsSync(join(git.home, '.claude'))).toBe(false)

    expect(outside.status, outside.stdout).toBe(0)
    expect(outside.json<CreatedSkill>()).toMatchObject({scope: 'user', destinations: [{path: join(plain.home, '.claude/skills/scoped')}]})
    expect(existsSync(join(plain.home, '.claude/skills/scoped/SKILL.md'))).toBe(true)
    expect(existsSync(join(plain.project, '.claude'))).toBe(false)
  })

  it('finds the git work tree from a subfolder of the project', async ({expect}) => {
    const sb = sandbox({git: true})
    const sub = join(sb.project, 'src', 'deep')
    mkdirSync(sub, {recursive: true})
    const result = await loadout(sb, ['skills', 'create', 'from-sub', '--agent', 'codex', '--json'], {cwd: sub})
    expect(result.status, result.stdout).toBe(0)
    expect(result.json<CreatedSkill>().destinations[0]!.path).toBe(join(sb.project, '.agents/skills/from-sub'))
  })

  it('without --agent and with no agent detected, fails naming --agent and writes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([loadout(sb, ['skills', 'create', 'lonely', '--json']), loadout(sb, ['skills', 'create', 'lonely'])])
    expect(json.status).toBe(2)
    const error = jsonError(json)
    expect(error.code).toBe('no-agent-detected')
    expect(error.suggestions.join(' ')).toContain('--agent')
    expect(text.status).toBe(2)
    expect(text.stderr).toMatch(/^error: no agent was detected/)
    expect(text.stderr).toContain('--agent')
    expect(text.stderr).not.toMatch(/\n\s+at /)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('without --agent, uses the agents detected in HOME (and only those)', async ({expect}) => {
    const one = sandbox({git: true})
    mkdirSync(join(one.home, '.claude'))
    const two = sandbox({git: true})
    mkdirSync(join(two.home, '.claude'))
    mkdirSync(join(two.home, '.config', 'cst-agent'), {recursive: true})
    const [first, second] = await Promise.all([
      loadout(one, ['skills', 'create', 'detected', '--json']),
      loadout(two, ['skills', 'create', 'detected', '--scope', 'user', '--json']),
    ])
    expect(first.status, first.stdout).toBe(0)
    expect(first.json<CreatedSkill>().destinations).toEqual([{agents: ['claude-code'], path: join(one.project, '.claude/skills/detected'), replaced: false}])
    expect(existsSync(join(one.project, '.agents'))).toBe(false)

    expect(second.status, second.stdout).toBe(0)
    expect(second.json<CreatedSkill>().destinations).toEqual([
      {agents: ['claude-code'], path: join(two.home, '.claude/skills/detected'), replaced: false},
      {agents: ['cst-agent'], path: join(two.home, '.config/cst-agent/skills/detected'), replaced: false},
    ])
  })

  it('puts claude-code user skills in $CLAUDE_CONFIG_DIR/skills when it is set', async ({expect}) => {
    const sb = sandbox({git: true})
    const config = join(sb.dir, 'claude-config')
    const env = {CLAUDE_CONFIG_DIR: config}
    const create = await loadout(sb, ['skills', 'create', 'moved', '--agent', 'claude-code', '--scope', 'user', '--json'], {env})
    expect(create.status, create.stdout).toBe(0)
    expect(existsSync(join(config, 'skills/moved/SKILL.md'))).toBe(true)
    expect(existsSync(join(sb.home, '.claude'))).toBe(false)
    // detection follows the variable too: no --agent needed
    const list = await loadout(sb, ['skills', 'list', '--scope', 'user', '--json'], {env})
    expect(list.json<SkillsListResult>()).toMatchObject({agents: ['claude-code'], skills: [{name: 'moved', path: join(config, 'skills/moved')}]})
  })

  it('puts cst-agent user skills in $XDG_CONFIG_HOME/cst-agent/skills when it is set', async ({expect}) => {
    const sb = sandbox({git: true})
    const xdg = join(sb.dir, 'xdg')
    const create = await loadout(sb, ['skills', 'create', 'xdg-skill', '--agent', 'cst-agent', '--scope', 'user', '--json'], {env: {XDG_CONFIG_HOME: xdg}})
    expect(create.status, create.stdout).toBe(0)
    expect(existsSync(join(xdg, 'cst-agent/skills/xdg-skill/SKILL.md'))).toBe(true)
    expect(existsSync(join(sb.home, '.config'))).toBe(false)
  })

  it('lists codex user skills from ~/.agents/skills and from the older $CODEX_HOME/skills', async ({expect}) => {
    const sb = sandbox({git: true})
    const codexHome = join(sb.dir, 'codex-home')
    writeSkill(join(sb.home, '.agents/skills'), 'newer')
    writeSkill(join(codexHome, 'skills'), 'older')
    writeSkill(join(codexHome, 'skills'), 'newer')
    const list = await loadout(sb, ['skills', 'list', '--agent', 'codex', '--scope', 'user', '--json'], {env: {CODEX_HOME: codexHome}})
    expect(list.status).toBe(0)
    const skills = list.json<SkillsListResult>().skills.map((s) => [s.name, s.path, s.status])
    expect(skills).toEqual([
      ['newer', join(sb.home, '.agents/skills/newer'), 'active'],
      ['newer', join(codexHome, 'skills/newer'), 'shadowed'],
      ['older', join(codexHome, 'skills/older'), 'active'],
    ])
  })

  it('reads deepagents user skills from both of its folders, ~/.agents/skills over its own (its notes: user dcode skills are the lowest)', async ({expect}) => {
    const sb = sandbox()
    writeSkill(join(sb.home, '.deepagents/agent/skills'), 'shared')
    writeSkill(join(sb.home, '.agents/skills'), 'shared')
    writeSkill(join(sb.home, '.agents/skills'), 'cross')
    const list = await loadout(sb, ['skills', 'list', '--agent', 'deepagents', '--json'])
    expect(list.status).toBe(0)
    const result = list.json<SkillsListResult>()
    expect(result.scopes).toEqual(['user', 'project'])
    expect(result.skills.map((s) => [s.name, s.path, s.status, s.shadowedBy])).toEqual([
      ['cross', join(sb.home, '.agents/skills/cross'), 'active', undefined],
      ['shared', join(sb.home, '.agents/skills/shared'), 'active', undefined],
      ['shared', join(sb.home, '.deepagents/agent/skills/shared'), 'shadowed', join(sb.home, '.agents/skills/shared')],
    ])
  })
})
