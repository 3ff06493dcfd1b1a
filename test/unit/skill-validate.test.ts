import {mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {hasErrors, type Problem} from '../../src/core/model/problems.js'
import {parseYamlMapping, splitFrontmatter} from '../../src/core/kernel/text/frontmatter.js'
import {checkSkillName, MAX_SKILL_NAME} from '../../src/core/kernel/skills/name.js'
import {MAX_SKILL_FILE_BYTES, readSkillDir} from '../../src/core/kernel/skills/read.js'
import {MAX_COMPATIBILITY, MAX_DESCRIPTION, parseSkillText} from '../../src/core/kernel/skills/validate.js'
import type {SkillDialect} from '../../src/core/kernel/targets/types.js'

const FILE = '/skills/pdf-tools/SKILL.md'

/** Every problem must say what broke (code), where (file) and why (message). */
const expectWellFormed = (problems: readonly Problem[], file = FILE) => {
  for (const p of problems) {
    expect(p.code, JSON.stringify(p)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    expect(p.file, JSON.stringify(p)).toBe(file)
    expect(p.message.trim().length, JSON.stringify(p)).toBeGreaterThan(0)
    expect(['error', 'warning']).toContain(p.severity)
  }
}

const parse = (text: string, folder = 'pdf-tools', dialect: SkillDialect = 'spec') => {
  const parsed = parseSkillText(text, folder, FILE, dialect)
  expectWellFormed(parsed.problems)
  return parsed
}

const codes = (problems: readonly Problem[], severity?: Problem['severity']) =>
  problems.filter((p) => severity === undefined || p.severity === severity).map((p) => p.code)

/** A valid SKILL.md with the given extra frontmatter lines (raw YAML). */
const skill = (extra = '', {name = 'pdf-tools', description = 'Fill and merge PDF forms.'} = {}) =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}${extra && !extra.endsWith('\n') ? '\n' : ''}---\n# PDF tools\n\nBody.\n`

describe('frontmatter placement and fences', () => {
  it('accepts a well-formed skill with no problems at all', () => {
    const parsed = parse(skill())
    expect(parsed.problems).toEqual([])
    expect(parsed.name).toBe('pdf-tools')
    expect(parsed.description).toBe('Fill and merge PDF forms.')
    expect(parsed.body).toBe('# PDF tools\n\nBody.\n')
    expect(parsed.fallback).toBe(false)
  })

  it('refuses frontmatter after a leading blank line', () => {
    const parsed = parse(`\n${skill()}`)
    expect(codes(parsed.problems)).toEqual(['frontmatter-not-at-start'])
    expect(parsed.problems[0]!.severity).toBe('error')
  })

  it('refuses frontmatter after leading spaces', () => {
    expect(codes(parse(`  ${skill()}`).problems)).toEqual(['frontmatter-not-at-start'])
  })

  it('refuses frontmatter after a byte order mark', () => {
    expect(codes(parse(`\uFEFF${skill()}`).problems)).toEqual(['frontmatter-not-at-start'])
    expect(splitFrontmatter(`\uFEFF${skill()}`).kind).toBe('not-at-start')
  })

  it('reports a missing frontmatter as an error in the spec dialect', () => {
    const parsed = parse('# PDF tools\n\nFill forms.\n')
    expect(codes(parsed.problems, 'error')).toEqual(['frontmatter-missing'])
    expect(parsed.name).toBeUndefined()
    expect(hasErrors(parsed.problems)).toBe(true)
  })

  it('reports an empty file as a missing frontmatter', () => {
    expect(codes(parse('').problems)).toEqual(['frontmatter-missing'])
  })

  it('refuses a frontmatter that never closes', () => {
    expect(codes(parse('---\nname: pdf-tools\ndescription: x\n').problems)).toEqual(['frontmatter-unclosed'])
    expect(codes(parse('---\n').problems)).toEqual(['frontmatter-unclosed'])
  })

  it('does not take a longer rule (----) or an indented --- for the closing fence', () => {
    expect(splitFrontmatter('---\nname: a\n----\nbody\n').kind).toBe('unclosed')
    expect(splitFrontmatter('---\nname: a\n ---\nbody\n').kind).toBe('unclosed')
  })

  it('accepts a closing fence at the end of the file with no newline', () => {
    const parsed = parse('---\nname: pdf-tools\ndescription: Fill forms.\n---')
    expect(parsed.problems).toEqual([])
    expect(parsed.body).toBe('')
  })

  it('closes at the first --- line, leaving later rules in the body', () => {
    const split = splitFrontmatter('---\nname: a\n---\nintro\n---\nmore\n')
    expect(split).toMatchObject({kind: 'ok', yaml: 'name: a\n', body: 'intro\n---\nmore\n'})
  })

  it('reads a CRLF file the same as an LF one', () => {
    const crlf = skill('license: MIT').replaceAll('\n', '\r\n')
    const parsed = parse(crlf)
    expect(parsed.problems).toEqual([])
    expect(parsed.name).toBe('pdf-tools')
    expect(parsed.description).toBe('Fill and merge PDF forms.')
    expect(parsed.frontmatter).toMatchObject({license: 'MIT'})
    expect(parsed.body).toBe('# PDF tools\r\n\r\nBody.\r\n')
  })

  it('reports an unclosed CRLF frontmatter', () => {
    expect(codes(parse('---\r\nname: pdf-tools\r\n').problems)).toEqual(['frontmatter-unclosed'])
  })

  it('gives the body offset of the split', () => {
    const text = '---\nname: a\n---\nbody'
    const split = splitFrontmatter(text)
    expect(split.kind).toBe('ok')
    if (split.kind === 'ok') expect(text.slice(split.bodyStart)).toBe('body')
  })
})

describe('frontmatter YAML', () => {
  it('refuses an empty frontmatter', () => {
    expect(codes(parse('---\n---\nbody\n').problems)).toEqual(['frontmatter-empty'])
    expect(codes(parse('---\n\n   \n---\nbody\n').problems)).toEqual(['frontmatter-empty'])
    expect(codes(parse('---\n# only a comment\n---\nbody\n').problems)).toEqual(['frontmatter-empty'])
  })

  it('refuses a list', () => {
    const parsed = parse('---\n- name\n- description\n---\nbody\n')
    expect(codes(parsed.problems)).toEqual(['frontmatter-not-mapping'])
    expect(parsed.problems[0]!.message).toContain('a list')
  })

  it('refuses a scalar', () => {
    expect(codes(parse('---\njust a sentence\n---\nbody\n').problems)).toEqual(['frontmatter-not-mapping'])
    expect(codes(parse('---\n42\n---\nbody\n').problems)).toEqual(['frontmatter-not-mapping'])
  })

  it('refuses duplicate keys', () => {
    const parsed = parse('---\nname: pdf-tools\nname: other\ndescription: x\n---\n')
    expect(codes(parsed.problems)).toEqual(['frontmatter-yaml-invalid'])
    expect(parsed.problems[0]!.message).toMatch(/unique/i)
    expect(parseYamlMapping('a: 1\na: 2\n').ok).toBe(false)
  })

  it('refuses YAML that does not parse', () => {
    const parsed = parse('---\nname: [pdf-tools\ndescription: x\n---\n')
    expect(codes(parsed.problems)).toEqual(['frontmatter-yaml-invalid'])
  })

  it('refuses an alias bomb instead of expanding it', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 1; i < 12; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(', ')}]`,
      )
    const yaml = `${lines.join('\n')}\n`
    const result = parseYamlMapping(yaml)
    expect(result).toMatchObject({ok: false, code: 'frontmatter-yaml-invalid'})
    expect(codes(parse(`---\nname: pdf-tools\ndescription: x\n${yaml}---\n`).problems)).toEqual(['frontmatter-yaml-invalid'])
  })

  it('returns the mapping', () => {
    expect(parseYamlMapping('name: a\nmetadata:\n  k: v\n')).toEqual({ok: true, value: {name: 'a', metadata: {k: 'v'}}})
  })
})

describe('skill names', () => {
  const broken = (name: string) => checkSkillName(name)?.code

  it('accepts lowercase letters, digits and single hyphens, 1 to 64 characters', () => {
    for (const name of ['a', 'pdf', 'pdf-tools', 'v2', '3d-print', 'a-b-c-d', 'x'.repeat(MAX_SKILL_NAME)]) {
      expect(checkSkillName(name), name).toBeUndefined()
    }
  })

  it.each([
    ['', 'name-empty'],
    ['x'.repeat(65), 'name-too-long'],
    ['..', 'name-has-dotdot'],
    ['a..b', 'name-has-dotdot'],
    ['../escape', 'name-has-separator'],
    ['a/b', 'name-has-separator'],
    ['a\\b', 'name-has-separator'],
    ['.hidden', 'name-leading-dot'],
    ['PDF', 'name-uppercase'],
    ['Pdf-tools', 'name-uppercase'],
    ['pdf_tools', 'name-invalid-characters'],
    ['pdf tools', 'name-invalid-characters'],
    ['pdf.tools', 'name-invalid-characters'],
    ['pdf:tools', 'name-invalid-characters'],
    ['é', 'name-invalid-characters'],
    ['-pdf', 'name-edge-hyphen'],
    ['pdf-', 'name-edge-hyphen'],
    ['-', 'name-edge-hyphen'],
    ['pdf--tools', 'name-double-hyphen'],
  ])('refuses %j with %s', (name, code) => {
    const result = checkSkillName(name)
    expect(result?.code).toBe(code)
    expect(result!.message).toContain(`"${name}"`)
  })

  it('checks the NFKC form: full-width separators and dots are caught', () => {
    expect(broken('ａ／ｂ')).toBe('name-has-separator')
    expect(broken('．．')).toBe('name-has-dotdot')
    expect(broken('．hidden')).toBe('name-leading-dot')
    expect(broken('ＰＤＦ')).toBe('name-uppercase')
  })

  it('counts the length after NFKC, and then requires the name to be its NFKC form', () => {
    // U+FB00 (the "ff" ligature) is two letters after NFKC
    expect(broken('\uFB00'.repeat(32))).toBe('name-not-normalized')
    expect(broken('\uFB00'.repeat(33))).toBe('name-too-long')
    expect(broken('ｍy-skill')).toBe('name-not-normalized')
  })
})

describe('the name field and its folder', () => {
  it('requires a name', () => {
    const parsed = parse('---\ndescription: Fill forms.\n---\n')
    expect(codes(parsed.problems)).toEqual(['name-missing'])
  })

  it('requires a string name', () => {
    expect(codes(parse(skill('', {name: '42'}), '42').problems)).toEqual(['name-not-string'])
    expect(codes(parse(skill('', {name: '[a, b]'})).problems)).toEqual(['name-not-string'])
    expect(codes(parse(skill('', {name: '~'})).problems)).toEqual(['name-not-string'])
  })

  it('reports an empty name', () => {
    expect(codes(parse(skill('', {name: '""'})).problems)).toEqual(['name-empty'])
  })

  it.each([
    ['../escape', 'name-has-separator'],
    ['.hidden', 'name-leading-dot'],
    ['Pdf-Tools', 'name-uppercase'],
    ['a..b', 'name-has-dotdot'],
    ['x'.repeat(65), 'name-too-long'],
  ])('reports the broken name rule for %j, once', (name, code) => {
    const parsed = parse(skill('', {name: JSON.stringify(name)}), name)
    expect(codes(parsed.problems)).toEqual([code])
  })

  it('requires the name to equal the folder name', () => {
    const parsed = parse(skill(), 'pdf-tool')
    expect(codes(parsed.problems)).toEqual(['name-folder-mismatch'])
    expect(parsed.problems[0]!.message).toContain('pdf-tool')
  })

  it('compares the name and the folder after NFKC, but the name itself must be its NFKC form', () => {
    // a full-width folder name holding the ASCII name, and the other way round
    expect(parse(skill(), 'ｐｄｆ-tools').problems).toEqual([])
    expect(codes(parse(skill('', {name: 'ｐｄｆ-ｔｏｏｌｓ'}), 'pdf-tools').problems)).toEqual(['name-not-normalized'])
    expect(codes(parse(skill('', {name: 'ｐｄｆ-ｔｏｏｌ'}), 'pdf-tools').problems)).toEqual(['name-not-normalized'])
  })

  it('does not fold case when comparing with the folder', () => {
    expect(codes(parse(skill(), 'PDF-tools').problems)).toEqual(['name-folder-mismatch'])
  })
})

describe('the description', () => {
  it('is required', () => {
    expect(codes(parse('---\nname: pdf-tools\n---\n').problems)).toEqual(['description-missing'])
  })

  it('must be a non-empty string', () => {
    expect(codes(parse(skill('', {description: '""'})).problems)).toEqual(['description-empty'])
    expect(codes(parse(skill('', {description: '"   "'})).problems)).toEqual(['description-empty'])
    expect(codes(parse(skill('', {description: '12'})).problems)).toEqual(['description-not-string'])
    expect(codes(parse(skill('', {description: '{a: b}'})).problems)).toEqual(['description-not-string'])
  })

  it(`may be ${MAX_DESCRIPTION} characters but not one more`, () => {
    expect(MAX_DESCRIPTION).toBe(1024)
    expect(parse(skill('', {description: 'd'.repeat(1024)})).problems).toEqual([])
    const parsed = parse(skill('', {description: 'd'.repeat(1025)}))
    expect(codes(parsed.problems)).toEqual(['description-too-long'])
    expect(parsed.problems[0]!.message).toContain('1025')
  })

  it('counts characters, not UTF-16 code units', () => {
    // 1000 emoji are 1000 characters (2000 UTF-16 code units): within the limit
    expect(parse(skill('', {description: '😀'.repeat(1000)})).problems).toEqual([])
    expect(codes(parse(skill('', {description: '😀'.repeat(1025)})).problems)).toEqual(['description-too-long'])
  })

  it('reads a folded multi-line description', () => {
    const parsed = parse('---\nname: pdf-tools\ndescription: >-\n  Fill and merge\n  PDF forms.\n---\n')
    expect(parsed.problems).toEqual([])
    expect(parsed.description).toBe('Fill and merge PDF forms.')
  })
})

describe('optional fields', () => {
  it('accepts every field of the specification', () => {
    const parsed = parse(
      skill(
        [
          'license: Apache-2.0',
          'compatibility: Requires python3 and network access',
          'metadata:',
          '  author: acme',
          '  version: "1.0"',
          'allowed-tools: Bash(git:*) Read',
          'disable-model-invocation: true',
        ].join('\n'),
      ),
    )
    expect(parsed.problems).toEqual([])
    expect(parsed.frontmatter).toMatchObject({metadata: {author: 'acme', version: '1.0'}, 'disable-model-invocation': true})
  })

  it(`limits compatibility to ${MAX_COMPATIBILITY} characters`, () => {
    expect(MAX_COMPATIBILITY).toBe(500)
    expect(parse(skill(`compatibility: ${'c'.repeat(500)}`)).problems).toEqual([])
    expect(codes(parse(skill(`compatibility: ${'c'.repeat(501)}`)).problems)).toEqual(['compatibility-too-long'])
    expect(codes(parse(skill('compatibility: [node]')).problems)).toEqual(['compatibility-not-string'])
    expect(parse(skill(`compatibility: ${'😀'.repeat(500)}`)).problems).toEqual([])
    expect(codes(parse(skill(`compatibility: ${'😀'.repeat(501)}`)).problems)).toEqual(['compatibility-too-long'])
  })

  it('requires a string license', () => {
    expect(codes(parse(skill('license: [MIT, Apache-2.0]')).problems)).toEqual(['license-not-string'])
  })

  it('requires metadata to be a map of strings', () => {
    expect(codes(parse(skill('metadata: [a, b]')).problems)).toEqual(['metadata-not-map'])
    expect(codes(parse(skill('metadata: a string')).problems)).toEqual(['metadata-not-map'])
    expect(codes(parse(skill('metadata:')).problems)).toEqual(['metadata-not-map'])
    const parsed = parse(skill('metadata:\n  version: 1.0\n  author: acme\n  tags: [a]'))
    expect(codes(parsed.problems)).toEqual(['metadata-value-not-string', 'metadata-value-not-string'])
    expect(parsed.problems.map((p) => p.message).join(' ')).toMatch(/"version".*"tags"/)
  })

  it('accepts allowed-tools as a string or a list of strings, nothing else', () => {
    expect(parse(skill('allowed-tools: Read Grep')).problems).toEqual([])
    expect(parse(skill('allowed-tools: [Read, Grep]')).problems).toEqual([])
    expect(parse(skill('allowed-tools: []')).problems).toEqual([])
    expect(codes(parse(skill('allowed-tools: [Read, 3]')).problems)).toEqual(['allowed-tools-invalid'])
    expect(codes(parse(skill('allowed-tools: 3')).problems)).toEqual(['allowed-tools-invalid'])
    expect(codes(parse(skill('allowed-tools: {Read: yes}')).problems)).toEqual(['allowed-tools-invalid'])
    expect(codes(parse(skill('allowed-tools:')).problems)).toEqual(['allowed-tools-invalid'])
  })

  it('requires disable-model-invocation to be a boolean', () => {
    expect(parse(skill('disable-model-invocation: false')).problems).toEqual([])
    expect(codes(parse(skill('disable-model-invocation: "true"')).problems)).toEqual(['disable-model-invocation-not-boolean'])
    expect(codes(parse(skill('disable-model-invocation: yes')).problems)).toEqual(['disable-model-invocation-not-boolean'])
    expect(codes(parse(skill('disable-model-invocation: 1')).problems)).toEqual(['disable-model-invocation-not-boolean'])
  })

  it('reports every broken rule, not only the first', () => {
    const parsed = parse('---\nname: Bad\ndescription: ""\nlicense: 3\nmetadata: []\n---\n', 'bad')
    expect(codes(parsed.problems).sort()).toEqual(['description-empty', 'license-not-string', 'metadata-not-map', 'name-uppercase'])
  })
})

describe('unknown fields', () => {
  it('are warnings, which fail only under strict', () => {
    const parsed = parse(skill('version: 2\nauthor: someone'))
    expect(codes(parsed.problems, 'warning')).toEqual(['field-unknown', 'field-unknown'])
    expect(codes(parsed.problems, 'error')).toEqual([])
    expect(parsed.problems.map((p) => p.message).join(' ')).toMatch(/"version".*"author"/)
    expect(hasErrors(parsed.problems)).toBe(false)
    expect(hasErrors(parsed.problems, true)).toBe(true)
  })

  it('a clean skill passes under strict too', () => {
    expect(hasErrors(parse(skill()).problems, true)).toBe(false)
  })

  it('hasErrors sees an error whether strict or not', () => {
    const problems = parse(skill('', {description: '""'})).problems
    expect(hasErrors(problems)).toBe(true)
    expect(hasErrors(problems, true)).toBe(true)
    expect(hasErrors([])).toBe(false)
  })
})

describe('the cst-agent dialect', () => {
  it('falls back to the folder name and the first non-heading line when there is no frontmatter', () => {
    const parsed = parse('# PDF tools\n\n## Usage\n\nFill and merge PDF forms.\nMore text.\n', 'pdf-tools', 'cst-agent')
    expect(parsed.fallback).toBe(true)
    expect(parsed.name).toBe('pdf-tools')
    expect(parsed.description).toBe('Fill and merge PDF forms.')
    expect(codes(parsed.problems, 'error')).toEqual([])
    expect(codes(parsed.problems, 'warning')).toEqual(['frontmatter-missing-fallback'])
    expect(hasErrors(parsed.problems)).toBe(false)
  })

  it('reads the fallback description from a CRLF file', () => {
    const parsed = parse('# Title\r\n\r\n  Does the thing.  \r\n', 'pdf-tools', 'cst-agent')
    expect(parsed.description).toBe('Does the thing.')
  })

  it('is an error when there is no line to use as the description', () => {
    for (const text of ['# Only a heading\n\n## And another\n', '', '\n\n   \n']) {
      const parsed = parse(text, 'pdf-tools', 'cst-agent')
      expect(parsed.fallback).toBe(true)
      expect(codes(parsed.problems, 'error')).toEqual(['description-missing'])
    }
  })

  it('still applies every rule when the skill has frontmatter', () => {
    const parsed = parse(skill('', {name: 'other'}), 'pdf-tools', 'cst-agent')
    expect(parsed.fallback).toBe(false)
    expect(codes(parsed.problems)).toEqual(['name-folder-mismatch'])
  })

  it('does not excuse a misplaced or unclosed frontmatter', () => {
    expect(codes(parse(`\n${skill()}`, 'pdf-tools', 'cst-agent').problems)).toEqual(['frontmatter-not-at-start'])
    expect(codes(parse('---\nname: pdf-tools\n', 'pdf-tools', 'cst-agent').problems)).toEqual(['frontmatter-unclosed'])
  })
})

describe('reading a skill folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'loadout-skill-read-'))
  afterAll(() => rmSync(root, {recursive: true, force: true}))

  it('names the SKILL.md file in every problem', () => {
    const dir = join(root, 'pdf-tools')
    mkdirSync(dir)
    writeFileSync(join(dir, 'SKILL.md'), skill('extra: 1', {name: 'other'}))
    const read = readSkillDir(dir)
    expectWellFormed(read.problems, join(dir, 'SKILL.md'))
    expect(codes(read.problems).sort()).toEqual(['field-unknown', 'name-folder-mismatch'])
  })

  it('refuses a SKILL.md over 10 MB before reading it', () => {
    const dir = join(root, 'huge')
    mkdirSync(dir)
    const file = join(dir, 'SKILL.md')
    writeFileSync(file, '')
    truncateSync(file, MAX_SKILL_FILE_BYTES + 1)
    const read = readSkillDir(dir)
    expect(codes(read.problems)).toEqual(['skill-file-too-large'])
    expectWellFormed(read.problems, file)
  })

  it('refuses a SKILL.md that links out of its folder', () => {
    const outside = join(root, 'secret.md')
    writeFileSync(outside, skill('', {name: 'linked'}))
    const dir = join(root, 'linked')
    mkdirSync(dir)
    symlinkSync(outside, join(dir, 'SKILL.md'))
    const read = readSkillDir(dir)
    expect(codes(read.problems)).toEqual(['skill-file-link-outside'])
    expect(read.frontmatter).toBeUndefined()
  })

  it('reports a missing SKILL.md', () => {
    const dir = join(root, 'empty')
    mkdirSync(dir)
    expect(codes(readSkillDir(dir).problems)).toEqual(['skill-file-missing'])
  })
})
