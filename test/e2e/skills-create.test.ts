import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'vitest'
import type {CreatedSkill} from '../../src/core/ops/skills/create.js'
import type {SkillInfo} from '../../src/core/ops/skills/info.js'
import type {SkillsValidation} from '../../src/core/ops/skills/validate-paths.js'
import {changes, changesOutside, entries, jsonError, loadout, sandboxes, snapshot, writeSkill, writeState} from './helpers.js'

const sandbox = sandboxes()

describe.concurrent('skills create', () => {
  it('adds scripts, references and assets with --with, and the result validates', async ({expect}) => {
    const sb = sandbox({git: true})
    const dir = join(sb.project, '.claude/skills/full-kit')
    const create = await loadout(sb, ['skills', 'create', 'full-kit', '--agent', 'claude-code', '--with', 'scripts,references,assets', '--json'])
    expect(create.status, create.stdout).toBe(0)
    expect(create.json<CreatedSkill>().files.sort()).toEqual(['SKILL.md', 'assets/README.md', 'references/REFERENCE.md', 'scripts/README.md'])
    expect(entries(dir)).toEqual(['SKILL.md', 'assets', 'references', 'scripts'])
    for (const file of ['assets/README.md', 'references/REFERENCE.md', 'scripts/README.md']) expect(existsSync(join(dir, file))).toBe(true)
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toContain('`scripts/`')

    const [strict, info] = await Promise.all([
      loadout(sb, ['skills', 'validate', dir, '--strict', '--json']),
      loadout(sb, ['skills', 'info', 'full-kit', '--agent', 'claude-code', '--json']),
    ])
    expect(strict.status, strict.stdout).toBe(0)
    expect(strict.json<SkillsValidation>()).toMatchObject({valid: true, errors: 0, warnings: 0})
    expect(
      info
        .json<SkillInfo>()
        .files.map((f) => f.path)
        .sort(),
    ).toEqual(['SKILL.md', 'assets/README.md', 'references/REFERENCE.md', 'scripts/README.md'])
  })

  it('adds only the extras asked for, and refuses an unknown one before writing', async ({expect}) => {
    const sb = sandbox({git: true})
    const before = snapshot(sb.dir)
    const [bad, some] = await Promise.all([
      loadout(sb, ['skills', 'create', 'odd-kit', '--agent', 'codex', '--with', 'scripts,binaries', '--json']),
      loadout(sb, ['skills', 'create', 'some-kit', '--agent', 'codex', '--with', 'references', '--json']),
    ])
    expect(bad.status).toBe(2)
    expect(jsonError(bad)).toMatchObject({code: 'bad-with', message: expect.stringContaining('"binaries"')})
    expect(jsonError(bad).suggestions.join(' ')).toContain('scripts, references, assets')
    expect(existsSync(join(sb.project, '.agents/skills/odd-kit'))).toBe(false)

    expect(some.status, some.stdout).toBe(0)
    expect(entries(join(sb.project, '.agents/skills/some-kit'))).toEqual(['SKILL.md', 'references'])
    expect(changesOutside(changes(before, snapshot(sb.dir)), ['project/.agents/skills/some-kit'])).toEqual([])
  })

  it('--dry-run reports the destinations and writes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['skills', 'create', 'dry-one', '--agent', 'claude-code,cst-agent,universal', '--with', 'scripts', '--dry-run', '--json']),
      loadout(sb, ['skills', 'create', 'dry-one', '--agent', 'deepagents', '--scope', 'user', '--dry-run']),
    ])
    expect(json.status, json.stdout).toBe(0)
    const result = json.json<CreatedSkill>()
    expect(result.dryRun).toBe(true)
    expect(result.destinations).toEqual([
      {agents: ['claude-code'], path: join(sb.project, '.claude/skills/dry-one'), replaced: false},
      {agents: ['cst-agent'], path: join(sb.project, '.agent/skills/dry-one'), replaced: false},
      {agents: ['universal'], path: join(sb.project, '.agents/skills/dry-one'), replaced: false},
    ])
    expect(text.status, text.stderr).toBe(0)
    expect(text.stdout).toContain(`would create ${join(sb.home, '.deepagents/agent/skills/dry-one')}`)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('writes one copy for agents that share a folder, and says so', async ({expect}) => {
    const sb = sandbox({git: true})
    const create = await loadout(sb, ['skills', 'create', 'shared-one', '--agent', 'codex,universal,deepagents', '--json'])
    expect(create.status, create.stdout).toBe(0)
    expect(create.json<CreatedSkill>().destinations).toEqual([
      {agents: ['codex', 'universal'], path: join(sb.project, '.agents/skills/shared-one'), replaced: false},
      {agents: ['deepagents'], path: join(sb.project, '.deepagents/skills/shared-one'), replaced: false},
    ])
  })

  it('never overwrites an existing skill without --force (exit 5), for any of the chosen agents', async ({expect}) => {
    const sb = sandbox({git: true})
    const existing = writeSkill(join(sb.project, '.agents/skills'), 'taken', '---\nname: taken\ndescription: "hand made"\n---\nmine\n')
    writeFileSync(join(existing, 'notes.txt'), 'keep me')
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['skills', 'create', 'taken', '--agent', 'claude-code,codex', '--json']),
      loadout(sb, ['skills', 'create', 'taken', '--agent', 'universal']),
    ])
    expect(json.status).toBe(5)
    const error = jsonError(json)
    expect(error.code).toBe('skill-exists')
    expect(error.message).toContain(existing)
    expect(error.suggestions.join(' ')).toContain('--force')
    expect(text.status).toBe(5)
    expect(text.stderr).toContain(`a skill named "taken" already exists at ${existing}`)
    // checked before anything was written: not even the claude-code copy exists
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    expect(readFileSync(join(existing, 'SKILL.md'), 'utf8')).toContain('hand made')
  })

  it('--dry-run over an existing skill still refuses without --force', async ({expect}) => {
    const sb = sandbox({git: true})
    writeSkill(join(sb.project, '.claude/skills'), 'taken')
    const result = await loadout(sb, ['skills', 'create', 'taken', '--agent', 'claude-code', '--dry-run', '--json'])
    expect(result.status).toBe(5)
    expect(jsonError(result).code).toBe('skill-exists')
  })

  it('--force replaces the whole folder, leaving no staging or backup folders', async ({expect}) => {
    const sb = sandbox({git: true})
    const skills = join(sb.project, '.claude/skills')
    const existing = writeSkill(skills, 'redo', '---\nname: redo\ndescription: "old"\n---\nold body\n')
    writeFileSync(join(existing, 'old.txt'), 'old')
    writeSkill(skills, 'neighbour')
    const before = snapshot(sb.dir)
    const create = await loadout(sb, ['skills', 'create', 'redo', '--agent', 'claude-code', '--force', '--description', 'The new one.', '--json'])
    expect(create.status, create.stdout).toBe(0)
    expect(create.json<CreatedSkill>().destinations).toEqual([{agents: ['claude-code'], path: existing, replaced: true}])
    expect(entries(existing)).toEqual(['SKILL.md'])
    expect(readFileSync(join(existing, 'SKILL.md'), 'utf8')).toContain('description: "The new one."')
    expect(entries(skills)).toEqual(['neighbour', 'redo'])
    expect(changesOutside(changes(before, snapshot(sb.dir)), ['project/.claude/skills/redo'])).toEqual([])
  })

  it('keeps a description with YAML-special characters exactly, and the result validates', async ({expect}) => {
    const sb = sandbox({git: true})
    const description = 'Fill "PDF" forms: merge, split # not a comment\n---\nname: injected\n- and \'quotes\' \\ backslash, émoji 📄'
    const create = await loadout(sb, ['skills', 'create', 'tricky', '--agent', 'claude-code', '--description', description, '--json'])
    expect(create.status, create.stdout).toBe(0)
    const dir = join(sb.project, '.claude/skills/tricky')
    const [validate, info] = await Promise.all([
      loadout(sb, ['skills', 'validate', dir, '--strict', '--json']),
      loadout(sb, ['skills', 'info', 'tricky', '--agent', 'claude-code', '--json']),
    ])
    expect(validate.status, validate.stdout).toBe(0)
    expect(info.json<SkillInfo>()).toMatchObject({description, frontmatter: {name: 'tricky', description}})
  })

  it('refuses an empty or too long description before writing', async ({expect}) => {
    const sb = sandbox({git: true})
    const [empty, long, limit] = await Promise.all([
      loadout(sb, ['skills', 'create', 'no-desc', '--agent', 'claude-code', '--description', ' ', '--json']),
      loadout(sb, ['skills', 'create', 'long-desc', '--agent', 'claude-code', '--description', 'x'.repeat(1025), '--json']),
      loadout(sb, ['skills', 'create', 'limit-desc', '--agent', 'claude-code', '--description', 'x'.repeat(1024), '--json']),
    ])
    expect(empty.status).toBe(2)
    expect(jsonError(empty).code).toBe('description-empty')
    expect(long.status).toBe(2)
    expect(jsonError(long)).toMatchObject({code: 'description-too-long', message: expect.stringContaining('1025')})
    expect(limit.status, limit.stdout).toBe(0)
    expect(entries(join(sb.project, '.claude/skills'))).toEqual(['limit-desc'])
  })

  it('refuses to replace a skill a plugin installed, even with --force, and points to uninstall', async ({expect}) => {
    const sb = sandbox({git: true})
    const dir = writeSkill(join(sb.home, '.claude/skills'), 'plugged')
    writeState(sb.home, [{plugin: 'review@acme', target: 'claude-code', scope: 'user', files: [join(dir, 'SKILL.md')]}])
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['skills', 'create', 'plugged', '--agent', 'claude-code', '--scope', 'user', '--force', '--json'])
    expect(result.status).toBe(5)
    expect(jsonError(result)).toMatchObject({code: 'skill-owned', message: expect.stringContaining('review@acme')})
    expect(jsonError(result).suggestions).toContain('remove it with: loadout uninstall review@acme')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('prints what it did in plain text without --json', async ({expect}) => {
    const sb = sandbox({git: true})
    const result = await loadout(sb, ['skills', 'create', 'plain', '--agent', 'codex,universal'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`created ${join(sb.project, '.agents/skills/plain')} for codex, universal`)
    expect(result.stdout).not.toContain('\u001B[')
  })
})
