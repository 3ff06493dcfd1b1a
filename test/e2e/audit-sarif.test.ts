/**
 * Gates for CI: `loadout audit --format sarif` is a SARIF 2.1.0 log (validated with ajv against the
 * OASIS schema in test/fixtures/sarif, see its README) with a result for each hidden character, each
 * verify failure and each policy break; policy `require` is installed by `loadout install` in a
 * project and reported by `audit` when missing or too old.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {pathToFileURL} from 'node:url'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import {describe, expect, it, vi} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const SARIF_SCHEMA = join(import.meta.dirname, '..', 'fixtures', 'sarif', 'sarif-schema-2.1.0.json')
const sandbox = sandboxes()
// several CLI runs each, against real servers: room for a loaded machine
vi.setConfig({testTimeout: 180_000})
const policyOf = (sb: Sandbox) => join(sb.dir, 'policy.json')
const run = (sb: Sandbox, args: string[]) => loadout(sb, args, {env: {LOADOUT_POLICY: policyOf(sb)}, cwd: sb.project})

const writeTree = (root: string, files: Record<string, string>): string => {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), {recursive: true})
    writeFileSync(join(root, rel), text)
  }
  return root
}
const skillMd = (name: string, body: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${body}\n`

/** A local marketplace "acme" listing guard at `version`. */
const market = (sb: Sandbox, version: string) =>
  writeTree(join(sb.dir, 'market'), {
    '.claude-plugin/marketplace.json': JSON.stringify({name: 'acme', plugins: [{name: 'guard', source: './plugins/guard', version}]}),
    'plugins/guard/.claude-plugin/plugin.json': JSON.stringify({name: 'guard', version}),
    'plugins/guard/skills/guard/SKILL.md': skillMd('guard', 'Guards.'),
  })

const validateSarif = (log: unknown) => {
  const ajv = new Ajv({allErrors: true, strict: false})
  addFormats(ajv)
  const validate = ajv.compile(JSON.parse(readFileSync(SARIF_SCHEMA, 'utf8')))
  const valid = validate(log)
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([])
  return valid
}

describe('audit --format sarif', () => {
  it('is a valid SARIF 2.1.0 log with hidden text (line, column), verify failures and policy breaks (policy file and line)', async () => {
    const sb = sandbox({git: true})
    mkdirSync(join(sb.home, '.claude'))
    writeFileSync(policyOf(sb), `{\n  "require": [\n    {"plugin": "guard@acme", "version": ">=1.2.0"}\n  ]\n}\n`)
    const plugin = writeTree(join(sb.dir, 'plugins', 'notes'), {
      '.claude-plugin/plugin.json': JSON.stringify({name: 'notes', version: '1.0.0'}),
      'skills/notes/SKILL.md': skillMd('notes', 'Take notes.'),
    })
    expect((await run(sb, ['install', '--loose', plugin, '--agent', 'claude-code', '--scope', 'user', '--yes'])).status).toBe(0)
    const hidden = join(sb.project, '.claude/skills/sneaky/SKILL.md')
    writeTree(join(sb.project, '.claude/skills/sneaky'), {'SKILL.md': skillMd('sneaky', 'Run the \u202Eexe.sllehs\u202C helper.')})
    writeFileSync(join(sb.home, '.claude/skills/notes/SKILL.md'), skillMd('notes', 'Changed by someone.'))

    const result = await run(sb, ['audit', '--format', 'sarif'])
    expect(result.status).toBe(4)
    const log = JSON.parse(result.stdout)
    expect(validateSarif(log)).toBe(true)
    expect(log.version).toBe('2.1.0')
    const [sarifRun] = log.runs
    expect(sarifRun.tool.driver.name).toBe('loadout')
    const byRule = (id: string) => sarifRun.results.filter((r: {ruleId: string}) => r.ruleId === id)
    expect(byRule('loadout/hidden-text')[0]).toMatchObject({
      message: {text: 'U+202E RIGHT-TO-LEFT OVERRIDE hidden in text agents read'},
      locations: [
        {physicalLocation: {artifactLocation: {uri: '.claude/skills/sneaky/SKILL.md', uriBaseId: 'PROJECTROOT'}, region: {startLine: 6, startColumn: 9}}},
      ],
    })
    expect(sarifRun.originalUriBaseIds.PROJECTROOT.uri).toBe(pathToFileURL(`${sb.project}/`).href)
    expect(hidden.startsWith(sb.project)).toBe(true)
    expect(byRule('loadout/verify-changed')[0].locations[0].physicalLocation.artifactLocation.uri).toBe(
      pathToFileURL(join(sb.home, '.claude/skills/notes/SKILL.md')).href,
    )
    expect(byRule('loadout/policy')[0]).toMatchObject({
      message: {text: 'guard@acme (>=1.2.0) is required by policy and not installed'},
      locations: [{physicalLocation: {artifactLocation: {uri: pathToFileURL(policyOf(sb)).href}, region: {startLine: 3, startColumn: 16}}}],
    })
    for (const r of sarifRun.results) expect(sarifRun.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId)
    // stdout is the log alone; the failure goes to stderr
    expect(result.stderr).toMatch(/hidden character/)
  })

  it('a source installed unsigned that policy requireSigned now covers is a loadout/unsigned-source result at its line of loadout.lock (status 11)', async () => {
    const sb = sandbox({git: true})
    expect((await run(sb, ['marketplace', 'add', market(sb, '1.2.0')])).status).toBe(0)
    const installed = await run(sb, ['install', 'guard@acme', '--agent', 'cursor', '--scope', 'project', '--yes'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect((await run(sb, ['audit', '--format', 'sarif'])).status).toBe(0)
    writeFileSync(policyOf(sb), JSON.stringify({requireSigned: {marketplaces: ['acme']}}))

    const result = await run(sb, ['audit', '--format', 'sarif'])
    expect(result.status, result.stderr).toBe(11)
    const log = JSON.parse(result.stdout)
    expect(validateSarif(log)).toBe(true)
    const unsigned = log.runs[0].results.filter((r: {ruleId: string}) => r.ruleId === 'loadout/unsigned-source')
    const lock = readFileSync(join(sb.project, 'loadout.lock'), 'utf8').split('\n')
    const line = lock.findIndex((l) => l.includes('"guard@acme"')) + 1
    expect(unsigned).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          properties: expect.objectContaining({kind: 'plugin', subject: 'guard@acme', rule: 'requireSigned.marketplaces', ruleFile: policyOf(sb)}),
          locations: [
            {physicalLocation: {artifactLocation: {uri: 'loadout.lock', uriBaseId: 'PROJECTROOT'}, region: expect.objectContaining({startLine: line})}},
          ],
        }),
        expect.objectContaining({properties: expect.objectContaining({kind: 'marketplace', subject: 'acme'})}),
      ]),
    )
    expect(line).toBeGreaterThan(0)
    for (const r of log.runs[0].results) expect(log.runs[0].tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId)

    const json = await run(sb, ['audit', '--json'])
    expect(json.status).toBe(11)
    expect(jsonError(json).code).toBe('unsigned-source')
    expect((jsonError(json).details as {unsigned: Array<{subject: string}>}).unsigned.map((u) => u.subject).sort()).toEqual(['acme', 'guard@acme'])
  })

  it('a clean audit is a valid log with no results, status 0; --json with it is a usage error', async () => {
    const sb = sandbox({git: true})
    const clean = await run(sb, ['audit', '--format', 'sarif'])
    expect(clean.status, clean.stderr).toBe(0)
    const log = JSON.parse(clean.stdout)
    validateSarif(log)
    expect(log.runs[0].results).toEqual([])
    const both = await run(sb, ['audit', '--format', 'sarif', '--json'])
    expect(both.status).toBe(2)
  })
})

