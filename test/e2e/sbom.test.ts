/**
 * `loadout sbom`: plugins installed from a real git server (user scope) and from a folder (project
 * scope) come out as a CycloneDX 1.6 document that the CycloneDX library's own strict validator
 * accepts, and as an SPDX 2.3 document valid against the published SPDX 2.3 JSON schema
 * (test/fixtures/spdx, see its README) — each listing every recorded file with its sha256.
 */
import {Spec, Validation} from '@cyclonedx/cyclonedx-library'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import {mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, relative} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Sandbox} from '../support/cli.js'
import {startGitHttpsServer, type GitHttpsServer} from '../support/git-http.js'
import {makeServedRepo} from '../support/git-repos.js'
import {jsonError, loadout, sandboxes} from './helpers.js'

const SPDX_SCHEMA = join(import.meta.dirname, '..', 'fixtures', 'spdx', 'spdx-2.3.schema.json')
const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\nBody of ${name}.\n`

let work: string
let server: GitHttpsServer
let sb: Sandbox
let commit: string
const sandbox = sandboxes()
const run = (args: string[]) => loadout(sb, args, {env: {...server.trustEnv(), LOADOUT_POLICY: join(sb.dir, 'no-policy.json')}})

interface RecordedFile {
  path: string
  sha256: string
}
/** Every file the records say loadout wrote: user state (absolute paths) and the project lock (relative). */
const recordedFiles = (): Array<{path: string; sha256: string}> => {
  const user = JSON.parse(readFileSync(join(sb.home, '.config/loadout/state.json'), 'utf8')).installs as Array<{files: RecordedFile[]}>
  const project = JSON.parse(readFileSync(join(sb.project, 'loadout.lock'), 'utf8')).installs as Array<{files: RecordedFile[]}>
  return [
    ...user.flatMap((r) => r.files.map((f) => ({path: `~/${relative(sb.home, f.path)}`, sha256: f.sha256}))),
    ...project.flatMap((r) => r.files.map((f) => ({path: f.path, sha256: f.sha256}))),
  ]
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-sbom-')))
  server = await startGitHttpsServer({root: join(work, 'served')})
  commit = makeServedRepo(join(work, 'src'), join(work, 'served'), 'acme/kit', {
    '.claude-plugin/plugin.json': JSON.stringify({name: 'kit', version: '2.1.0'}),
    'skills/kit-one/SKILL.md': skill('kit-one'),
    'skills/kit-one/references/MORE.md': '# More\n',
    'agents/kit-agent.md': '---\nname: kit-agent\ndescription: Helps with kits.\n---\n\nYou help.\n',
  }).sha
  sb = sandbox({git: true})
  mkdirSync(join(sb.home, '.claude'))
  mkdirSync(join(sb.home, '.codex'))
  const local = join(sb.dir, 'plugins', 'notes')
  for (const [rel, text] of Object.entries({
    '.claude-plugin/plugin.json': JSON.stringify({name: 'notes', version: '0.3.0'}),
    'skills/notes/SKILL.md': skill('notes'),
  })) {
    mkdirSync(dirname(join(local, rel)), {recursive: true})
    writeFileSync(join(local, rel), text)
  }
  const user = await run(['install', '--loose', server.git.url('acme/kit'), '--agent', 'claude-code,codex', '--scope', 'user', '--json'])
  expect(user.status, user.stdout + user.stderr).toBe(0)
  const project = await run(['install', '--loose', local, '--agent', 'claude-code', '--scope', 'project', '--json'])
  expect(project.status, project.stdout + project.stderr).toBe(0)
})

afterAll(async () => {
  await server?.stop()
  rmSync(work, {recursive: true, force: true})
})

describe('loadout sbom --format cyclonedx', () => {
  it('is valid CycloneDX 1.6 JSON (the library strict validator) and lists every installed file with its sha256', async () => {
    const result = await run(['sbom', '--format', 'cyclonedx'])
    expect(result.status, result.stderr).toBe(0)
    const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6)
    expect(await validator.validate(result.stdout)).toBeNull()
    const bom = JSON.parse(result.stdout)
    expect(bom).toMatchObject({bomFormat: 'CycloneDX', specVersion: '1.6'})
    const kit = bom.components.find((c: {name: string}) => c.name === 'kit')
    expect(kit).toMatchObject({version: '2.1.0', group: 'direct', pedigree: {commits: [{uid: commit}]}})
    expect(kit.properties).toEqual(
      expect.arrayContaining([
        {name: 'loadout:scope', value: 'user'},
        {name: 'loadout:commit', value: commit},
        {name: 'loadout:targets', value: 'claude-code,codex'},
      ]),
    )
    expect(kit.properties.find((p: {name: string}) => p.name === 'loadout:integrity').value).toMatch(/^sha256-[0-9a-f]{64}$/)
    expect(bom.components.find((c: {name: string}) => c.name === 'notes')).toMatchObject({version: '0.3.0'})
    const listed = bom.components.flatMap((c: {components: Array<{name: string; hashes: Array<{content: string}>}>}) =>
      c.components.map((f) => ({path: f.name, sha256: f.hashes[0]!.content})),
    )
    const recorded = recordedFiles()
    expect(recorded.length).toBeGreaterThanOrEqual(5)
    expect(listed).toEqual(expect.arrayContaining(recorded))
    expect(listed).toHaveLength(recorded.length)
  })

  it('--scope project lists only the project install', async () => {
    const result = await run(['sbom', '--format', 'cyclonedx', '--scope', 'project'])
    expect(result.status).toBe(0)
    const bom = JSON.parse(result.stdout)
    expect(bom.components.map((c: {name: string}) => c.name)).toEqual(['notes'])
  })
})

describe('loadout sbom --format spdx', () => {
  it('is valid against the SPDX 2.3 JSON schema and lists every installed file with its sha256', async () => {
    const out = join(sb.dir, 'sbom.spdx.json')
    const result = await run(['sbom', '--format', 'spdx', '--out', out, '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json()).toMatchObject({format: 'spdx', out, plugins: 2, files: recordedFiles().length})
    const doc = JSON.parse(readFileSync(out, 'utf8'))
    const ajv = new Ajv({allErrors: true, strict: false})
    addFormats(ajv)
    const validate = ajv.compile(JSON.parse(readFileSync(SPDX_SCHEMA, 'utf8')))
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
    expect(doc).toMatchObject({spdxVersion: 'SPDX-2.3', dataLicense: 'CC0-1.0', SPDXID: 'SPDXRef-DOCUMENT'})
    const files = doc.files.map((f: {fileName: string; checksums: Array<{algorithm: string; checksumValue: string}>}) => ({
      path: f.fileName.replace(/^\.\//, ''),
      sha256: f.checksums.find((c) => c.algorithm === 'SHA256')!.checksumValue,
    }))
    expect(files).toEqual(expect.arrayContaining(recordedFiles()))
    const kit = doc.packages.find((p: {name: string}) => p.name === 'kit@direct')
    expect(kit.versionInfo).toBe('2.1.0')
    expect(kit.sourceInfo).toContain(commit)
    expect(kit.downloadLocation).toBe(`git+${server.git.url('acme/kit')}@${commit}`)
    const contains = doc.relationships.filter(
      (r: {relationshipType: string; spdxElementId: string}) => r.relationshipType === 'CONTAINS' && r.spdxElementId === kit.SPDXID,
    )
    expect(contains.length).toBeGreaterThan(0)
  })
})

describe('loadout sbom errors', () => {
  it('an unknown format is a usage error', async () => {
    const result = await run(['sbom', '--format', 'xml', '--json'])
    expect(result.status).toBe(2)
  })

  it('--out into a folder that does not exist is a usage error naming it', async () => {
    const result = await run(['sbom', '--format', 'spdx', '--out', join(sb.dir, 'missing', 'x.json'), '--json'])
    expect(result.status).toBe(2)
    expect(jsonError(result)).toMatchObject({code: 'out-folder-missing'})
  })
})
