import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, it} from 'vitest'
import type {SkillsValidation} from '../../src/core/ops/skills/validate-paths.js'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes, skillMd, writeSkill} from './helpers.js'

const sandbox = sandboxes()

/** The validation result carried by a failed run's --json error. */
const failedResult = (error: {details?: unknown}): SkillsValidation => error.details as SkillsValidation

const codes = (result: SkillsValidation) => result.skills.map((s) => [s.path.split('/').pop(), s.valid, s.problems.map((p) => p.code)])

describe.concurrent('skills validate', () => {
  let sb: Sandbox
  let f: string

  beforeAll(() => {
    sb = sandbox()
    f = join(sb.dir, 'fixtures')
    writeSkill(join(f, 'good'), 'ok-skill')
    writeSkill(join(f, 'extra'), 'extra-field', skillMd({name: 'extra-field', description: 'Has one field too many.', colour: 'blue'}))
    writeSkill(join(f, 'plain'), 'plain-skill', '# Plain skill\n\nDoes plain things without frontmatter.\n')
    writeSkill(join(f, 'plain'), 'headings-only', '# Only\n\n## Headings\n')
    writeSkill(join(f, 'bad'), 'broken', skillMd({name: 'broken'}))
    writeSkill(join(f, 'many'), 'alpha')
    writeSkill(join(f, 'many'), 'beta')
    writeSkill(join(f, 'many'), 'gamma', skillMd({name: 'not-gamma', description: 'wrong name'}))
    mkdirSync(join(f, 'many', 'not-a-skill'))
    writeSkill(join(f, 'one'), 'same')
    writeSkill(join(f, 'two'), 'same')
    mkdirSync(join(f, 'empty'))
  })

  it('exits 0 for a valid skill, given as its folder, its SKILL.md or the working directory', async ({expect}) => {
    const dir = join(f, 'good/ok-skill')
    const [folder, file, cwd, text] = await Promise.all([
      loadout(sb, ['skills', 'validate', dir, '--json']),
      loadout(sb, ['skills', 'validate', join(dir, 'SKILL.md'), '--json']),
      loadout(sb, ['skills', 'validate', '--json'], {cwd: dir}),
      loadout(sb, ['skills', 'validate', 'good/ok-skill'], {cwd: f}),
    ])
    for (const result of [folder, file, cwd]) {
      expect(result.status, result.stdout).toBe(0)
      expect(result.json<SkillsValidation>()).toEqual({
        strict: false,
        valid: true,
        errors: 0,
        warnings: 0,
        problems: [],
        skills: [{path: dir, name: 'ok-skill', valid: true, problems: []}],
      })
    }
    expect(text.status).toBe(0)
    expect(text.stdout).toContain(`ok   ok-skill ${dir}`)
    expect(text.stdout).toContain('1 skill(s), 0 error(s), 0 warning(s)')
  })

  it('exits 4 for an invalid skill, naming each problem', async ({expect}) => {
    const dir = join(f, 'bad/broken')
    const [json, text] = await Promise.all([loadout(sb, ['skills', 'validate', dir, '--json']), loadout(sb, ['skills', 'validate', dir])])
    expect(json.status).toBe(4)
    const error = jsonError(json)
    expect(error).toMatchObject({code: 'validation-failed', exitStatus: 4, message: expect.stringContaining('1 error(s)')})
    expect(failedResult(error).skills).toEqual([
      {
        path: dir,
        name: 'broken',
        valid: false,
        problems: [{severity: 'error', code: 'description-missing', message: expect.stringContaining('"description"'), file: join(dir, 'SKILL.md')}],
      },
    ])
    expect(text.status).toBe(4)
    expect(text.stdout).toBe('')
    expect(text.stderr).toContain(`FAIL broken ${dir}`)
    expect(text.stderr).toContain(`error description-missing ${join(dir, 'SKILL.md')}`)
    expect(text.stderr).toMatch(/^error: 1 error\(s\) in /m)
  })

  it('warns about an unknown field, and fails on it with --strict', async ({expect}) => {
    const dir = join(f, 'extra/extra-field')
    const [loose, strict] = await Promise.all([
      loadout(sb, ['skills', 'validate', dir, '--json']),
      loadout(sb, ['skills', 'validate', dir, '--strict', '--json']),
    ])
    expect(loose.status, loose.stdout).toBe(0)
    expect(loose.json<SkillsValidation>()).toMatchObject({
      valid: true,
      errors: 0,
      warnings: 1,
      skills: [{valid: true, problems: [{severity: 'warning', code: 'field-unknown', message: expect.stringContaining('"colour"')}]}],
    })
    expect(strict.status).toBe(4)
    const error = jsonError(strict)
    expect(error.message).toContain('(strict)')
    expect(failedResult(error)).toMatchObject({strict: true, valid: false, skills: [{valid: false}]})
  })

  it('--dialect cst-agent accepts a SKILL.md without frontmatter; the specification does not', async ({expect}) => {
    const dir = join(f, 'plain/plain-skill')
    const [spec, cst, cstStrict, headings] = await Promise.all([
      loadout(sb, ['skills', 'validate', dir, '--json']),
      loadout(sb, ['skills', 'validate', dir, '--dialect', 'cst-agent', '--json']),
      loadout(sb, ['skills', 'validate', dir, '--dialect', 'cst-agent', '--strict', '--json']),
      loadout(sb, ['skills', 'validate', join(f, 'plain/headings-only'), '--dialect', 'cst-agent', '--json']),
    ])
    expect(spec.status).toBe(4)
    expect(codes(failedResult(jsonError(spec)))).toEqual([['plain-skill', false, ['frontmatter-missing']]])
    expect(cst.status, cst.stdout).toBe(0)
    expect(cst.json<SkillsValidation>().skills).toMatchObject([
      {name: 'plain-skill', valid: true, problems: [{severity: 'warning', code: 'frontmatter-missing-fallback'}]},
    ])
    expect(cstStrict.status).toBe(4)
    expect(headings.status).toBe(4)
    expect(codes(failedResult(jsonError(headings)))).toEqual([['headings-only', false, ['frontmatter-missing-fallback', 'description-missing']]])
  })

  it('validates each skill of a folder of skills, and several paths at once', async ({expect}) => {
    const [folder, several] = await Promise.all([
      loadout(sb, ['skills', 'validate', join(f, 'many'), '--json']),
      loadout(sb, ['skills', 'validate', join(f, 'many/alpha'), join(f, 'good'), '--json']),
    ])
    expect(folder.status).toBe(4)
    const result = failedResult(jsonError(folder))
    expect(codes(result)).toEqual([
      ['alpha', true, []],
      ['beta', true, []],
      ['gamma', false, ['name-folder-mismatch']],
    ])
    expect(result.errors).toBe(1)
    expect(several.status, several.stdout).toBe(0)
    expect(several.json<SkillsValidation>().skills.map((s) => s.name)).toEqual(['alpha', 'ok-skill'])
  })

  it('warns duplicate-name when two of the paths hold skills of the same name', async ({expect}) => {
    const [loose, strict] = await Promise.all([
      loadout(sb, ['skills', 'validate', join(f, 'one/same'), join(f, 'two/same'), '--json']),
      loadout(sb, ['skills', 'validate', join(f, 'one'), join(f, 'two'), '--strict', '--json']),
    ])
    expect(loose.status, loose.stdout).toBe(0)
    const result = loose.json<SkillsValidation>()
    expect(result.skills[0]!.problems).toEqual([])
    expect(result.skills[1]!.problems).toMatchObject([{severity: 'warning', code: 'duplicate-name', message: expect.stringContaining(join(f, 'one/same'))}])
    expect(strict.status).toBe(4)
  })

  it('exits 4 for a path that does not exist or holds no skill, and 2 for an unknown dialect', async ({expect}) => {
    const [missing, empty, dialect] = await Promise.all([
      loadout(sb, ['skills', 'validate', join(f, 'nope'), '--json']),
      loadout(sb, ['skills', 'validate', join(f, 'empty'), '--json']),
      loadout(sb, ['skills', 'validate', join(f, 'good'), '--dialect', 'lexora']),
    ])
    expect(missing.status).toBe(4)
    expect(failedResult(jsonError(missing)).problems).toMatchObject([{code: 'path-not-found', file: join(f, 'nope')}])
    expect(empty.status).toBe(4)
    expect(failedResult(jsonError(empty)).problems).toMatchObject([{code: 'no-skill-found'}])
    expect(dialect.status).toBe(2)
    expect(dialect.stderr).toMatch(/^error: .*lexora/)
  })
})