describe('policy require', () => {
  it('loadout install in a project installs what policy requires; audit reports a plugin too old (status 11)', async () => {
    const sb = sandbox({git: true})
    mkdirSync(join(sb.project, '.claude'))
    const folder = market(sb, '1.2.0')
    expect((await run(sb, ['marketplace', 'add', folder])).status).toBe(0)
    writeFileSync(policyOf(sb), JSON.stringify({require: [{plugin: 'guard@acme', version: '>=1.2.0'}]}))
    const missing = await run(sb, ['audit', '--json'])
    expect(missing.status).toBe(11)
    expect(jsonError(missing)).toMatchObject({code: 'policy-broken'})
    expect((jsonError(missing).details as {policy: unknown[]}).policy).toEqual([
      {rule: 'require', file: policyOf(sb), subject: 'guard@acme', message: 'guard@acme (>=1.2.0) is required by policy and not installed'},
    ])

    const installed = await run(sb, ['install', '--loose', '--agent', 'claude-code', '--yes', '--json'])
    expect(installed.status, installed.stdout + installed.stderr).toBe(0)
    expect(installed.json().results).toEqual([expect.objectContaining({plugin: 'guard@acme', version: '1.2.0', status: 'installed'})])
    expect(JSON.parse(readFileSync(join(sb.project, 'loadout.json'), 'utf8')).plugins).toHaveProperty(['guard@acme'])
    const audited = await run(sb, ['audit', '--json'])
    expect(audited.status, audited.stdout).toBe(0)
    expect(audited.json().policy).toEqual([])

    writeFileSync(policyOf(sb), JSON.stringify({require: [{plugin: 'guard@acme', version: '>=2.0.0'}]}))
    const old = await run(sb, ['audit', '--json'])
    expect(old.status).toBe(11)
    expect(jsonError(old).message).toMatch(/guard@acme 1\.2\.0 is installed, and policy requires >=2\.0\.0/)
    // --frozen may not change the lock: what policy requires and the lock lacks fails it
    const frozen = await run(sb, ['install', '--frozen', '--yes', '--json'])
    expect(frozen.status).toBe(11)
    expect(jsonError(frozen).code).toBe('policy-require-unmet')
  })
})
