import {existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'vitest'
import type {DeletedSkill} from '../../src/core/ops/skills/delete.js'
import {changes, changesOutside, entries, jsonError, loadout, sandboxes, snapshot, writeSkill, writeState} from './helpers.js'

const sandbox = sandboxes()

describe.concurrent('skills delete', () => {
  it('off a terminal and without --yes, exits 8 and removes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const dir = writeSkill(join(sb.project, '.claude/skills'), 'keep-me')
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['skills', 'delete', 'keep-me', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'delete', 'keep-me', '--agent', 'claude-code']),
    ])
    expect(json.status).toBe(8)
    const error = jsonError(json)
    expect(error.code).toBe('answer-needed')
    expect(error.message).toContain(dir)
    expect(error.suggestions.join(' ')).toContain('--yes')
    expect(text.status).toBe(8)
    expect(text.stderr).toContain('no terminal to ask on')
    expect(text.stderr).toContain('pass --yes')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('--dry-run shows what would go and removes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const agents = writeSkill(join(sb.project, '.agents/skills'), 'maybe')
    const claude = writeSkill(join(sb.project, '.claude/skills'), 'maybe')
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['skills', 'delete', 'maybe', '--agent', 'codex,universal,claude-code', '--dry-run', '--json']),
      loadout(sb, ['skills', 'delete', 'maybe', '--agent', 'claude-code', '--dry-run']),
    ])
    expect(json.status, json.stdout).toBe(0)
    expect(json.json<DeletedSkill>()).toEqual({
      name: 'maybe',
      scope: 'project',
      dryRun: true,
      removals: [
        {agents: ['codex', 'universal'], path: agents, root: sb.project},
        {agents: ['claude-code'], path: claude, root: sb.project},
      ],
    })
    expect(text.status).toBe(0)
    expect(text.stdout).toContain(`would delete ${claude}`)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('--yes removes the skill in the chosen scope and nothing else', async ({expect}) => {
    const sb = sandbox({git: true})
    const skills = join(sb.project, '.claude/skills')
    const gone = writeSkill(skills, 'gone')
    mkdirSync(join(gone, 'scripts'))
    writeFileSync(join(gone, 'scripts/run.sh'), 'echo hi\n')
    writeSkill(skills, 'gone-not')
    writeSkill(skills, 'neighbour')
    const userCopy = writeSkill(join(sb.home, '.claude/skills'), 'gone')
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['skills', 'delete', 'gone', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json<DeletedSkill>()).toMatchObject({scope: 'project', dryRun: false, removals: [{path: gone}]})
    expect(existsSync(gone)).toBe(false)
    expect(entries(skills)).toEqual(['gone-not', 'neighbour'])
    expect(existsSync(join(userCopy, 'SKILL.md'))).toBe(true)
    expect(changesOutside(changes(before, snapshot(sb.dir)), ['project/.claude/skills/gone'])).toEqual([])

    const user = await loadout(sb, ['skills', 'delete', 'gone', '--agent', 'claude-code', '--scope', 'user', '--yes'])
    expect(user.status, user.stderr).toBe(0)
    expect(user.stdout).toContain(`deleted ${userCopy}`)
    expect(existsSync(userCopy)).toBe(false)
  })

  it('an unknown skill exits 3 and suggests the other scope', async ({expect}) => {
    const sb = sandbox({git: true})
    writeSkill(join(sb.home, '.claude/skills'), 'elsewhere')
    const result = await loadout(sb, ['skills', 'delete', 'elsewhere', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status).toBe(3)
    const error = jsonError(result)
    expect(error).toMatchObject({code: 'skill-not-found', message: expect.stringContaining('"elsewhere"')})
    expect(error.suggestions).toContain('look in the other scope: loadout skills delete elsewhere --scope user')
    expect(existsSync(join(sb.home, '.claude/skills/elsewhere/SKILL.md'))).toBe(true)
  })

  it('refuses a skill folder that is a symbolic link, leaving the link and its target', async ({expect}) => {
    const sb = sandbox({git: true})
    const target = writeSkill(join(sb.dir, 'outside'), 'linked')
    const skills = join(sb.project, '.claude/skills')
    mkdirSync(skills, {recursive: true})
    symlinkSync(target, join(skills, 'linked'))
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['skills', 'delete', 'linked', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining('symbolic link')})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('refuses when the skills folder is a symbolic link to elsewhere', async ({expect}) => {
    const sb = sandbox({git: true})
    const elsewhere = join(sb.dir, 'elsewhere')
    writeSkill(elsewhere, 'victim')
    mkdirSync(join(sb.home, '.claude'))
    symlinkSync(elsewhere, join(sb.home, '.claude/skills'))
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['skills', 'delete', 'victim', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining(join(sb.home, '.claude/skills'))})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('refuses a skill a plugin installed and points to loadout uninstall', async ({expect}) => {
    const sb = sandbox({git: true})
    const dir = writeSkill(join(sb.home, '.claude/skills'), 'plugged')
    writeState(sb.home, [{plugin: 'review@acme', target: 'claude-code', scope: 'user', files: [join(dir, 'SKILL.md')]}])
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['skills', 'delete', 'plugged', '--agent', 'claude-code', '--scope', 'user', '--yes', '--json']),
      loadout(sb, ['skills', 'delete', 'plugged', '--agent', 'claude-code', '--scope', 'user', '--dry-run']),
    ])
    expect(json.status).toBe(5)
    expect(jsonError(json)).toMatchObject({code: 'skill-owned', message: expect.stringContaining('review@acme')})
    expect(text.status).toBe(5)
    expect(text.stderr).toContain('loadout uninstall review@acme')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('refuses a plain file that has the name of a skill', async ({expect}) => {
    const sb = sandbox({git: true})
    const skills = join(sb.project, '.claude/skills')
    mkdirSync(skills, {recursive: true})
    writeFileSync(join(skills, 'notes'), 'not a skill')
    const result = await loadout(sb, ['skills', 'delete', 'notes', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining('not a folder')})
    expect(readFileSync(join(skills, 'notes'), 'utf8')).toBe('not a skill')
  })

  it('refuses names that could reach outside the skills folder', async ({expect}) => {
    const sb = sandbox({git: true})
    writeSkill(join(sb.project, '.claude/skills'), 'inner')
    writeSkill(join(sb.project, '.claude'), 'outer')
    const before = snapshot(sb.dir)
    const results = await Promise.all(
      ['../outer', '..', 'inner/../../outer'].map((name) => loadout(sb, ['skills', 'delete', name, '--agent', 'claude-code', '--yes', '--json'])),
    )
    for (const result of results) {
      expect(result.status).toBe(2)
      expect(jsonError(result).message).toMatch(/^invalid skill name: name ".*" contains/)
    }
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})
