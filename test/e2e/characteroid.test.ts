import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'vitest'
import type {SkillsValidation} from '../../src/core/ops/skills/validate-paths.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const sandbox = sandboxes()

describe('skills validate on CHARACTOID skill YAML', () => {
  it('exits 0 for a good skill YAML (file or folder of them) and 4 for a bad one, naming each problem', async ({expect}) => {
    const sb = sandbox()
    const good = join(sb.dir, 'good')
    const bad = join(sb.dir, 'bad')
    mkdirSync(good)
    mkdirSync(bad)
    const goodFile = join(good, 'pdf-tools.yaml')
    const badFile = join(bad, 'broken.yml')
    writeFileSync(goodFile, 'name: pdf-tools\ndescription: Reads PDF files.\ninstructions: |\n  Open the PDF and summarise it.\ntool_names:\n  - read_file\n')
    writeFileSync(badFile, 'name: Broken\ninstructions: ""\ntool_names: read_file\n')

    const [file, folder, failed, text] = await Promise.all([
      loadout(sb, ['skills', 'validate', goodFile, '--json']),
      loadout(sb, ['skills', 'validate', good, '--json']),
      loadout(sb, ['skills', 'validate', badFile, '--json']),
      loadout(sb, ['skills', 'validate', badFile]),
    ])
    for (const ok of [file, folder]) {
      expect(ok.status, ok.stdout + ok.stderr).toBe(0)
      expect(ok.json<SkillsValidation>()).toEqual({
        strict: false,
        valid: true,
        errors: 0,
        warnings: 0,
        problems: [],
        skills: [{path: goodFile, name: 'pdf-tools', valid: true, problems: []}],
      })
    }

    expect(failed.status).toBe(4)
    const error = jsonError(failed)
    expect(error).toMatchObject({code: 'validation-failed', exitStatus: 4, message: expect.stringContaining('4 error(s)')})
    expect((error.details as SkillsValidation).skills).toEqual([
      {
        path: badFile,
        name: 'Broken',
        valid: false,
        problems: [
          {severity: 'error', code: 'characteroid-field-missing', file: badFile, path: 'description', message: 'the required field "description" is missing'},
          {severity: 'error', code: 'characteroid-field-empty', file: badFile, path: 'instructions', message: '"instructions" is empty'},
          {severity: 'error', code: 'characteroid-field-type', file: badFile, path: 'tool_names', message: '"tool_names" must be a list, not a string'},
          {
            severity: 'error',
            code: 'name-uppercase',
            file: badFile,
            path: 'name',
            message: 'name "Broken" has upper-case letters; use lowercase letters, digits and hyphens',
          },
        ],
      },
    ])
    expect(text.status).toBe(4)
    expect(text.stderr).toContain(`FAIL Broken ${badFile}`)
    expect(text.stderr).toContain(`error name-uppercase ${badFile} name`)
  })
})

describe('CHARACTOID skills written by loadout', () => {
  it("install carries a skill's allowed-tools into tool_names, and the file validates", async ({expect}) => {
    const sb = sandbox()
    const root = join(sb.dir, 'tools')
    mkdirSync(join(root, 'skills', 'fetcher'), {recursive: true})
    writeFileSync(
      join(root, 'skills', 'fetcher', 'SKILL.md'),
      '---\nname: fetcher\ndescription: Fetches pages.\nallowed-tools: web_search read_file Bash(git log:*)\n---\n\nFetch the page.\n',
    )
    const installed = await loadout(sb, ['install', root, '--agent', 'characteroid', '--scope', 'user', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    const file = join(sb.home, '.characteroid', 'skills', 'fetcher.yaml')
    expect(readFileSync(file, 'utf8')).toBe(
      'name: fetcher\ndescription: Fetches pages.\ninstructions: |\n  Fetch the page.\ntool_names:\n  - web_search\n  - read_file\n  - Bash(git log:*)\n',
    )
    const validated = await loadout(sb, ['skills', 'validate', file, '--strict', '--json'])
    expect(validated.status, validated.stdout).toBe(0)
  })

  it('skills create --agent characteroid writes one YAML skill that lists and validates', async ({expect}) => {
    const sb = sandbox()
    const created = await loadout(sb, [
      'skills',
      'create',
      'take-notes',
      '--agent',
      'characteroid',
      '--scope',
      'user',
      '--description',
      'Takes notes.',
      '--json',
    ])
    expect(created.status, created.stdout + created.stderr).toBe(0)
    const file = join(sb.home, '.characteroid', 'skills', 'take-notes.yaml')
    expect(created.json().destinations).toEqual([{agents: ['characteroid'], path: file, replaced: false}])
    expect(readFileSync(file, 'utf8')).toMatch(/^name: take-notes\ndescription: Takes notes\.\ninstructions: \|\n {2}# Take Notes\n/)
    expect(existsSync(join(sb.home, '.characteroid', 'skills', 'take-notes'))).toBe(false)
    const [validated, listed, again] = await Promise.all([
      loadout(sb, ['skills', 'validate', file, '--strict', '--json']),
      loadout(sb, ['skills', 'list', '--agent', 'characteroid', '--scope', 'user', '--json']),
      loadout(sb, ['skills', 'create', 'take-notes', '--agent', 'characteroid', '--scope', 'user', '--json']),
    ])
    expect(validated.status, validated.stdout).toBe(0)
    expect(listed.json().skills).toMatchObject([{agent: 'characteroid', name: 'take-notes', path: file, valid: true}])
    expect(again.status).toBe(5)
    expect(jsonError(again).code).toBe('skill-exists')
  })
})
