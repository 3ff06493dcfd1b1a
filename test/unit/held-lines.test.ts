import {mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import type {Environment} from '../../src/core/kernel/env/environment.js'
import {heldOf, mayHold, jsonText} from '../../src/core/kernel/state/held-lines.js'
import {pathsRecordedBy, readInstallRecords, userStateFile, writeInstallRecords, type InstallRecord} from '../../src/core/kernel/state/records.js'
import {inheritCreated} from '../../src/core/ops/install/config-heirs.js'
import {seededRandom} from '../support/seeded.js'

// The user state's lines held unparsed (issue 27, kernel/state/held-lines.ts): what a command reads of
// held records, and what it writes back, must be what it reads and writes with every record parsed.

const homes: string[] = []
afterEach(() => {
  vi.restoreAllMocks()
  for (const home of homes.splice(0)) rmSync(home, {recursive: true, force: true})
})

const environment = (): {env: Environment; held: Environment; project: string} => {
  const home = mkdtempSync(join(tmpdir(), 'loadout-held-lines-'))
  homes.push(home)
  const project = join(home, 'project')
  mkdirSync(project)
  mkdirSync(join(home, '.loadout'))
  const env: Environment = {vars: {HOME: home, LOADOUT_HOME: join(home, '.loadout')}, home, cwd: project, platform: 'linux', interactive: false}
  return {env, held: {...env, holdRecordLines: true}, project}
}

/** The file as another process would leave it: the same bytes in a new file, so this process reads it anew. */
const rewrittenByAnother = (file: string, text = readFileSync(file, 'utf8')): void => {
  writeFileSync(`${file}.other`, text)
  renameSync(`${file}.other`, file)
}

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

const record = (plugin: string, target: string, home: string, extra: Partial<InstallRecord> = {}): InstallRecord => {
  const name = plugin.split('@')[0]!
  const skill = join(home, '.agents/skills', name)
  return {
    plugin,
    target,
    scope: 'user',
    source: `./plugins/${name}`,
    integrity: `sha256-${name}`,
    enabled: true,
    components: [`${plugin}/skill/s`],
    skipped: [],
    files: [{path: join(skill, 'SKILL.md'), sha256: 'ab'.repeat(32), component: `${plugin}/skill/s`}],
    dirs: [join(home, '.agents'), join(home, '.agents/skills'), skill],
    config: [],
    ...extra,
  }
}

/** Both readings of the same file: every record parsed, and held as its line. */
const bothReadings = (env: Environment, held: Environment, project: string): {parsed: InstallRecord[]; held: InstallRecord[]} => {
  const file = userStateFile(env)
  rewrittenByAnother(file)
  const parsed = readInstallRecords(env, project)
  rewrittenByAnother(file)
  return {parsed, held: readInstallRecords(held, project)}
}

/** Records of any text: non-ASCII, escapes, a raw U+2028, a relative path, config edits, optional fields. */
const variety = (home: string): InstallRecord[] => [
  record('a@m', 'codex', home),
  record('a@m', 'universal', home, {autoInstalled: true, dependencyOf: ['b@m'], range: '^1.0.0'}),
  record('b@m', 'claude-code', home, {
    config: [
      {
        component: 'b@m/mcp/b',
        file: join(home, '.claude.json'),
        format: 'json',
        path: ['mcpServers'],
        key: 'b',
        value: {command: 'b', env: {plugin: 'x'}},
        undo: {createdParents: 1},
        createdFile: false,
      } as never,
    ],
  }),
  record('c@m', 'codex', home, {skipped: [{component: 'c@m/skill/t', reason: 'naïve 😀 \u2028 "quoted" back\\slash'}]}),
  record('é@m', 'codex', home, {files: [{path: join(home, '.agents/skills/é/SKILL.md'), sha256: 'cd'.repeat(32)}]}),
  record('r@m', 'codex', home, {files: [{path: 'relative/SKILL.md', sha256: 'ef'.repeat(32)}], trees: [join(home, '.agents/skills/r')]}),
]

describe('records held as their lines', () => {
  it('read as the same records as when every line is parsed, and written back as the same bytes', () => {
    const {env, held, project} = environment()
    writeInstallRecords(env, project, 'user', variety(env.home))
    const text = readFileSync(userStateFile(env), 'utf8')
    const both = bothReadings(env, held, project)
    // the lines with an escape (c) or a second "plugin" (b's server's env) are parsed at once; the others are held
    expect(both.held.filter((r) => !heldOf(r)).map((r) => r.plugin)).toEqual(['b@m', 'c@m'])
    expect(both.held).toHaveLength(6)
    expect(both.held).toEqual(both.parsed)
    expect(plain(both.held)).toEqual(plain(both.parsed))
    writeInstallRecords(held, project, 'user', both.held)
    expect(readFileSync(userStateFile(env), 'utf8')).toBe(text)
  })

  it('parses nothing for the plugin, target and scope, nor for an optional field its line does not hold, and one line for its body', () => {
    const {env, held, project} = environment()
    writeInstallRecords(
      env,
      project,
      'user',
      Array.from({length: 20}, (_, i) => record(`p${String(i).padStart(2, '0')}@m`, 'codex', env.home)),
    )
    rewrittenByAnother(userStateFile(env))
    const parse = vi.spyOn(JSON, 'parse')
    const records = readInstallRecords(held, project)
    expect(records.map((r) => `${r.plugin} ${r.target} ${r.scope}`)).toContain('p07@m codex user')
    expect(records.map((r) => r.autoInstalled ?? r.dependencyOf ?? r.trees)).toEqual(Array.from({length: 20}, () => undefined))
    expect(parse).not.toHaveBeenCalled()
    expect(records[7]!.files[0]!.path).toBe(join(env.home, '.agents/skills/p07/SKILL.md'))
    expect(parse).toHaveBeenCalledTimes(1)
    // the spread copy is the whole record, parsed once
    expect({...records[7]!}).toEqual(record('p07@m', 'codex', env.home))
    expect(parse).toHaveBeenCalledTimes(1)
  })

  it('names the same shared paths of the installs going as parsed records do, without parsing the records that hold none of them', () => {
    const random = seededRandom(2027)
    for (let round = 0; round < 40; round++) {
      const {env, held, project} = environment()
      const home = env.home
      const folders = ['.agents/skills/s0', '.agents/skills/s1', '.claude/skills/s0', '.agents', '.claude/agents']
      const path = () => join(home, folders[random(folders.length)]!, random(3) === 0 ? '' : `f${random(4)}.md`)
      const records = Array.from({length: 8 + random(8)}, (_, i) =>
        record(`p${String(i).padStart(2, '0')}@m`, ['codex', 'universal'][random(2)]!, home, {
          files: Array.from({length: random(4)}, () => ({path: path(), sha256: 'ab'.repeat(32)})),
          dirs: Array.from({length: random(4)}, path),
          ...(random(4) === 0 ? {trees: [path()]} : {}),
        }),
      )
      writeInstallRecords(env, project, 'user', records)
      const both = bothReadings(env, held, project)
      const going = [random(both.parsed.length), random(both.parsed.length)]
      const split = (all: InstallRecord[]) => ({among: going.map((i) => all[i]!), remaining: all.filter((_, i) => !going.includes(i))})
      const parsed = split(both.parsed)
      const kept = split(both.held)
      expect(pathsRecordedBy(kept.remaining, kept.among)).toEqual(pathsRecordedBy(parsed.remaining, parsed.among))
      // a remaining record whose line names no asked path is still held unparsed
      const asked = new Set(parsed.among.flatMap((r) => [...r.files.map((f) => f.path), ...r.dirs, ...(r.trees ?? [])]))
      kept.remaining.forEach((r, i) => {
        const named = [...asked].some((p) => JSON.stringify(plain(parsed.remaining[i])).includes(JSON.stringify(p).slice(0, -1)))
        if (!named) expect(heldOf(r)!.whole).toBeUndefined()
      })
    }
  })

  it('says a held line may hold a text exactly where its bytes do', () => {
    const {env, held, project} = environment()
    writeInstallRecords(env, project, 'user', [record('a@m', 'codex', env.home), record('b@m', 'codex', env.home)])
    const [a, b] = bothReadings(env, held, project).held
    expect(mayHold(a!, jsonText(join(env.home, '.agents/skills/a')))).toBe(true)
    expect(mayHold(b!, jsonText(join(env.home, '.agents/skills/a')))).toBe(false)
    expect(mayHold(b!, jsonText(join(env.home, '.agents/skills/'), true))).toBe(true)
    expect(mayHold(b!, jsonText('a "quoted" text'))).toBe(false)
    // a parsed record, or one never held, may hold anything: its fields are asked instead
    expect(mayHold(record('c@m', 'codex', env.home), '"nowhere"')).toBe(true)
  })

  it('reads a plugin another record names in its config as that record, never as a record of its own', () => {
    const {env, held, project} = environment()
    const forged = `,{"plugin":"evil@m","target":"codex","files":[{"path":"/etc/passwd"}]}`
    const records = [
      record('a@m', 'codex', env.home, {
        config: [
          {
            component: 'a@m/mcp/a',
            file: join(env.home, '.codex/config.toml'),
            format: 'toml',
            path: ['mcp_servers', 'a'],
            key: '',
            value: {args: [forged], plugin: 'evil@m'},
            undo: {} as never,
            createdFile: false,
          },
        ],
      }),
      record('b@m', 'codex', env.home),
    ]
    writeInstallRecords(env, project, 'user', records)
    const both = bothReadings(env, held, project)
    expect(both.held.map((r) => r.plugin)).toEqual(['a@m', 'b@m'])
    expect(both.held).toEqual(both.parsed)
  })

  it('reads two records joined on one line, or a line of the order before, as JSON does, and writes them in lines of their own', () => {
    const {env, held, project} = environment()
    writeInstallRecords(env, project, 'user', [record('a@m', 'codex', env.home), record('b@m', 'codex', env.home), record('c@m', 'codex', env.home)])
    const file = userStateFile(env)
    const [head, a, b, c, ...tail] = readFileSync(file, 'utf8').split('\n')
    const sorted = (line: string) => `${JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(line.replace(/,$/, '')) as object).sort()))},`
    rewrittenByAnother(file, [head, `${a}${b}`, sorted(c!).slice(0, -1), ...tail].join('\n'))
    const read = readInstallRecords(held, project)
    expect(read.map((r) => r.plugin)).toEqual(['a@m', 'b@m', 'c@m'])
    expect(read.some((r) => heldOf(r))).toBe(false)
    writeInstallRecords(held, project, 'user', read)
    expect(readFileSync(file, 'utf8').split('\n')).toEqual([head, a, b, c, ...tail])
  })

  it('refuses a held line that is not JSON when its record is parsed, and writes it back untouched otherwise', () => {
    const {env, held, project} = environment()
    writeInstallRecords(env, project, 'user', [record('a@m', 'codex', env.home), record('b@m', 'codex', env.home)])
    const file = userStateFile(env)
    const [head, a, b, ...tail] = readFileSync(file, 'utf8').split('\n')
    const broken = a!.replace('"enabled":true', '"enabled":}')
    rewrittenByAnother(file, [head, broken, b, ...tail].join('\n'))
    // every line parsed: the whole text is read, and it is no JSON
    expect(() => readInstallRecords(env, project)).toThrow(/is not valid JSON/)
    rewrittenByAnother(file)
    const read = readInstallRecords(held, project)
    expect(read.map((r) => r.plugin)).toEqual(['a@m', 'b@m'])
    expect(() => read[0]!.files).toThrow(/is not valid JSON \(the record of a@m for codex, line 2\)/)
    // b uninstalled: a is written as it was read, unparsed; a write that must read a's folders refuses
    writeInstallRecords(held, project, 'user', [read[0]!])
    expect(readFileSync(file, 'utf8').split('\n')[1]).toBe(broken.slice(0, -1))
    expect(() => writeInstallRecords(held, project, 'user', [read[0]!, record('c@m', 'codex', env.home)])).toThrow(/is not valid JSON/)
  })

  it('writes a record changed in place anew, and the others as they were read', () => {
    const {env, held, project} = environment()
    writeInstallRecords(env, project, 'user', [record('a@m', 'codex', env.home), record('b@m', 'codex', env.home)])
    const before = readFileSync(userStateFile(env), 'utf8').split('\n')
    const read = bothReadings(env, held, project).held
    ;(read[0] as {enabled: boolean}).enabled = false
    expect(read[0]!.enabled).toBe(false)
    writeInstallRecords(held, project, 'user', read)
    const after = readFileSync(userStateFile(env), 'utf8').split('\n')
    expect(after[1]).toBe(before[1]!.replace('"enabled":true', '"enabled":false'))
    expect(after[2]).toBe(before[2])
  })

  it('shares created folders and hands config edits on as with every record parsed', () => {
    const {env, held, project} = environment()
    const edit = (plugin: string, created: boolean) => ({
      component: `${plugin}/mcp/x`,
      file: join(env.home, '.claude.json'),
      format: 'json' as const,
      path: ['mcpServers'],
      key: plugin,
      value: {command: plugin},
      undo: {createdParents: created ? 1 : 0} as never,
      createdFile: created,
    })
    const base = [
      record('a@m', 'codex', env.home, {dirs: [join(env.home, '.agents/skills/a')]}),
      record('b@m', 'claude-code', env.home, {config: [edit('b@m', true)]}),
      record('c@m', 'claude-code', env.home, {config: [edit('c@m', false)]}),
    ]
    writeInstallRecords(env, project, 'user', base)
    const both = bothReadings(env, held, project)
    const written = (records: InstallRecord[]) => {
      writeInstallRecords(env, project, 'user', records)
      return readFileSync(userStateFile(env), 'utf8')
    }
    // a new record bringing .agents anew above another's folder; b's edit handed on to c
    const added = record('d@m', 'codex', env.home)
    expect(written([...both.held, added])).toBe(written([...both.parsed, added]))
    const both2 = bothReadings(env, held, project)
    expect(inheritCreated([both2.held[1]!], [both2.held[0]!, both2.held[2]!, both2.held[3]!])).toEqual(
      inheritCreated([both2.parsed[1]!], [both2.parsed[0]!, both2.parsed[2]!, both2.parsed[3]!]),
    )
  })
})
