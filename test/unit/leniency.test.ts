/**
 * Reading as the agents read: the lenient frontmatter fallback, and which problems install only
 * warns about while validate still calls them errors.
 */
import {mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {readForInstall} from '../../src/core/kernel/plugin/leniency.js'
import {inspectPlugin} from '../../src/core/kernel/plugin/read.js'
import {parseYamlLeniently} from '../../src/core/kernel/text/frontmatter.js'
import {parseSkillText} from '../../src/core/kernel/skills/validate.js'
import {LoadoutError} from '../../src/core/model/errors.js'

describe('parseYamlLeniently', () => {
  it('reads strict YAML as it is, naming no key', () => {
    expect(parseYamlLeniently('name: a\ndescription: "Use when: x"\n')).toEqual({ok: true, value: {name: 'a', description: 'Use when: x'}})
  })

  it('reads an unquoted colon as plain text, as the agents do, and names the key', () => {
    const result = parseYamlLeniently('name: hookify\ndescription: Use when: the user asks\nmetadata:\n  tags: [a, b]\n')
    expect(result).toEqual({
      ok: true,
      value: {name: 'hookify', description: 'Use when: the user asks', metadata: {tags: ['a', 'b']}},
      lenientKeys: ['description'],
    })
  })

  it('joins continuation lines of a plain value', () => {
    const result = parseYamlLeniently('description: Use when: one\n  and two\nname: x\n')
    expect(result).toMatchObject({ok: true, value: {description: 'Use when: one and two', name: 'x'}})
  })

  it('keeps __proto__ an own key', () => {
    const result = parseYamlLeniently('__proto__: a: b\nname: x\n')
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype)
    expect(Object.hasOwn(result.value, '__proto__')).toBe(true)
  })

  it.each([
    ['an unclosed flow list', 'description: [go\n'],
    ['an unclosed quote', 'description: "go\n'],
    ['a line that is no key', 'name: a\n: b: c\n'],
    [
      'an alias bomb',
      'a: &a [x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n',
    ],
  ])('still refuses %s', (_what, yaml) => {
    expect(parseYamlLeniently(yaml).ok).toBe(false)
  })
})

describe('skills validate still says what strict YAML rejects', () => {
  it('an unquoted colon is an error naming the key, and the skill is read', () => {
    const parsed = parseSkillText('---\nname: demo\ndescription: Use when: testing\n---\n\nBody.\n', 'demo', 'SKILL.md')
    expect(parsed.description).toBe('Use when: testing')
    expect(parsed.problems).toEqual([
      expect.objectContaining({severity: 'error', code: 'frontmatter-yaml-lenient', message: expect.stringContaining('"description" is read as plain text')}),
    ])
  })
})

const made: string[] = []
afterAll(() => {
  for (const dir of made) rmSync(dir, {recursive: true, force: true})
})
const plugin = (files: Record<string, string>): string => {
  const root = join(realpathSync(mkdtempSync(join(tmpdir(), 'loadout-leniency-'))), 'demo')
  made.push(dirname(root))
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), text)
  }
  return root
}
const MANIFEST = {'.claude-plugin/plugin.json': '{"name": "demo"}'}

describe('readForInstall', () => {
  it('installs what the agents load: conformance problems become warnings, validate keeps them as errors', () => {
    const root = plugin({...MANIFEST, 'skills/Big Skill/SKILL.md': `---\nname: Big Skill\ndescription: ${'x'.repeat(1100)}\nmetadata:\n  n: 2\n---\n\nBody.\n`})
    const model = readForInstall(root)
    expect(model.skills.map((s) => s.name)).toEqual(['Big Skill'])
    const codes = model.problems.map((p) => [p.severity, p.code])
    expect(codes).toEqual(
      expect.arrayContaining([
        ['warning', 'name-uppercase'],
        ['warning', 'description-too-long'],
        ['warning', 'metadata-value-not-string'],
      ]),
    )
    expect(
      inspectPlugin(root)
        .model.problems.filter((p) => p.severity === 'error')
        .map((p) => p.code),
    ).toEqual(expect.arrayContaining(['name-uppercase', 'description-too-long', 'metadata-value-not-string']))
  })

  it('skips a skill the agents cannot load, naming it, and installs the rest', () => {
    const root = plugin({
      ...MANIFEST,
      'skills/good/SKILL.md': '---\nname: good\ndescription: Good.\n---\n\nBody.\n',
      'skills/bare/SKILL.md': '# no frontmatter\n',
    })
    const model = readForInstall(root)
    expect(model.skills.map((s) => s.name)).toEqual(['good'])
    expect(model.problems).toContainEqual(
      expect.objectContaining({severity: 'warning', code: 'skill-skipped', message: expect.stringContaining('skill "bare" is not installed')}),
    )
  })

  it('refuses a plugin with nothing left to install', () => {
    const root = plugin({...MANIFEST, 'skills/bare/SKILL.md': '# no frontmatter\n', '.mcp.json': '{"mcpServers": {"x": {"type": "http", "url": ""}}}'})
    expect(() => readForInstall(root)).toThrow(expect.objectContaining({code: 'plugin-nothing-installable'}))
  })

  it('names the first rules a refused plugin broke (code, file, message) and how many more', () => {
    const bare = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [`skills/${n}/SKILL.md`, '# no frontmatter\n']))
    const root = plugin({...MANIFEST, ...bare})
    let error: unknown
    try {
      readForInstall(root)
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(LoadoutError)
    const message = (error as LoadoutError).message
    expect(message).toContain('nothing left to install')
    expect(message).toMatch(/\n {2}frontmatter-missing: skills\/a\/SKILL\.md\b.*\S/)
    expect(message).toContain('skills/c/SKILL.md')
    expect(message).not.toContain('skills/d/SKILL.md')
    expect(message).toContain('and 2 more')
  })

  it('still refuses what is unsafe: a path out of the plugin', () => {
    const root = plugin({'.claude-plugin/plugin.json': '{"name": "demo", "skills": ["../elsewhere"]}'})
    let error: unknown
    try {
      readForInstall(root)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(LoadoutError)
    expect((error as LoadoutError).code).toBe('path-parent-segment')
  })
})
