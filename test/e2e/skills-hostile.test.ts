import {chmodSync, lstatSync, mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, it} from 'vitest'
import type {SkillsListResult} from '../../src/commands/skills/list.js'
import type {SkillInfo} from '../../src/core/ops/skills/info.js'
import type {SkillsValidation} from '../../src/core/ops/skills/validate-paths.js'
import type {Sandbox} from '../support/cli.js'
import {changes, entries, jsonError, loadout, openUp, sandboxes, skillMd, snapshot, unprivileged, writeSkill} from './helpers.js'

const sandbox = sandboxes()

const problemCodes = (skills: ReadonlyArray<{name: string; problems: ReadonlyArray<{code: string}>}>) =>
  Object.fromEntries(skills.map((s) => [s.name, s.problems.map((p) => p.code)]))

describe.concurrent('bad skill names are refused with the rule they break, and nothing is written', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['..', 'name-has-dotdot', /contains "\.\."/],
    ['../escape', 'name-has-separator', /path separator/],
    ['nested/skill', 'name-has-separator', /path separator/],
    ['back\\slash', 'name-has-separator', /path separator/],
    ['.hidden', 'name-leading-dot', /starts with a dot/],
    ['Upper-Case', 'name-uppercase', /upper-case/],
    ['a'.repeat(65), 'name-too-long', /65 characters; the limit is 64/],
  ]
  let sb: Sandbox
  let before: Map<string, string>
  beforeAll(() => {
    sb = sandbox({git: true})
    // an existing skills folder and a file one level up that `..` could reach
    writeSkill(join(sb.project, '.claude/skills'), 'existing')
    writeFileSync(join(sb.project, '.claude/escape'), 'do not touch')
    before = snapshot(sb.dir)
  })

  for (const [name, code, rule] of cases) {
    it(`refuses ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}... (${name.length} characters)` : name)}`, async ({expect}) => {
      const [json, text] = await Promise.all([
        loadout(sb, ['skills', 'create', name, '--agent', 'claude-code,codex,cst-agent', '--json']),
        loadout(sb, ['skills', 'create', name, '--agent', 'claude-code,deepagents,universal', '--scope', 'user', '--force']),
      ])
      expect(json.status).toBe(2)
      const error = jsonError(json)
      expect(error.code).toBe(code)
      expect(error.message).toMatch(rule)
      expect(error.message).toContain(`invalid skill name: name "${name}"`)
      expect(error.suggestions.join(' ')).toContain('lowercase letters, digits and single hyphens')
      expect(text.status).toBe(2)
      expect(text.stderr).toMatch(/^error: invalid skill name: /)
      expect(text.stderr).toMatch(rule)
      expect(text.stderr).not.toMatch(/\n\s+at /)
      expect(changes(before, snapshot(sb.dir))).toEqual([])
    })
  }

  it('accepts a name of exactly 64 characters', async ({expect}) => {
    const other = sandbox({git: true})
    const name = 'a'.repeat(64)
    const result = await loadout(other, ['skills', 'create', name, '--agent', 'claude-code', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(entries(join(other.project, '.claude/skills'))).toEqual([name])
  })
})

describe.concurrent('broken SKILL.md files are reported, not dropped', () => {
  const broken: Record<string, [string, string, RegExp]> = {
    'empty-fm': ['---\n---\n# Empty\n', 'frontmatter-empty', /frontmatter is empty/],
    'no-fm': ['# No frontmatter\n\nJust text.\n', 'frontmatter-missing', /must start with YAML frontmatter/],
    'unclosed-fm': ['---\nname: unclosed-fm\ndescription: never closed\n\n# Body\n', 'frontmatter-unclosed', /never closes/],
    'list-fm': ['---\n- name\n- description\n---\n', 'frontmatter-not-mapping', /must be a YAML mapping, not a list/],
    'scalar-fm': ['---\njust a string\n---\n', 'frontmatter-not-mapping', /must be a YAML mapping, not string/],
    'bad-yaml': ['---\nname: [unclosed\ndescription: x\n---\n', 'frontmatter-yaml-invalid', /not valid YAML/],
    'late-fm': ['\n---\nname: late-fm\ndescription: x\n---\n', 'frontmatter-not-at-start', /byte 0/],
  }
  let sb: Sandbox
  let skills: string
  let before: Map<string, string>
  beforeAll(() => {
    sb = sandbox({git: true})
    skills = join(sb.project, '.agents/skills')
    for (const [name, [text]] of Object.entries(broken)) writeSkill(skills, name, text)
    writeSkill(skills, 'fine')
    before = snapshot(sb.dir)
  })

  it('list shows every one of them as invalid, with its problem', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'list', '--agent', 'universal', '--scope', 'project', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const listed = result.json<SkillsListResult>().skills
    expect(listed.map((s) => s.name).sort()).toEqual([...Object.keys(broken), 'fine'].sort())
    for (const s of listed) {
      if (s.name === 'fine') {
        expect(s.valid).toBe(true)
        continue
      }
      const [, code, message] = broken[s.name]!
      expect(s.valid).toBe(false)
      expect(s.problems).toHaveLength(1)
      expect(s.problems[0]).toMatchObject({severity: 'error', code, file: join(skills, s.name, 'SKILL.md')})
      expect(s.problems[0]!.message).toMatch(message)
    }
  })

  it('validate exits 4 and names each problem', async ({expect}) => {
    const [json, text] = await Promise.all([loadout(sb, ['skills', 'validate', skills, '--json']), loadout(sb, ['skills', 'validate', skills])])
    expect(json.status).toBe(4)
    const result = jsonError(json).details as SkillsValidation
    expect(result.errors).toBe(Object.keys(broken).length)
    expect(problemCodes(result.skills.map((s) => ({name: s.path.split('/').pop()!, problems: s.problems})))).toEqual({
      ...Object.fromEntries(Object.entries(broken).map(([name, [, code]]) => [name, [code]])),
      fine: [],
    })
    expect(text.status).toBe(4)
    for (const [name, [, code]] of Object.entries(broken)) expect(text.stderr).toContain(`error ${code} ${join(skills, name, 'SKILL.md')}`)
  })

  it('info shows the problem of a broken skill', async ({expect}) => {
    const results = await Promise.all(['empty-fm', 'list-fm'].map((name) => loadout(sb, ['skills', 'info', name, '--agent', 'universal', '--json'])))
    expect(results.map((r) => r.json<SkillInfo>().problems.map((p) => p.code))).toEqual([['frontmatter-empty'], ['frontmatter-not-mapping']])
  })

  it('the cst-agent dialect still refuses empty, unclosed and non-mapping frontmatter', async ({expect}) => {
    const result = await loadout(sb, [
      'skills',
      'validate',
      join(skills, 'empty-fm'),
      join(skills, 'unclosed-fm'),
      join(skills, 'scalar-fm'),
      '--dialect',
      'cst-agent',
      '--json',
    ])
    expect(result.status).toBe(4)
    expect((jsonError(result).details as SkillsValidation).skills.map((s) => s.problems.map((p) => p.code))).toEqual([
      ['frontmatter-empty'],
      ['frontmatter-unclosed'],
      ['frontmatter-not-mapping'],
    ])
  })

  it('reading them changed nothing', ({expect}) => {
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('a skills folder that is a symbolic link to elsewhere', () => {
  it('create refuses to write through it, in either scope, and writes nothing anywhere', async ({expect}) => {
    const sb = sandbox({git: true})
    const elsewhere = join(sb.dir, 'elsewhere')
    mkdirSync(elsewhere)
    mkdirSync(join(sb.project, '.claude'))
    symlinkSync(elsewhere, join(sb.project, '.claude/skills'))
    // the user-scope skills folder of universal (and codex) is a link too
    const other = join(sb.dir, 'other-skills')
    mkdirSync(other)
    mkdirSync(join(sb.home, '.agents'))
    symlinkSync(other, join(sb.home, '.agents/skills'))
    const before = snapshot(sb.dir)
    const [project, user, text] = await Promise.all([
      loadout(sb, ['skills', 'create', 'through', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'create', 'through', '--agent', 'universal', '--scope', 'user', '--json']),
      loadout(sb, ['skills', 'create', 'through', '--agent', 'codex,claude-code']),
    ])
    expect(project.status).toBe(4)
    expect(jsonError(project)).toMatchObject({
      code: 'unsafe-path',
      message: `refusing to write through the symbolic link ${join(sb.project, '.claude/skills')} (it points to ${elsewhere})`,
    })
    expect(user.status).toBe(4)
    expect(jsonError(user).message).toContain(`symbolic link ${join(sb.home, '.agents/skills')} (it points to ${other})`)
    // codex's folder was fine, but nothing is written when any destination is refused
    expect(text.status).toBe(4)
    expect(text.stderr).toContain('refusing to write through the symbolic link')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    expect(readdirSync(elsewhere)).toEqual([])
    expect(readdirSync(other)).toEqual([])
  })

  it('list reads it but flags it', async ({expect}) => {
    const sb = sandbox({git: true})
    const elsewhere = join(sb.dir, 'elsewhere')
    writeSkill(elsewhere, 'over-there')
    mkdirSync(join(sb.project, '.claude'))
    symlinkSync(elsewhere, join(sb.project, '.claude/skills'))
    const [json, text] = await Promise.all([
      loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--scope', 'project', '--json']),
      loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--scope', 'project']),
    ])
    expect(json.status).toBe(0)
    const listed = json.json<SkillsListResult>()
    expect(listed.folders).toMatchObject([
      {path: join(sb.project, '.claude/skills'), exists: true, linkTarget: elsewhere, problems: [{severity: 'warning', code: 'skills-folder-link'}]},
    ])
    expect(listed.skills.map((s) => s.name)).toEqual(['over-there'])
    expect(text.stdout).toContain(`warning skills-folder-link ${join(sb.project, '.claude/skills')}: the skills folder is a symbolic link to ${elsewhere}`)
  })

  it('create --force refuses a skill folder that is itself a link', async ({expect}) => {
    const sb = sandbox({git: true})
    const target = writeSkill(join(sb.dir, 'elsewhere'), 'linked')
    mkdirSync(join(sb.project, '.agents/skills'), {recursive: true})
    symlinkSync(target, join(sb.project, '.agents/skills/linked'))
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['skills', 'create', 'linked', '--agent', 'codex', '--force', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result).code).toBe('unsafe-path')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('create refuses clearly when a skills folder on the way is a file', async ({expect}) => {
    const sb = sandbox({git: true})
    mkdirSync(join(sb.project, '.claude'))
    writeFileSync(join(sb.project, '.claude/skills'), 'a file, not a folder')
    const before = snapshot(sb.dir)
    const [create, validate] = await Promise.all([
      loadout(sb, ['skills', 'create', 'blocked', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'validate', '.claude/skills', '--json']),
    ])
    expect(create.status).toBe(4)
    expect(jsonError(create)).toMatchObject({code: 'unsafe-path', message: `${join(sb.project, '.claude/skills')} is not a folder`})
    expect(validate.status).toBe(4)
    expect((jsonError(validate).details as SkillsValidation).problems).toMatchObject([{code: 'path-not-skill'}])
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('a SKILL.md that is a symbolic link', () => {
  let sb: Sandbox
  let skills: string
  let before: Map<string, string>
  beforeAll(() => {
    sb = sandbox({git: true})
    skills = join(sb.project, '.claude/skills')
    const secret = join(sb.dir, 'secret')
    mkdirSync(secret)
    writeFileSync(join(secret, 'SKILL.md'), skillMd({name: 'escapes', description: 'SECRET-OUTSIDE-TEXT'}))
    mkdirSync(join(skills, 'escapes'), {recursive: true})
    symlinkSync(join(secret, 'SKILL.md'), join(skills, 'escapes/SKILL.md'))
    // a link that stays inside its folder is fine
    mkdirSync(join(skills, 'inside'))
    writeFileSync(join(skills, 'inside/real.md'), skillMd({name: 'inside', description: 'Linked from within.'}))
    symlinkSync('real.md', join(skills, 'inside/SKILL.md'))
    before = snapshot(sb.dir)
  })

  it('out of its folder is not read, and reported by list, info and validate', async ({expect}) => {
    const [list, info, validate] = await Promise.all([
      loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'info', 'escapes', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'validate', join(skills, 'escapes')]),
    ])
    const listed = list.json<SkillsListResult>().skills
    expect(problemCodes(listed)).toEqual({escapes: ['skill-file-link-outside'], inside: []})
    expect(listed.find((s) => s.name === 'escapes')!.problems[0]!.message).toContain('symbolic link out of its folder')
    expect(info.status).toBe(0)
    expect(info.json<SkillInfo>()).toMatchObject({problems: [{code: 'skill-file-link-outside'}], body: {lines: 0, bytes: 0}})
    expect(info.json<SkillInfo>()).not.toHaveProperty('frontmatter')
    expect(validate.status).toBe(4)
    expect(validate.stderr).toContain(`error skill-file-link-outside ${join(skills, 'escapes/SKILL.md')}`)
    for (const result of [list, info, validate]) expect(result.stdout + result.stderr).not.toContain('SECRET-OUTSIDE-TEXT')
  })

  it('delete removes the folder holding the link, never the file it points to', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'delete', 'escapes', '--agent', 'claude-code', '--dry-run', '--json'])
    expect(result.status).toBe(0)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    const other = sandbox({git: true})
    const secret = join(other.dir, 'secret.md')
    writeFileSync(secret, 'keep')
    mkdirSync(join(other.project, '.claude/skills/escapes'), {recursive: true})
    symlinkSync(secret, join(other.project, '.claude/skills/escapes/SKILL.md'))
    const del = await loadout(other, ['skills', 'delete', 'escapes', '--agent', 'claude-code', '--yes', '--json'])
    expect(del.status, del.stdout).toBe(0)
    expect(entries(join(other.project, '.claude/skills'))).toEqual([])
    expect(lstatSync(secret).isFile()).toBe(true)
  })
})

describe.concurrent('a 20 MB SKILL.md', () => {
  it('is refused without being read, and reported by list, info and validate', async ({expect}) => {
    const sb = sandbox({git: true})
    const dir = writeSkill(join(sb.project, '.agents/skills'), 'huge', skillMd({name: 'huge', description: 'HUGE-DESCRIPTION-TEXT'}))
    truncateSync(join(dir, 'SKILL.md'), 20 * 1024 * 1024)
    writeSkill(join(sb.project, '.agents/skills'), 'small')
    const before = snapshot(sb.dir)
    const [list, info, validate] = await Promise.all([
      loadout(sb, ['skills', 'list', '--agent', 'codex', '--scope', 'project', '--json']),
      loadout(sb, ['skills', 'info', 'huge', '--agent', 'codex', '--json']),
      loadout(sb, ['skills', 'validate', join(sb.project, '.agents/skills'), '--json']),
    ])
    expect(problemCodes(list.json<SkillsListResult>().skills)).toEqual({huge: ['skill-file-too-large'], small: []})
    expect(info.json<SkillInfo>().problems).toMatchObject([{code: 'skill-file-too-large', message: 'SKILL.md is 20.0 MB; the limit is 10 MB'}])
    expect(validate.status).toBe(4)
    expect((jsonError(validate).details as SkillsValidation).skills.map((s) => [s.path.split('/').pop(), s.valid])).toEqual([
      ['huge', false],
      ['small', true],
    ])
    for (const result of [list, info, validate]) expect(result.stdout).not.toContain('HUGE-DESCRIPTION-TEXT')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('unreadable and unwritable permissions', () => {
  // Root ignores file modes: the CLI then runs as nobody, who can traverse the 0755 sandbox.
  const as = unprivileged()

  it.skipIf(as === undefined)('list, info and validate report unreadable skills and folders instead of dropping them', async ({expect}) => {
    const sb = sandbox({git: true})
    const claude = join(sb.project, '.claude/skills')
    const agent = join(sb.project, '.agent/skills')
    writeSkill(claude, 'locked-dir', skillMd({name: 'locked-dir', description: 'LOCKED-TEXT'}))
    writeSkill(claude, 'locked-file', skillMd({name: 'locked-file', description: 'LOCKED-TEXT'}))
    writeSkill(claude, 'open')
    writeSkill(agent, 'behind-locked-folder')
    openUp(sb.dir)
    chmodSync(join(claude, 'locked-dir'), 0o000)
    chmodSync(join(claude, 'locked-file/SKILL.md'), 0o000)
    chmodSync(agent, 0o000)
    const before = snapshot(sb.dir)
    try {
      const [list, text, info, validate, validateText] = await Promise.all([
        loadout(sb, ['skills', 'list', '--agent', 'cst-agent', '--scope', 'project', '--json'], as),
        loadout(sb, ['skills', 'list', '--agent', 'cst-agent', '--scope', 'project'], as),
        loadout(sb, ['skills', 'info', 'locked-file', '--agent', 'claude-code', '--json'], as),
        loadout(sb, ['skills', 'validate', claude, '--json'], as),
        loadout(sb, ['skills', 'validate', agent], as),
      ])
      expect(list.status, list.stderr).toBe(0)
      const listed = list.json<SkillsListResult>()
      expect(listed.folders.find((f) => f.path === agent)!.problems).toMatchObject([
        {severity: 'error', code: 'skills-folder-unreadable', message: expect.stringContaining('permission denied')},
      ])
      expect(problemCodes(listed.skills)).toEqual({'locked-dir': ['skill-unreadable'], 'locked-file': ['skill-unreadable'], open: []})
      expect(listed.skills.find((s) => s.name === 'locked-dir')!.problems[0]!.message).toContain('permission denied')
      expect(text.stdout).toContain(`error skills-folder-unreadable ${agent}`)
      expect(text.stdout).toContain(`error skill-unreadable ${join(claude, 'locked-file/SKILL.md')}`)

      expect(info.status).toBe(0)
      expect(info.json<SkillInfo>().problems).toMatchObject([{code: 'skill-unreadable'}])

      expect(validate.status).toBe(4)
      const result = jsonError(validate).details as SkillsValidation
      expect(result.skills.map((s) => [s.path.split('/').pop(), s.problems.map((p) => p.code)])).toEqual([
        ['locked-dir', ['skill-unreadable']],
        ['locked-file', ['skill-unreadable']],
        ['open', []],
      ])
      expect(validateText.status).toBe(4)
      expect(validateText.stderr).toContain('permission denied')
      expect(validateText.stderr).not.toContain('unexpected')
      for (const r of [list, text, info, validate]) expect(r.stdout).not.toContain('LOCKED-TEXT')
      expect(changes(before, snapshot(sb.dir))).toEqual([])
    } finally {
      openUp(sb.dir)
    }
  })

  it.skipIf(as === undefined)('with only an unreadable skills folder, plain list still says why', async ({expect}) => {
    const sb = sandbox({git: true})
    const claude = join(sb.project, '.claude/skills')
    writeSkill(claude, 'hidden')
    openUp(sb.dir)
    chmodSync(claude, 0o000)
    try {
      const result = await loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--scope', 'project'], as)
      expect(result.status).toBe(0)
      expect(result.stdout).toContain('no skills found for claude-code')
      expect(result.stdout).toContain(`error skills-folder-unreadable ${claude}`)
    } finally {
      openUp(sb.dir)
    }
  })

  it.skipIf(as === undefined)('create and delete in a folder the user may not change fail clearly and change nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const claude = join(sb.project, '.claude/skills')
    writeSkill(claude, 'stuck')
    openUp(sb.dir)
    chmodSync(claude, 0o555)
    const before = snapshot(sb.dir)
    try {
      const [create, del] = await Promise.all([
        loadout(sb, ['skills', 'create', 'new-one', '--agent', 'claude-code', '--json'], as),
        loadout(sb, ['skills', 'delete', 'stuck', '--agent', 'claude-code', '--yes', '--json'], as),
      ])
      for (const result of [create, del]) {
        expect(result.status).toBe(10)
        const error = jsonError(result)
        expect(error.code).toBe('permission-denied')
        expect(error.message).toMatch(new RegExp(`^cannot change ${claude}/\\S+: permission denied$`))
        expect(error.suggestions.join(' ')).toContain('permissions')
      }
      expect(changes(before, snapshot(sb.dir))).toEqual([])
    } finally {
      openUp(sb.dir)
    }
  })
})

describe.concurrent('two skills with the same name in two folders', () => {
  it('list shows one active and one shadowed; validate of both warns duplicate-name', async ({expect}) => {
    const sb = sandbox({git: true})
    const first = writeSkill(join(sb.project, '.agent/skills'), 'twin', skillMd({name: 'twin', description: 'first'}))
    const second = writeSkill(join(sb.project, '.claude/skills'), 'twin', skillMd({name: 'twin', description: 'second'}))
    const before = snapshot(sb.dir)
    const [list, validate] = await Promise.all([
      loadout(sb, ['skills', 'list', '--agent', 'cst-agent', '--json']),
      loadout(sb, ['skills', 'validate', first, second, '--json']),
    ])
    expect(list.json<SkillsListResult>().skills.map((s) => [s.path, s.status, s.shadowedBy])).toEqual([
      [first, 'active', undefined],
      [second, 'shadowed', first],
    ])
    expect(validate.status).toBe(0)
    const result = validate.json<SkillsValidation>()
    expect(result.warnings).toBe(1)
    expect(result.skills.map((s) => s.problems.map((p) => p.code))).toEqual([[], ['duplicate-name']])
    expect(result.skills[1]!.problems[0]!.message).toBe(`another skill named "twin" is at ${first}; an agent loads only one of them`)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})
