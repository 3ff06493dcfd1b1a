/**
 * Each rule a loadout.lock record must meet before loadout uses it, one hostile value at a time,
 * against a real project folder (with a real symbolic link). A record as loadout writes it passes.
 */
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isLoadoutError} from '../../src/core/model/errors.js'
import {REGISTRY_DIR} from '../../src/core/kernel/env/package-root.js'
import {checkLockRecords} from '../../src/core/kernel/state/lockfile-check.js'

let dir: string
let project: string

const good = () => ({
  plugin: 'toolkit@team',
  target: 'claude-code',
  pluginRoot: '.loadout/plugins/toolkit@team/0123456789abcdef',
  files: [{path: '.claude/skills/lint/SKILL.md', sha256: 'a'.repeat(64)}],
  dirs: ['.claude', '.claude/skills', '.claude/skills/lint'],
  trees: ['.claude/skills/lint'],
  config: [
    {
      component: 'toolkit@team/mcp/x',
      file: '.mcp.json',
      format: 'json',
      path: ['mcpServers'],
      key: 'toolkit-x',
      value: {command: 'x'},
      undo: {path: ['mcpServers'], key: 'toolkit-x', createdParents: 1},
      createdFile: true,
    },
    {
      component: 'toolkit@team/hooks/hooks',
      file: '.claude/settings.json',
      format: 'json',
      path: [],
      key: 'hooks',
      value: {Stop: [{hooks: [{type: 'command', command: 'mine'}]}], PreToolUse: [{hooks: [{type: 'command', command: 'x'}]}]},
      addedHooks: {PreToolUse: [{hooks: [{type: 'command', command: 'x'}]}]},
      createdEvents: ['PreToolUse'],
      undo: {path: [], key: 'hooks', previous: JSON.stringify({Stop: [{hooks: [{type: 'command', command: 'mine'}]}]}), createdParents: 0},
      createdFile: false,
    },
  ],
})

type Rec = ReturnType<typeof good> & Record<string, unknown>

