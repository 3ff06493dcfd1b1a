import {chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {beforeAll, describe, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import type {CreatedSubagent} from '../../src/core/ops/agents/create.js'
import type {DeletedSubagent} from '../../src/core/ops/agents/delete.js'
import type {SubagentInfo} from '../../src/core/ops/agents/info.js'
import type {ListedSubagent, SubagentsListResult} from '../../src/core/ops/agents/list.js'
import type {Sandbox} from '../support/cli.js'
import {changes, changesOutside, entries, jsonError, loadout, openUp, sandboxes, snapshot, unprivileged, writeState, type ScopeName} from './helpers.js'

const sandbox = sandboxes()

/** The agents whose subagents these tests cover. */
const AGENTS = ['claude-code', 'deepagents', 'cst-agent'] as const
type Agent = (typeof AGENTS)[number]

/**
 * Where a subagent named `n` lives, written out by hand from TARGETS.md (not computed by the code
 * under test): relative to HOME for the user scope, to the project root for the project scope.
 * The first element is the subagent's own entry (its file, or its folder), the second the file.
 */
const SUBAGENT_AT: Record<Agent, Record<ScopeName, (n: string) => [entry: string, file: string]>> = {
  'claude-code': {user: (n) => [`.claude/agents/${n}.md`, `.claude/agents/${n}.md`], project: (n) => [`.claude/agents/${n}.md`, `.claude/agents/${n}.md`]},
  deepagents: {
    user: (n) => [`.deepagents/agent/agents/${n}`, `.deepagents/agent/agents/${n}/AGENTS.md`],
    project: (n) => [`.deepagents/agents/${n}`, `.deepagents/agents/${n}/AGENTS.md`],
  },
  'cst-agent': {
    user: (n) => [`.config/cst-agent/agents/${n}.md`, `.config/cst-agent/agents/${n}.md`],
    project: (n) => [`.agent/agents/${n}.md`, `.agent/agents/${n}.md`],
  },
}

const base = (sb: Sandbox, scope: ScopeName) => (scope === 'user' ? sb.home : sb.project)
/** Absolute path of the subagent's entry (file, or deepagents folder). */
const entryOf = (sb: Sandbox, agent: Agent, scope: ScopeName, name: string) => join(base(sb, scope), SUBAGENT_AT[agent][scope](name)[0])
/** Absolute path of the file holding its text. */
const fileOf = (sb: Sandbox, agent: Agent, scope: ScopeName, name: string) => join(base(sb, scope), SUBAGENT_AT[agent][scope](name)[1])
/** The same, relative to the sandbox folder (for snapshots). */
const relEntry = (agent: Agent, scope: ScopeName, name: string) => `${scope === 'user' ? 'home' : 'project'}/${SUBAGENT_AT[agent][scope](name)[0]}`

/** Splits a written Markdown subagent into its parsed frontmatter and body. */
const readMd = (file: string): {fields: Record<string, unknown>; body: string} => {
  const text = readFileSync(file, 'utf8')
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)
  if (!match) throw new Error(`${file} has no frontmatter:\n${text}`)
  return {fields: parseYaml(match[1]!) as Record<string, unknown>, body: match[2]!}
}

/** Writes a Markdown subagent by hand, creating its folders; returns the file. */
const writeMd = (file: string, fields: Record<string, unknown>, body = 'You review code.\n'): string => {
  mkdirSync(dirname(file), {recursive: true})
  const yaml = Object.entries(fields)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n')
  writeFileSync(file, `---\n${yaml}\n---\n${body}`)
  return file
}

/** A valid hand-made subagent of `agent` named `name`, with a recognisable description. */
const handMade = (sb: Sandbox, agent: Agent, scope: ScopeName, name: string, description = `${agent} ${scope} ${name}`): string =>
  writeMd(fileOf(sb, agent, scope, name), {name, description})

const rows = (subagents: readonly ListedSubagent[]) => subagents.map((s) => [s.agent, s.name, s.scope, s.status, s.owner, s.path])

describe.concurrent('agents create, list, info and delete in each format', () => {
  describe.each(['project', 'user'] as const)('%s scope', (scope) => {
    it('writes claude-code, deepagents and cst-agent files in their formats, lists, shows and deletes them', async ({expect}) => {
      const sb = sandbox({git: true})
      const before = snapshot(sb.dir)
      const create = await loadout(sb, [
        'agents',
        'create',
        'code-reviewer',
        '--description',
        'Reviews a diff for bugs. Use after every change.',
        '--tools',
        'Read, Grep',
        '--model',
        'gpt-5-mini',
        '--max-steps',
        '12',
        '--agent',
        'claude-code,deepagents,cst-agent',
        '--scope',
        scope,
        '--json',
      ])
      expect(create.status, create.stdout + create.stderr).toBe(0)
      const created = create.json<CreatedSubagent>()
      expect(created).toMatchObject({name: 'code-reviewer', scope, dryRun: false, skipped: []})
      expect(created.destinations.map((d) => [d.agents, d.format, d.path, d.file, d.replaced])).toEqual([
        [['claude-code'], 'claude-agent-md', entryOf(sb, 'claude-code', scope, 'code-reviewer'), fileOf(sb, 'claude-code', scope, 'code-reviewer'), false],
        [['deepagents'], 'deepagents-agents-md', entryOf(sb, 'deepagents', scope, 'code-reviewer'), fileOf(sb, 'deepagents', scope, 'code-reviewer'), false],
        [['cst-agent'], 'cst-agent-md', entryOf(sb, 'cst-agent', scope, 'code-reviewer'), fileOf(sb, 'cst-agent', scope, 'code-reviewer'), false],
      ])
      // deepagents has no tools or step limit: said, not silently lost
      expect(created.destinations[1]!.notes.join('\n')).toMatch(
        /"tools" restriction \(Read, Grep\) dropped: Deep Agents Code file subagents cannot narrow tools/,
      )
      expect(created.destinations[1]!.notes.join('\n')).toMatch(/"max_steps" dropped/)
      expect(created.destinations[2]!.notes).toEqual([])

      // exactly these files, nothing else
      const written = changes(before, snapshot(sb.dir))
      expect(
        changesOutside(
          written,
          AGENTS.map((a) => relEntry(a, scope, 'code-reviewer')),
        ),
      ).toEqual([])
      expect(written.filter((p) => !written.some((q) => q.startsWith(p + '/')))).toEqual(
        AGENTS.map((a) => `${scope === 'user' ? 'home' : 'project'}/${SUBAGENT_AT[a][scope]('code-reviewer')[1]}`).sort(),
      )

      const description = 'Reviews a diff for bugs. Use after every change.'
      const claude = readMd(fileOf(sb, 'claude-code', scope, 'code-reviewer'))
      expect(claude.fields).toEqual({name: 'code-reviewer', description, tools: 'Read, Grep', model: 'gpt-5-mini', maxTurns: 12})
      expect(claude.body).toMatch(/^# Code Reviewer\n/)
      expect(claude.body).toContain('You are the code-reviewer subagent.')
      expect(claude.body).toContain(description)
      const deep = readMd(fileOf(sb, 'deepagents', scope, 'code-reviewer'))
      expect(deep.fields).toEqual({name: 'code-reviewer', description, model: 'gpt-5-mini'})
      expect(deep.body).toBe(claude.body)
      expect(entries(entryOf(sb, 'deepagents', scope, 'code-reviewer'))).toEqual(['AGENTS.md'])
      const cst = readMd(fileOf(sb, 'cst-agent', scope, 'code-reviewer'))
      // Read and Grep only read, so cst-agent's readonly is worked out as true
      expect(cst.fields).toEqual({name: 'code-reviewer', description, tools: 'read_file,grep', readonly: true, model: 'gpt-5-mini', max_steps: 12})
      expect(cst.body).toBe(claude.body)

      const [list, info] = await Promise.all([
        loadout(sb, ['agents', 'list', '--agent', 'claude-code,deepagents,cst-agent', '--scope', scope, '--json']),
        loadout(sb, ['agents', 'info', 'code-reviewer', '--agent', 'cst-agent', '--scope', scope, '--json']),
      ])
      expect(list.status, list.stderr).toBe(0)
      const listed = list.json<SubagentsListResult>()
      expect(listed.scopes).toEqual([scope])
      expect(rows(listed.subagents)).toEqual(AGENTS.map((a) => [a, 'code-reviewer', scope, 'active', 'user', entryOf(sb, a, scope, 'code-reviewer')]))
      expect(listed.subagents.map((s) => [s.valid, s.problems, s.description])).toEqual(AGENTS.map(() => [true, [], description]))
      expect(info.status, info.stderr).toBe(0)
      expect(info.json<SubagentInfo>()).toMatchObject({
        name: 'code-reviewer',
        agent: 'cst-agent',
        format: 'cst-agent-md',
        description,
        path: entryOf(sb, 'cst-agent', scope, 'code-reviewer'),
        file: fileOf(sb, 'cst-agent', scope, 'code-reviewer'),
        frontmatter: {tools: 'read_file,grep', readonly: true, max_steps: 12},
        problems: [],
      })

      const del = await loadout(sb, ['agents', 'delete', 'code-reviewer', '--agent', 'claude-code,deepagents,cst-agent', '--scope', scope, '--yes', '--json'])
      expect(del.status, del.stdout + del.stderr).toBe(0)
      expect(del.json<DeletedSubagent>().removals.map((r) => [r.agents, r.kind, r.path])).toEqual([
        [['claude-code'], 'file', entryOf(sb, 'claude-code', scope, 'code-reviewer')],
        [['deepagents'], 'folder', entryOf(sb, 'deepagents', scope, 'code-reviewer')],
        [['cst-agent'], 'file', entryOf(sb, 'cst-agent', scope, 'code-reviewer')],
      ])
      for (const agent of AGENTS) expect(existsSync(entryOf(sb, agent, scope, 'code-reviewer')), agent).toBe(false)
    })
  })

  it('reads the other scope too when --scope is not given, and the default scope is project inside git', async ({expect}) => {
    const sb = sandbox({git: true})
    const create = await loadout(sb, ['agents', 'create', 'helper', '--agent', 'cst-agent', '--json'])
    expect(create.status, create.stdout).toBe(0)
    expect(create.json<CreatedSubagent>()).toMatchObject({scope: 'project', destinations: [{path: join(sb.project, '.agent/agents/helper.md')}]})
    handMade(sb, 'cst-agent', 'user', 'other')
    const list = await loadout(sb, ['agents', 'list', '--agent', 'cst-agent', '--json'])
    expect(list.json<SubagentsListResult>().scopes).toEqual(['user', 'project'])
    expect(rows(list.json<SubagentsListResult>().subagents).map((r) => [r[1], r[2]])).toEqual([
      ['helper', 'project'],
      ['other', 'user'],
    ])
  })

  it('cst-agent readonly follows --readonly and --no-readonly; Claude aliases are kept for Claude only', async ({expect}) => {
    const sb = sandbox({git: true})
    const [ro, rw] = await Promise.all([
      loadout(sb, ['agents', 'create', 'locked', '--agent', 'cst-agent,claude-code', '--tools', 'Read,Edit,Bash', '--readonly', '--model', 'sonnet', '--json']),
      loadout(sb, ['agents', 'create', 'open', '--agent', 'cst-agent', '--tools', 'Read', '--no-readonly', '--json']),
    ])
    expect(ro.status, ro.stdout).toBe(0)
    expect(rw.status, rw.stdout).toBe(0)
    expect(readMd(join(sb.project, '.agent/agents/locked.md')).fields).toMatchObject({tools: 'read_file,Edit,run_shell', readonly: true})
    expect(readMd(join(sb.project, '.agent/agents/locked.md')).fields).not.toHaveProperty('model')
    expect(readMd(join(sb.project, '.agent/agents/open.md')).fields).toMatchObject({tools: 'read_file', readonly: false})
    const claude = readMd(join(sb.project, '.claude/agents/locked.md')).fields
    expect(claude).toEqual({name: 'locked', description: expect.any(String), tools: 'Read, Edit, Bash', model: 'sonnet'})
    const notes = Object.fromEntries(ro.json<CreatedSubagent>().destinations.map((d) => [d.agents[0], d.notes.join('\n')]))
    expect(notes['cst-agent']).toMatch(/"model" "sonnet" dropped/)
    expect(notes['claude-code']).toMatch(/"readonly" dropped/)
  })

  it('takes what the author typed literally: YAML specials read back exactly and {{placeholders}} stay as typed', async ({expect}) => {
    const sb = sandbox({git: true})
    const description = 'Fill "PDF" forms: merge # not a comment\n---\nname: injected\n{{name}} and {{title}} stay, émoji 📄'
    const create = await loadout(sb, ['agents', 'create', 'tricky', '--agent', 'claude-code,deepagents,cst-agent', '--description', description, '--json'])
    expect(create.status, create.stdout).toBe(0)
    for (const agent of AGENTS) {
      const {fields, body} = readMd(fileOf(sb, agent, 'project', 'tricky'))
      expect(fields, agent).toMatchObject({name: 'tricky', description})
      expect(body, agent).toContain('{{name}} and {{title}} stay')
    }
    const list = await loadout(sb, ['agents', 'list', '--agent', 'claude-code,deepagents,cst-agent', '--json'])
    expect(list.json<SubagentsListResult>().subagents.map((s) => [s.agent, s.valid, s.description])).toEqual(AGENTS.map((a) => [a, true, description]))
  })

  it('--dry-run reports the destinations and writes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['agents', 'create', 'dry-one', '--agent', 'claude-code,deepagents,cst-agent', '--dry-run', '--json']),
      loadout(sb, ['agents', 'create', 'dry-one', '--agent', 'deepagents', '--scope', 'user', '--dry-run']),
    ])
    expect(json.status, json.stdout).toBe(0)
    const result = json.json<CreatedSubagent>()
    expect(result.dryRun).toBe(true)
    expect(result.destinations.map((d) => d.file)).toEqual(AGENTS.map((a) => fileOf(sb, a, 'project', 'dry-one')))
    expect(text.status, text.stderr).toBe(0)
    expect(text.stdout).toContain(`would create ${fileOf(sb, 'deepagents', 'user', 'dry-one')}`)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('prints what it did, with notes and skipped agents, in plain text without --json', async ({expect}) => {
    const sb = sandbox({git: true})
    const result = await loadout(sb, ['agents', 'create', 'plain', '--agent', 'deepagents,universal', '--tools', 'Read'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toContain(`created ${fileOf(sb, 'deepagents', 'project', 'plain')} for deepagents`)
    expect(result.stdout).toContain('note: "tools" restriction')
    expect(result.stdout).toContain('skipped universal: Universal (.agents) has no project-scope subagents folder')
    expect(result.stdout).not.toContain('\u001B[')
  })
})

describe.concurrent('agents create refusals', () => {
  it('validates the name before writing anything: .., /, upper case and 65 characters exit 2', async ({expect}) => {
    const sb = sandbox({git: true})
    const before = snapshot(sb.dir)
    const cases: Array<[string, string]> = [
      ['..', 'name-has-dotdot'],
      ['../escape', 'name-has-separator'],
      ['/', 'name-has-separator'],
      ['a/b', 'name-has-separator'],
      ['Reviewer', 'name-uppercase'],
      ['a'.repeat(65), 'name-too-long'],
    ]
    const results = await Promise.all(cases.map(([name]) => loadout(sb, ['agents', 'create', name, '--agent', 'claude-code,deepagents,cst-agent', '--json'])))
    results.forEach((result, i) => {
      expect(result.status, cases[i]![0]).toBe(2)
      expect(jsonError(result)).toMatchObject({code: cases[i]![1], message: expect.stringMatching(/^invalid subagent name: /)})
    })
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    // the limit itself is fine
    const longest = await loadout(sb, ['agents', 'create', 'a'.repeat(64), '--agent', 'claude-code', '--json'])
    expect(longest.status, longest.stdout).toBe(0)
    expect(existsSync(join(sb.project, `.claude/agents/${'a'.repeat(64)}.md`))).toBe(true)
  })

  it('never overwrites an existing subagent without --force (exit 5), checked for every agent before writing', async ({expect}) => {
    const sb = sandbox({git: true})
    const existing = writeMd(join(sb.project, '.agent/agents/taken.md'), {name: 'taken', description: 'hand made'})
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['agents', 'create', 'taken', '--agent', 'claude-code,cst-agent', '--json']),
      loadout(sb, ['agents', 'create', 'taken', '--agent', 'cst-agent', '--dry-run']),
    ])
    expect(json.status).toBe(5)
    expect(jsonError(json)).toMatchObject({code: 'subagent-exists', message: expect.stringContaining(existing)})
    expect(jsonError(json).suggestions.join(' ')).toContain('--force')
    expect(text.status).toBe(5)
    expect(text.stderr).toContain(`a subagent named "taken" already exists at ${existing}`)
    // not even the claude-code copy was written
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('--force replaces the file, and a deepagents folder whole, leaving no staging files', async ({expect}) => {
    const sb = sandbox({git: true})
    const claude = writeMd(join(sb.project, '.claude/agents/redo.md'), {name: 'redo', description: 'old'})
    const deepDir = join(sb.project, '.deepagents/agents/redo')
    writeMd(join(deepDir, 'AGENTS.md'), {name: 'redo', description: 'old'})
    writeFileSync(join(deepDir, 'old.txt'), 'old')
    handMade(sb, 'claude-code', 'project', 'neighbour')
    const before = snapshot(sb.dir)
    const create = await loadout(sb, ['agents', 'create', 'redo', '--agent', 'claude-code,deepagents', '--force', '--description', 'The new one.', '--json'])
    expect(create.status, create.stdout).toBe(0)
    expect(create.json<CreatedSubagent>().destinations.map((d) => [d.path, d.replaced])).toEqual([
      [claude, true],
      [deepDir, true],
    ])
    expect(readMd(claude).fields.description).toBe('The new one.')
    expect(readMd(join(deepDir, 'AGENTS.md')).fields.description).toBe('The new one.')
    expect(entries(deepDir)).toEqual(['AGENTS.md'])
    expect(entries(join(sb.project, '.claude/agents'))).toEqual(['neighbour.md', 'redo.md'])
    expect(entries(join(sb.project, '.deepagents/agents'))).toEqual(['redo'])
    expect(changesOutside(changes(before, snapshot(sb.dir)), ['project/.claude/agents/redo.md', 'project/.deepagents/agents/redo'])).toEqual([])
  })

  it('refuses to replace an installed subagent even with --force, and points to uninstall', async ({expect}) => {
    const sb = sandbox({git: true})
    const file = handMade(sb, 'claude-code', 'user', 'plugged')
    writeState(sb.home, [{plugin: 'review@acme', target: 'claude-code', scope: 'user', files: [file]}])
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['agents', 'create', 'plugged', '--agent', 'claude-code', '--scope', 'user', '--force', '--json'])
    expect(result.status).toBe(5)
    expect(jsonError(result)).toMatchObject({code: 'subagent-owned', message: expect.stringContaining('review@acme')})
    expect(jsonError(result).suggestions).toContain('remove it with: loadout uninstall review@acme')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('reports agents with no subagents folder as skipped, and fails when none is left', async ({expect}) => {
    const sb = sandbox({git: true})
    const before = snapshot(sb.dir)
    const [some, none, list] = await Promise.all([
      loadout(sb, ['agents', 'create', 'partial', '--agent', 'claude-code,universal', '--dry-run', '--json']),
      // cursor keeps subagents in the project only
      loadout(sb, ['agents', 'create', 'nowhere', '--agent', 'cursor,universal', '--scope', 'user', '--json']),
      loadout(sb, ['agents', 'list', '--agent', 'universal,cursor', '--scope', 'user', '--json']),
    ])
    expect(some.status, some.stdout).toBe(0)
    expect(some.json<CreatedSubagent>().skipped).toEqual([{agent: 'universal', reason: expect.stringMatching(/has no project-scope subagents folder$/)}])
    expect(some.json<CreatedSubagent>().destinations.map((d) => d.agents)).toEqual([['claude-code']])
    expect(none.status).toBe(2)
    const error = jsonError(none)
    expect(error.code).toBe('no-subagent-target')
    expect(error.suggestions).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Cursor.* has no user-scope subagents folder$/),
        'Universal (.agents) has no user-scope subagents folder',
      ]),
    )
    expect(list.status, list.stderr).toBe(0)
    expect(list.json<SubagentsListResult>()).toMatchObject({folders: [], subagents: [], skipped: [{agent: 'universal'}, {agent: 'cursor'}]})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  // Root ignores file modes: the CLI then runs as nobody (given the project), who may not write to a 0555 folder.
  const as = unprivileged()

  it.skipIf(as === undefined)("is all or nothing: when one agent's folder cannot be written, the copies already made are taken back", async ({expect}) => {
    const sb = sandbox({git: true})
    const locked = join(sb.project, '.agent/agents')
    mkdirSync(locked, {recursive: true})
    openUp(sb.dir)
    if (as?.uid !== undefined) {
      const own = (path: string) => {
        chownSync(path, as.uid!, as.gid!)
        if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) own(join(path, entry))
      }
      own(sb.project)
    }
    chmodSync(locked, 0o555)
    const before = snapshot(sb.dir)
    try {
      // claude-code comes first and is written; cst-agent's folder then refuses
      const result = await loadout(sb, ['agents', 'create', 'half', '--agent', 'claude-code,cst-agent', '--json'], as)
      expect(result.status, result.stdout).toBe(10)
      expect(jsonError(result)).toMatchObject({
        code: 'permission-denied',
        message: expect.stringMatching(new RegExp(`^cannot change ${locked}/\\S+: permission denied$`)),
      })
      expect(existsSync(join(sb.project, '.claude/agents/half.md'))).toBe(false)
      // the folders made for the claude-code copy went with it
      expect(existsSync(join(sb.project, '.claude'))).toBe(false)
      expect(changes(before, snapshot(sb.dir))).toEqual([])
    } finally {
      chmodSync(locked, 0o755)
    }
  })

  it('refuses to write through a symbolic link to the agents folder', async ({expect}) => {
    const sb = sandbox({git: true})
    const elsewhere = join(sb.dir, 'elsewhere')
    mkdirSync(elsewhere)
    mkdirSync(join(sb.project, '.claude'))
    symlinkSync(elsewhere, join(sb.project, '.claude/agents'))
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['agents', 'create', 'via-link', '--agent', 'claude-code', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining(join(sb.project, '.claude/agents'))})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('agents list and info over one populated sandbox', () => {
  let sb: Sandbox
  let before: Map<string, string>

  beforeAll(() => {
    sb = sandbox({git: true})
    // the same name in both scopes of each agent: the project copy wins
    for (const agent of AGENTS) for (const scope of ['user', 'project'] as const) handMade(sb, agent, scope, 'dup')
    // installed by plugins (hand-written records), one a deepagents folder
    const plugged = handMade(sb, 'claude-code', 'user', 'plugged')
    const deepPlugged = handMade(sb, 'deepagents', 'user', 'deep-plugged')
    writeState(sb.home, [
      {plugin: 'review@acme', target: 'claude-code', scope: 'user', files: [plugged]},
      {plugin: 'tools@acme', target: 'deepagents', scope: 'user', files: [deepPlugged]},
    ])
    // broken or odd ones
    writeMd(join(sb.project, '.claude/agents/no-desc.md'), {name: 'no-desc'})
    writeMd(join(sb.project, '.claude/agents/wrong-name.md'), {name: 'other-name', description: 'mismatch'})
    writeMd(join(sb.project, '.agent/agents/bad-fields.md'), {name: 'bad-fields', description: 'bad', readonly: 'yes', max_steps: 0})
    mkdirSync(join(sb.project, '.deepagents/agents/empty-folder'), {recursive: true})
    writeFileSync(join(sb.project, '.claude/agents/no-frontmatter.md'), 'Just a prompt.\n')
    // not subagents: another file type, a hidden staging leftover, a stray file in deepagents' folder
    writeFileSync(join(sb.project, '.claude/agents/README.txt'), 'notes')
    writeFileSync(join(sb.project, '.claude/agents/.redo.md.loadout-tmp-1234'), 'half')
    writeFileSync(join(sb.project, '.deepagents/agents/notes.md'), 'notes')
    before = snapshot(sb.dir)
  })

  it('marks the user copy shadowed by the project copy, for each agent, listing in load order', async ({expect}) => {
    const result = await loadout(sb, ['agents', 'list', '--agent', 'claude-code,deepagents,cst-agent', '--json'])
    expect(result.status, result.stderr).toBe(0)
    const dup = result.json<SubagentsListResult>().subagents.filter((s) => s.name === 'dup')
    expect(dup.map((s) => [s.agent, s.scope, s.status, s.shadowedBy ?? null, s.description])).toEqual(
      AGENTS.flatMap((a) => [
        [a, 'project', 'active', null, `${a} project dup`],
        [a, 'user', 'shadowed', entryOf(sb, a, 'project', 'dup'), `${a} user dup`],
      ]),
    )
  })

  it('keeps a user copy shadowed when only the user scope is listed, and info describes the winner', async ({expect}) => {
    const [list, info, infoUser] = await Promise.all([
      loadout(sb, ['agents', 'list', '--agent', 'deepagents', '--scope', 'user', '--json']),
      loadout(sb, ['agents', 'info', 'dup', '--agent', 'deepagents', '--json']),
      loadout(sb, ['agents', 'info', 'dup', '--agent', 'deepagents', '--scope', 'user', '--json']),
    ])
    const listed = list.json<SubagentsListResult>()
    expect(listed.scopes).toEqual(['user'])
    expect(listed.subagents.find((s) => s.name === 'dup')).toMatchObject({
      scope: 'user',
      status: 'shadowed',
      shadowedBy: entryOf(sb, 'deepagents', 'project', 'dup'),
    })
    expect(info.status, info.stderr).toBe(0)
    expect(info.json<SubagentInfo>()).toMatchObject({path: entryOf(sb, 'deepagents', 'project', 'dup'), description: 'deepagents project dup'})
    expect(info.json<SubagentInfo>().locations.map((l) => [l.scope, l.status])).toEqual([
      ['project', 'active'],
      ['user', 'shadowed'],
    ])
    // only the shadowed copy is in scope: info still shows it, marked
    expect(infoUser.json<SubagentInfo>()).toMatchObject({path: entryOf(sb, 'deepagents', 'user', 'dup'), locations: [{status: 'shadowed'}]})
  })

  it('takes the owner from the install records: the plugin id, else "user"', async ({expect}) => {
    const result = await loadout(sb, ['agents', 'list', '--agent', 'claude-code,deepagents', '--scope', 'user', '--json'])
    const owners = result.json<SubagentsListResult>().subagents.map((s) => [s.agent, s.name, s.owner])
    expect(owners).toEqual([
      ['claude-code', 'dup', 'user'],
      ['claude-code', 'plugged', 'review@acme'],
      ['deepagents', 'deep-plugged', 'tools@acme'],
      ['deepagents', 'dup', 'user'],
    ])
  })

  it('reads each format back and reports what is wrong, ignoring what is not a subagent', async ({expect}) => {
    const result = await loadout(sb, ['agents', 'list', '--agent', 'claude-code,deepagents,cst-agent', '--scope', 'project', '--json'])
    const listed = result.json<SubagentsListResult>().subagents
    expect(listed.map((s) => `${s.agent}/${s.name}`)).toEqual([
      'claude-code/dup',
      'claude-code/no-desc',
      'claude-code/no-frontmatter',
      'claude-code/wrong-name',
      'deepagents/dup',
      'deepagents/empty-folder',
      'cst-agent/bad-fields',
      'cst-agent/dup',
    ])
    const problems = Object.fromEntries(
      listed.map((s) => [`${s.agent}/${s.name}`, [s.valid, s.problems.map((p) => `${p.severity} ${p.code} ${p.path ?? ''}`.trim())]]),
    )
    expect(problems).toEqual({
      'claude-code/dup': [true, []],
      'claude-code/no-desc': [false, ['error subagent-description-missing description']],
      'claude-code/no-frontmatter': [false, ['error frontmatter-missing']],
      'claude-code/wrong-name': [true, ['warning subagent-name-mismatch name']],
      'deepagents/dup': [true, []],
      'deepagents/empty-folder': [false, ['error subagent-file-missing']],
      'cst-agent/bad-fields': [false, ['error subagent-field-invalid readonly', 'error subagent-field-invalid max_steps']],
      'cst-agent/dup': [true, []],
    })
  })

  it('prints a table with shadowing, owners and problems without --json', async ({expect}) => {
    const result = await loadout(sb, ['agents', 'list', '--agent', 'claude-code,universal'])
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^AGENT +NAME +SCOPE +STATUS +VALID +OWNER +PATH$/m)
    expect(result.stdout).toMatch(new RegExp(`^claude-code +plugged +user +active +valid +review@acme +${sb.home}/\\.claude/agents/plugged\\.md$`, 'm'))
    expect(result.stdout).toContain(`claude-code ${entryOf(sb, 'claude-code', 'user', 'dup')} is shadowed by ${entryOf(sb, 'claude-code', 'project', 'dup')}`)
    expect(result.stdout).toContain(`error subagent-description-missing ${join(sb.project, '.claude/agents/no-desc.md')}`)
    expect(result.stdout).toContain('skipped universal: Universal (.agents) has no subagents folder')
  })

  it('info on an unknown name exits 3 and suggests a near one', async ({expect}) => {
    const result = await loadout(sb, ['agents', 'info', 'dupe', '--agent', 'claude-code', '--json'])
    expect(result.status).toBe(3)
    expect(jsonError(result)).toMatchObject({code: 'subagent-not-found', suggestions: expect.arrayContaining(['did you mean "dup"?'])})
  })

  it('changed nothing on disk', async ({expect}) => {
    await Promise.all([loadout(sb, ['agents', 'list', '--json']), loadout(sb, ['agents', 'info', 'dup', '--json'])])
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})

describe.concurrent('agents delete', () => {
  it('off a terminal and without --yes, exits 8 and removes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    const file = handMade(sb, 'cst-agent', 'project', 'keep-me')
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['agents', 'delete', 'keep-me', '--agent', 'cst-agent', '--json']),
      loadout(sb, ['agents', 'delete', 'keep-me', '--agent', 'cst-agent']),
    ])
    expect(json.status).toBe(8)
    expect(jsonError(json)).toMatchObject({code: 'answer-needed', message: expect.stringContaining(file)})
    expect(text.status).toBe(8)
    expect(text.stderr).toContain('no terminal to ask on')
    expect(text.stderr).toContain('pass --yes')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('--dry-run shows what would go and removes nothing', async ({expect}) => {
    const sb = sandbox({git: true})
    for (const agent of AGENTS) handMade(sb, agent, 'user', 'maybe')
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['agents', 'delete', 'maybe', '--agent', 'claude-code,deepagents,cst-agent,universal', '--scope', 'user', '--dry-run', '--json']),
      loadout(sb, ['agents', 'delete', 'maybe', '--agent', 'deepagents', '--scope', 'user', '--dry-run']),
    ])
    expect(json.status, json.stdout).toBe(0)
    const result = json.json<DeletedSubagent>()
    expect(result).toMatchObject({name: 'maybe', scope: 'user', dryRun: true, skipped: [{agent: 'universal'}]})
    expect(result.removals.map((r) => r.path)).toEqual(AGENTS.map((a) => entryOf(sb, a, 'user', 'maybe')))
    expect(text.status, text.stderr).toBe(0)
    expect(text.stdout).toContain(`would delete ${entryOf(sb, 'deepagents', 'user', 'maybe')}`)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('--yes removes the subagent in the chosen scope only, and nothing else', async ({expect}) => {
    const sb = sandbox({git: true})
    handMade(sb, 'deepagents', 'project', 'gone')
    writeFileSync(join(entryOf(sb, 'deepagents', 'project', 'gone'), 'extra.md'), 'more')
    handMade(sb, 'deepagents', 'project', 'gone-not')
    handMade(sb, 'claude-code', 'project', 'gone')
    handMade(sb, 'claude-code', 'project', 'gone-not')
    const userCopy = handMade(sb, 'claude-code', 'user', 'gone')
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['agents', 'delete', 'gone', '--agent', 'claude-code,deepagents', '--yes', '--json'])
    expect(result.status, result.stdout).toBe(0)
    expect(result.json<DeletedSubagent>()).toMatchObject({scope: 'project', dryRun: false})
    expect(entries(join(sb.project, '.deepagents/agents'))).toEqual(['gone-not'])
    expect(entries(join(sb.project, '.claude/agents'))).toEqual(['gone-not.md'])
    expect(changesOutside(changes(before, snapshot(sb.dir)), [relEntry('deepagents', 'project', 'gone'), relEntry('claude-code', 'project', 'gone')])).toEqual(
      [],
    )
    expect(existsSync(userCopy)).toBe(true)
  })

  it('an unknown subagent exits 3 and suggests the other scope', async ({expect}) => {
    const sb = sandbox({git: true})
    const file = handMade(sb, 'claude-code', 'user', 'elsewhere')
    const result = await loadout(sb, ['agents', 'delete', 'elsewhere', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status).toBe(3)
    expect(jsonError(result)).toMatchObject({code: 'subagent-not-found', message: expect.stringContaining('"elsewhere"')})
    expect(jsonError(result).suggestions).toContain('look in the other scope: loadout agents delete elsewhere --scope user')
    expect(existsSync(file)).toBe(true)
  })

  it('refuses a subagent file or folder that is a symbolic link, leaving the link and its target', async ({expect}) => {
    const sb = sandbox({git: true})
    const outsideFile = writeMd(join(sb.dir, 'outside/linked.md'), {name: 'linked', description: 'outside'})
    const outsideDir = dirname(writeMd(join(sb.dir, 'outside/deep/AGENTS.md'), {name: 'linked', description: 'outside'}))
    mkdirSync(join(sb.project, '.claude/agents'), {recursive: true})
    mkdirSync(join(sb.project, '.deepagents/agents'), {recursive: true})
    symlinkSync(outsideFile, join(sb.project, '.claude/agents/linked.md'))
    symlinkSync(outsideDir, join(sb.project, '.deepagents/agents/linked'))
    const before = snapshot(sb.dir)
    const results = await Promise.all(
      ['claude-code', 'deepagents'].map((agent) => loadout(sb, ['agents', 'delete', 'linked', '--agent', agent, '--yes', '--json'])),
    )
    for (const result of results) {
      expect(result.status, result.stdout).toBe(4)
      expect(jsonError(result)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining('is a symbolic link')})
    }
    expect(changes(before, snapshot(sb.dir))).toEqual([])
    expect(lstatSync(join(sb.project, '.claude/agents/linked.md')).isSymbolicLink()).toBe(true)
  })

  it('refuses when the agents folder resolves outside, through a link, and deletes nothing there', async ({expect}) => {
    const sb = sandbox({git: true})
    const elsewhere = join(sb.dir, 'elsewhere')
    const victim = writeMd(join(elsewhere, 'victim.md'), {name: 'victim', description: 'not yours'})
    mkdirSync(join(sb.home, '.config/cst-agent'), {recursive: true})
    symlinkSync(elsewhere, join(sb.home, '.config/cst-agent/agents'))
    const before = snapshot(sb.dir)
    const [del, list] = await Promise.all([
      loadout(sb, ['agents', 'delete', 'victim', '--agent', 'cst-agent', '--scope', 'user', '--yes', '--json']),
      loadout(sb, ['agents', 'list', '--agent', 'cst-agent', '--scope', 'user', '--json']),
    ])
    expect(del.status).toBe(4)
    expect(jsonError(del)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining(join(sb.home, '.config/cst-agent/agents'))})
    expect(readFileSync(victim, 'utf8')).toContain('not yours')
    // listing reads through it, and says it will not write there
    expect(list.json<SubagentsListResult>().folders[0]!.problems.map((p) => p.code)).toEqual(['subagents-folder-link'])
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('refuses names that could reach outside the agents folder, before looking', async ({expect}) => {
    const sb = sandbox({git: true})
    handMade(sb, 'claude-code', 'project', 'inner')
    const outer = writeMd(join(sb.project, '.claude/outer.md'), {name: 'outer', description: 'outside the agents folder'})
    const before = snapshot(sb.dir)
    const results = await Promise.all(
      ['../outer', '..', 'inner/../../outer', 'Inner'].map((name) => loadout(sb, ['agents', 'delete', name, '--agent', 'claude-code', '--yes', '--json'])),
    )
    for (const result of results) {
      expect(result.status).toBe(2)
      expect(jsonError(result).message).toMatch(/^invalid subagent name: /)
    }
    expect(existsSync(outer)).toBe(true)
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('refuses an installed subagent and points to loadout uninstall', async ({expect}) => {
    const sb = sandbox({git: true})
    const file = handMade(sb, 'deepagents', 'user', 'plugged')
    writeState(sb.home, [{plugin: 'review@acme', target: 'deepagents', scope: 'user', files: [file]}])
    const before = snapshot(sb.dir)
    const [json, text] = await Promise.all([
      loadout(sb, ['agents', 'delete', 'plugged', '--agent', 'deepagents', '--scope', 'user', '--yes', '--json']),
      loadout(sb, ['agents', 'delete', 'plugged', '--agent', 'deepagents', '--scope', 'user', '--dry-run']),
    ])
    expect(json.status).toBe(5)
    expect(jsonError(json)).toMatchObject({code: 'subagent-owned', message: expect.stringContaining('review@acme')})
    expect(jsonError(json).suggestions).toContain('remove it with: loadout uninstall review@acme')
    expect(text.status).toBe(5)
    expect(text.stderr).toContain('loadout uninstall review@acme')
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })

  it('refuses a folder where a subagent file should be', async ({expect}) => {
    const sb = sandbox({git: true})
    const odd = join(sb.project, '.claude/agents/odd.md')
    mkdirSync(join(odd, 'inside'), {recursive: true})
    const before = snapshot(sb.dir)
    const result = await loadout(sb, ['agents', 'delete', 'odd', '--agent', 'claude-code', '--yes', '--json'])
    expect(result.status).toBe(4)
    expect(jsonError(result)).toMatchObject({code: 'unsafe-path', message: expect.stringContaining('not a regular file')})
    expect(changes(before, snapshot(sb.dir))).toEqual([])
  })
})
