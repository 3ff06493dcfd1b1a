import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, it} from 'vitest'
import type {SkillsListResult} from '../../src/commands/skills/list.js'
import type {SkillInfo} from '../../src/core/ops/skills/info.js'
import type {ListedSkill} from '../../src/core/ops/skills/list.js'
import type {Sandbox} from '../support/cli.js'
import {changes, jsonError, loadout, sandboxes, skillMd, snapshot, writeSkill, writeState} from './helpers.js'

const sandbox = sandboxes()

const PDF_BODY = '# PDF tools\n\nFill the form with scripts/fill.py.\nCheck every field before saving.\n'
const PDF_SKILL = `---
name: pdf-tools
description: Fill and merge PDF forms. Use when the user mentions PDF forms.
license: MIT
metadata:
  author: tests
  version: "1.0"
allowed-tools: Bash Read
---
${PDF_BODY}`

/** name, status and path of each listed skill, for compact assertions */
const rows = (skills: readonly ListedSkill[]) => skills.map((s) => [s.agent, s.name, s.scope, s.status, s.path])

describe.concurrent('skills list and info over one populated sandbox', () => {
  let sb: Sandbox
  let projectClaude: string
  let projectAgent: string
  let userClaude: string
  let before: Map<string, string>

  beforeAll(() => {
    sb = sandbox({git: true})
    projectClaude = join(sb.project, '.claude/skills')
    projectAgent = join(sb.project, '.agent/skills')
    userClaude = join(sb.home, '.claude/skills')
    // the same name in two folders of cst-agent (and the second is claude-code's project folder)
    writeSkill(projectAgent, 'dup', skillMd({name: 'dup', description: 'the .agent copy'}))
    writeSkill(projectClaude, 'dup', skillMd({name: 'dup', description: 'the .claude copy'}))
    // the same name in claude-code's user and project folders: the user one wins
    writeSkill(userClaude, 'both', skillMd({name: 'both', description: 'user copy'}))
    writeSkill(projectClaude, 'both', skillMd({name: 'both', description: 'project copy'}))
    // installed by a plugin
    const plugged = writeSkill(userClaude, 'from-plugin')
    writeState(sb.home, [{plugin: 'review@acme', target: 'claude-code', scope: 'user', files: [join(plugged, 'SKILL.md')]}])
    // broken ones
    mkdirSync(join(projectClaude, 'no-file'), {recursive: true})
    writeSkill(projectClaude, 'bad-yaml', '---\nname: bad-yaml\ndescription: never closed\n')
    writeSkill(projectClaude, 'wrong-name', skillMd({name: 'other-name', description: 'mismatch'}))
    // a skill with everything info shows
    const pdf = writeSkill(projectClaude, 'pdf-tools', PDF_SKILL)
    mkdirSync(join(pdf, 'scripts'))
    writeFileSync(join(pdf, 'scripts/fill.py'), 'print("fill")\n')
    mkdirSync(join(pdf, 'references'))
    writeFileSync(join(pdf, 'references/forms.md'), '# Forms\n')
    before = snapshot(sb.dir)
  })

  it('shows which of two same-named cst-agent skills is active and which is shadowed', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'list', '--agent', 'cst-agent', '--scope', 'project', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const dup = result.json<SkillsListResult>().skills.filter((s) => s.name === 'dup')
    expect(dup).toMatchObject([
      {agent: 'cst-agent', status: 'active', path: join(projectAgent, 'dup'), folder: projectAgent, description: 'the .agent copy'},
      {agent: 'cst-agent', status: 'shadowed', path: join(projectClaude, 'dup'), shadowedBy: join(projectAgent, 'dup'), description: 'the .claude copy'},
    ])
    expect(dup[0]).not.toHaveProperty('shadowedBy')
  })

  it('lists claude-code over both scopes with shadowing, owner and validity, broken skills included', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const listed = result.json<SkillsListResult>()
    expect(listed.scopes).toEqual(['user', 'project'])
    expect(listed.folders.map((f) => [f.scope, f.path, f.exists])).toEqual([
      ['user', userClaude, true],
      ['project', projectClaude, true],
    ])
    expect(rows(listed.skills)).toEqual([
      ['claude-code', 'both', 'user', 'active', join(userClaude, 'both')],
      ['claude-code', 'from-plugin', 'user', 'active', join(userClaude, 'from-plugin')],
      ['claude-code', 'bad-yaml', 'project', 'active', join(projectClaude, 'bad-yaml')],
      ['claude-code', 'both', 'project', 'shadowed', join(projectClaude, 'both')],
      ['claude-code', 'dup', 'project', 'active', join(projectClaude, 'dup')],
      ['claude-code', 'no-file', 'project', 'active', join(projectClaude, 'no-file')],
      ['claude-code', 'pdf-tools', 'project', 'active', join(projectClaude, 'pdf-tools')],
      ['claude-code', 'wrong-name', 'project', 'active', join(projectClaude, 'wrong-name')],
    ])
    const byPath = new Map(listed.skills.map((s) => [s.path, s]))
    expect(byPath.get(join(projectClaude, 'both'))!.shadowedBy).toBe(join(userClaude, 'both'))
    expect(byPath.get(join(userClaude, 'from-plugin'))!.owner).toBe('review@acme')
    expect(listed.skills.filter((s) => s.owner !== 'user').map((s) => s.name)).toEqual(['from-plugin'])
    const broken = listed.skills.filter((s) => !s.valid).map((s) => [s.name, s.problems.map((p) => p.code)])
    expect(broken).toEqual([
      ['bad-yaml', ['frontmatter-unclosed']],
      ['no-file', ['skill-file-missing']],
      ['wrong-name', ['name-folder-mismatch']],
    ])
    expect(byPath.get(join(projectClaude, 'no-file'))!.problems[0]).toMatchObject({severity: 'error', file: join(projectClaude, 'no-file/SKILL.md')})
  })

  it('keeps a project skill shadowed by a user one when only the project scope is listed', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'list', '--agent', 'claude-code', '--scope', 'project', '--json'])
    const listed = result.json<SkillsListResult>()
    expect(listed.scopes).toEqual(['project'])
    expect(listed.skills.every((s) => s.scope === 'project')).toBe(true)
    expect(listed.skills.find((s) => s.name === 'both')).toMatchObject({status: 'shadowed', shadowedBy: join(userClaude, 'both')})
  })

  it('uses the detected agents when --agent is not given', async ({expect}) => {
    // HOME has .claude (and .config/loadout), but no other agent's home
    const result = await loadout(sb, ['skills', 'list', '--json'])
    expect(result.status).toBe(0)
    expect(result.json<SkillsListResult>().agents).toEqual(['claude-code'])
  })

  it('prints a table with shadowing, owners and problems without --json', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'list', '--agent', 'claude-code,cst-agent'])
    expect(result.status, result.stderr).toBe(0)
    const out = result.stdout
    expect(out).toMatch(/^AGENT\s+NAME\s+SCOPE\s+STATUS\s+VALID\s+OWNER\s+PATH$/m)
    expect(out).toMatch(new RegExp(`^claude-code\\s+from-plugin\\s+user\\s+active\\s+valid\\s+review@acme\\s+${join(userClaude, 'from-plugin')}$`, 'm'))
    expect(out).toContain(`cst-agent ${join(projectClaude, 'dup')} is shadowed by ${join(projectAgent, 'dup')}`)
    expect(out).toContain(`claude-code ${join(projectClaude, 'both')} is shadowed by ${join(userClaude, 'both')}`)
    expect(out).toContain(`error frontmatter-unclosed ${join(projectClaude, 'bad-yaml/SKILL.md')}`)
    expect(out).toContain(`error skill-file-missing ${join(projectClaude, 'no-file/SKILL.md')}`)
    expect(out).not.toContain('\u001B[')
  })

  it('info shows the frontmatter, body size, files, locations and validity', async ({expect}) => {
    const result = await loadout(sb, ['skills', 'info', 'pdf-tools', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const info = result.json<SkillInfo>()
    expect(info).toMatchObject({
      name: 'pdf-tools',
      description: 'Fill and merge PDF forms. Use when the user mentions PDF forms.',
      path: join(projectClaude, 'pdf-tools'),
      frontmatter: {
        name: 'pdf-tools',
        description: 'Fill and merge PDF forms. Use when the user mentions PDF forms.',
        license: 'MIT',
        metadata: {author: 'tests', version: '1.0'},
        'allowed-tools': 'Bash Read',
      },
      problems: [],
      filesTruncated: false,
    })
    expect(info.body).toEqual({lines: 4, bytes: Buffer.byteLength(PDF_BODY), estimatedTokens: Math.ceil(PDF_BODY.length / 4)})
    expect(info.files.map((f) => [f.path, f.bytes, f.kind]).sort()).toEqual([
      ['SKILL.md', Buffer.byteLength(PDF_SKILL), 'file'],
      ['references/forms.md', 8, 'file'],
      ['scripts/fill.py', 14, 'file'],
    ])
    expect(info.locations.map((l) => [l.agent, l.scope, l.status])).toEqual([['claude-code', 'project', 'active']])
  })

  it('info lists every copy for every agent (in --agent order), and describes the first winning one', async ({expect}) => {
    const [both, dup] = await Promise.all([
      loadout(sb, ['skills', 'info', 'both', '--agent', 'claude-code,cst-agent', '--json']),
      loadout(sb, ['skills', 'info', 'dup', '--agent', 'cst-agent,claude-code', '--json']),
    ])
    const bothInfo = both.json<SkillInfo>()
    expect(bothInfo.path).toBe(join(userClaude, 'both'))
    expect(bothInfo.description).toBe('user copy')
    expect(bothInfo.locations.map((l) => [l.agent, l.scope, l.status, l.path])).toEqual([
      ['claude-code', 'user', 'active', join(userClaude, 'both')],
      ['claude-code', 'project', 'shadowed', join(projectClaude, 'both')],
      ['cst-agent', 'project', 'active', join(projectClaude, 'both')],
    ])
    const dupInfo = dup.json<SkillInfo>()
    expect(dupInfo.path).toBe(join(projectAgent, 'dup'))
    expect(dupInfo.locations.map((l) => [l.agent, l.status, l.path])).toEqual([
      ['cst-agent', 'active', join(projectAgent, 'dup')],
      ['cst-agent', 'shadowed', join(projectClaude, 'dup')],
      ['claude-code', 'active', join(projectClaude, 'dup')],
    ])
  })

  it('info of a broken skill shows its problems; of a plugin skill, its owner', async ({expect}) => {
    const [bad, plugged, text] = await Promise.all([
      loadout(sb, ['skills', 'info', 'wrong-name', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'info', 'from-plugin', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'info', 'pdf-tools', '--agent', 'claude-code']),
    ])
    expect(bad.json<SkillInfo>().problems).toMatchObject([{severity: 'error', code: 'name-folder-mismatch', message: expect.stringContaining('other-name')}])
    expect(plugged.json<SkillInfo>().locations).toMatchObject([{owner: 'review@acme'}])
    expect(text.status).toBe(0)
    expect(text.stdout).toContain('body: 4 lines')
    expect(text.stdout).toContain('  license: MIT')
    expect(text.stdout).toContain('  scripts/fill.py 14 B')
  })

  it('info of an unknown name exits 3 and suggests the nearest one', async ({expect}) => {
    const [json, text, far] = await Promise.all([
      loadout(sb, ['skills', 'info', 'pdf-tool', '--agent', 'claude-code', '--json']),
      loadout(sb, ['skills', 'info', 'pdf-tol', '--agent', 'claude-code']),
      loadout(sb, ['skills', 'info', 'zzzzzzzzzzzz', '--agent', 'claude-code']),
    ])
    expect(json.status).toBe(3)
    const error = jsonError(json)
    expect(error).toMatchObject({code: 'skill-not-found', exitStatus: 3, message: expect.stringContaining('"pdf-tool"')})
    expect(error.suggestions).toContain('did you mean "pdf-tools"?')
    expect(text.status).toBe(3)
    expect(text.stderr).toContain('error: no skill named "pdf-tol"')
    expect(text.stderr).toContain('did you mean "pdf-tools"?')
    expect(far.status).toBe(3)
    expect(far.stderr).not.toContain('did you mean')
  })

  it('reading never changed a file', ({expect}) => {
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('skills list with nothing installed', () => {
  it('lists no skills, every capable agent, and where it looked', async ({expect}) => {
    const sb = sandbox()
    const [json, text] = await Promise.all([loadout(sb, ['skills', 'list', '--json']), loadout(sb, ['skills', 'list', '--scope', 'user'])])
    expect(json.status).toBe(0)
    const listed = json.json<SkillsListResult>()
    expect(listed.skills).toEqual([])
    expect(listed.agents).toEqual(expect.arrayContaining(['claude-code', 'codex', 'deepagents', 'cst-agent', 'universal']))
    expect(listed.folders.every((f) => !f.exists)).toBe(true)
    expect(text.status).toBe(0)
    expect(text.stdout).toMatch(/^no skills found for /)
    expect(text.stdout).toContain(`claude-code user ${join(sb.home, '.claude/skills')} (missing)`)
  })
})