const refusal = (edit: (r: Rec) => void): string => {
  const record = good() as Rec
  edit(record)
  try {
    checkLockRecords(project, [record])
  } catch (error) {
    if (isLoadoutError(error) && error.code === 'lock-unsafe') return error.message
    throw error
  }
  return 'accepted'
}

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'loadout-lockc-')))
  project = join(dir, 'project')
  mkdirSync(join(project, '.claude', 'skills'), {recursive: true})
  mkdirSync(join(dir, 'elsewhere'))
  symlinkSync(join(dir, 'elsewhere'), join(project, '.claude', 'skills', 'linked'))
})
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('checkLockRecords', () => {
  it('accepts a record as loadout writes it', () => {
    expect(refusal(() => {})).toBe('accepted')
    expect(refusal((r) => (r.marketplace = 'loadout-team-toolkit-0badcafe'))).toBe('accepted')
  })

  it("accepts the filtered copy a native plugin with parts off is offered, beside the record's copy", () => {
    const filtered = '.loadout/plugins/toolkit@team/0123456789abcdef-without-0123456789ab'
    expect(
      refusal((r) => {
        r.files.push({path: `${filtered}/skills/b/SKILL.md`, sha256: 'a'.repeat(64)})
        r.trees.push(filtered)
        r.dirs.push(filtered)
      }),
    ).toBe('accepted')
  })

  const cases: Array<[string, (r: Rec) => void, RegExp]> = [
    ['a file climbing out', (r) => r.files.push({path: '.claude/skills/../../../x', sha256: ''}), /climbs out with "\.\."/],
    ['an absolute file', (r) => r.files.push({path: '/etc/passwd', sha256: ''}), /"\/etc\/passwd", an absolute path/],
    ['a backslash path', (r) => r.files.push({path: '.claude\\skills\\x', sha256: ''}), /backslash/],
    ['a file outside any agent place', (r) => r.files.push({path: 'src/index.ts', sha256: ''}), /"src\/index\.ts", which is not a place its agent keeps/],
    ["another agent's place", (r) => r.files.push({path: '.codex/config.toml', sha256: ''}), /\.codex\/config\.toml/],
    ['a file through a link', (r) => r.files.push({path: '.claude/skills/linked/x', sha256: ''}), /symbolic link \.claude\/skills\/linked/],
    ['a tree that is a link', (r) => r.trees.push('.claude/skills/linked'), /symbolic link/],
    ['the project root as a folder', (r) => r.dirs.push('.'), /outside the project/],
    ['a config file that is no MCP or hooks file', (r) => (r.config[0]!.file = '.claude/skills/lint/SKILL.md'), /not a place its agent keeps config files/],
    ['a config path that is not strings', (r) => (r.config[0]!.path = [{}] as unknown as string[]), /malformed/],
    ['an undo that writes hooks back', (r) => ((r.config[1]!.undo as {previous: string}).previous = '{"Stop": []}'), /undo would put back hooks/],
    ['an undo on an MCP entry', (r) => ((r.config[0]!.undo as Record<string, unknown>).previous = '{"command": "evil"}'), /undo would write a value back/],
    ['a plugin copy of another plugin', (r) => (r.pluginRoot = '.loadout/plugins/other@team/0123'), /plugin copy/],
    ['a plugin copy nested deeper', (r) => (r.pluginRoot = '.loadout/plugins/toolkit@team/a/b'), /plugin copy/],
    [
      'a filtered copy of another revision',
      (r) => r.files.push({path: '.loadout/plugins/toolkit@team/fedcba9876543210-without-0123456789ab/x', sha256: ''}),
      /not a place its agent keeps/,
    ],
    [
      'a filtered copy whose name is no hash',
      (r) => r.files.push({path: '.loadout/plugins/toolkit@team/0123456789abcdef-without-../x', sha256: ''}),
      /not a place its agent keeps|climbs out/,
    ],
    ['an id with a slash', (r) => (r.plugin = '../x@team'), /not a plugin@marketplace id/],
    ['an unknown agent', (r) => (r.target = '../../etc'), /not an agent loadout knows/],
    ['files that are not a list', (r) => ((r as Record<string, unknown>).files = 'x'), /not a list/],
    ["a marketplace name that is not loadout's", (r) => (r.marketplace = 'claude-plugins-official'), /not a marketplace name loadout registers/],
    ['a marketplace name that is no string', (r) => (r.marketplace = {name: 'x'}), /not a marketplace name loadout registers/],
  ]
  for (const [name, edit, message] of cases) {
    it(`refuses ${name}, naming it`, () => {
      const text = refusal(edit)
      expect(text).toMatch(message)
      expect(text).toMatch(/refusing to use it \(nothing was changed\)/)
    })
  }
})

/** Every project-scope location of every shipped agent, for every kind of part: the places an install writes to. */
const projectPlaces = readdirSync(join(REGISTRY_DIR, 'agents')).flatMap((file) => {
  const agent = JSON.parse(readFileSync(join(REGISTRY_DIR, 'agents', file), 'utf8')) as Record<string, unknown> & {id: string}
  return Object.entries(agent).flatMap(([kind, section]) => {
    const locations = (section as {locations?: Array<{scope: string; path: string}>} | null)?.locations ?? []
    return locations.filter((l) => l.scope === 'project').map((l) => [agent.id, kind, l.path] as const)
  })
})

describe('every project place an agent has is a place its lock records may name', () => {
  it('the matrix holds commands folders', () => {
    expect(projectPlaces.filter(([, kind]) => kind === 'commands').length).toBeGreaterThanOrEqual(5)
  })
  it.each(projectPlaces)('%s %s at %s', (target, kind, path) => {
    const file = kind === 'mcp' || kind === 'hooks' ? path : `${path}/part/file.md`
    const record = {plugin: 'toolkit@team', target, files: [{path: file, sha256: 'a'.repeat(64)}]}
    expect(() => checkLockRecords(project, [record])).not.toThrow()
  })
})
