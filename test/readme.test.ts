import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
// plain ESM JavaScript, shared with the command line
import {END, extractAgentSection, loadAgents, renderAgentTable, replaceAgentSection, START} from '../bin/readme-agents.mjs'

const ROOT = join(import.meta.dirname, '..')
const SCRIPT = join(ROOT, 'bin', 'readme-agents.mjs')
const tmp = mkdtempSync(join(tmpdir(), 'loadout-readme-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

type Agent = {id: string; [key: string]: any}
const agents = () => loadAgents() as Agent[]
const rowOf = (table: string, id: string) => table.split('\n').find((line) => line.startsWith(`| \`${id}\` |`))
const cells = (row: string) => row.slice(2, -2).split(/(?<!\\) \| /)

describe('the README agent table', () => {
  it('is the table generated from registry/agents (run node bin/readme-agents.mjs when this fails)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(extractAgentSection(readme)).toBe(renderAgentTable(agents()))
  })

  it('passes the script --check', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '--check'], {cwd: ROOT, encoding: 'utf8'})
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
  })
})

describe('renderAgentTable', () => {
  const table = renderAgentTable(agents())

  it('has a row for every agent, in id order, with every column', () => {
    const ids = agents().map((a) => a.id)
    const rows = table.split('\n').filter((line) => line.startsWith('| `'))
    expect(rows.map((r) => /^\| `([^`]+)`/.exec(r)![1])).toEqual([...ids].sort())
    const header = cells(table.split('\n')[0]!)
    expect(header).toEqual([
      'Agent',
      'Name',
      'Confidence',
      'Homes',
      'Skills',
      'Subagents',
      'MCP servers',
      'Hooks / plugins',
      'Slash commands',
      'Plugins',
      'Start-up budget',
      'Confirmed by',
    ])
    for (const row of rows) expect(cells(row), row).toHaveLength(header.length)
  })

  it("shows each agent's start-up budget from its registry file, with the source, or that it documents none", () => {
    expect(cells(rowOf(table, 'claude-code')!)[10]).toBe(
      '8000 chars (skills, commands) `$SLASH_COMMAND_TOOL_CHAR_BUDGET`<br>[source](https://code.claude.com/docs/en/skills)',
    )
    expect(cells(rowOf(table, 'codex')!)[10]).toContain('8000 chars (skills)')
    expect(cells(rowOf(table, 'cursor')!)[10]).toBe('none documented')
  })

  it('shows the paths of each scope, the homes and the keys', () => {
    const claude = cells(rowOf(table, 'claude-code')!)
    expect(claude[3]).toContain('`$CLAUDE_CONFIG_DIR`, else `~/.claude`')
    expect(claude[4]).toBe('user `{config}/skills`<br>project `.claude/skills`')
    expect(claude[6]).toContain('user `{state}` key `mcpServers`')
    expect(claude[7]).toContain('hooks: project `.claude/settings.json`')
    const cst = cells(rowOf(table, 'cst-agent')!)
    expect(cst[3]).toContain('`%APPDATA%\\cst-agent` (Windows only)')
    expect(cst[7]).toContain('plugins: project `.agent/plugins` (trusted workspace only)')
    expect(claude[8]).toBe('project `.claude/commands`<br>user `{config}/commands`')
    const gemini = cells(rowOf(table, 'gemini-cli')!)
    expect(gemini[8]).toBe('project `.gemini/commands`<br>user `{gemini}/commands`<br>format `gemini-toml`')
    const copilot = cells(rowOf(table, 'github-copilot')!)
    expect(copilot[8]).toBe('project `.github/prompts`<br>format `copilot-prompt`')
    expect(cells(rowOf(table, 'opencode')!)[8]).toBe(
      'project `.opencode/commands`<br>project `.opencode/command`<br>user `{config}/commands`<br>user `{config}/command`',
    )
    expect(copilot[6]).toBe(
      'project `.github/mcp.json` key `mcpServers` (trusted workspace only)<br>project `.mcp.json` key `mcpServers` (trusted workspace only)<br>user `{copilot}/mcp-config.json` key `mcpServers`',
    )
    expect(copilot[11]).toMatch(/^`@github\/copilot@\d+\.\d+\.\d+`: mcp user/)
    expect(cells(rowOf(table, 'opencode')!)[6]).toContain('user `{config}/opencode.json` key `mcp`')
    expect(cells(rowOf(table, 'codex')!)[6]).toContain('project `.codex/config.toml` key `mcp_servers` (trusted workspace only)')
    expect(cells(rowOf(table, 'codex')!)[8]).toBe('—')
    expect(cells(rowOf(table, 'gemini-cli')!)[5]).toContain('user `{gemini}/agents`')
    // the Plugins column: native (the default, and the flag for loose parts) or loose parts, and who confirmed it
    expect(claude[9]).toMatch(
      /^native \(default; `--loose`: loose parts\)<br>project `\.claude\/settings\.json`<br>user `\{config\}\/settings\.json`<br>confirmed by: @anthropic-ai\/claude-code@2\.1\.332$/,
    )
    expect(cells(rowOf(table, 'codex')!)[9]).toBe('loose parts<br>confirmed by: @openai/codex@0.171.0')
  })

  it('marks unconfirmed agents and rows, and only those', () => {
    const characteroid = cells(rowOf(table, 'characteroid')!)
    expect(characteroid[2]).toBe('unconfirmed')
    expect(characteroid[4]).toContain('(unconfirmed)')
    expect(characteroid[6]).toContain('(unconfirmed)')
    const codex = cells(rowOf(table, 'codex')!)
    expect(codex[2]).toBe('confirmed')
    expect(codex[5]).toBe('project `.codex/agents` (trusted workspace only)<br>user `{codex}/agents`<br>format `codex-agent-toml`')
    expect(codex[7]).toContain('(unconfirmed)')
    expect(codex[4]).not.toContain('unconfirmed')
    expect(codex[6]).not.toContain('unconfirmed')
    expect(codex[5]).not.toContain('unconfirmed')
    expect(rowOf(table, 'claude-code')).not.toContain('unconfirmed')
  })

  it('says that lexora is not written to', () => {
    const lexora = cells(rowOf(table, 'lexora')!)
    expect(lexora[1]).toMatch(/installs packages itself/)
    expect(lexora.slice(3)).toEqual(['—', '—', '—', '—', '—', '—', '—', '—', '—'])
  })

  it('changes when a target changes, and escapes pipes', () => {
    const changed = agents().map((a) =>
      a.id === 'universal'
        ? {...a, name: 'A | B', skills: {...a.skills, locations: [...a.skills.locations, {scope: 'user', path: '~/.more/skills', confidence: 'unconfirmed'}]}}
        : a,
    )
    const other = renderAgentTable(changed)
    expect(other).not.toBe(table)
    const row = rowOf(other, 'universal')!
    expect(row).toContain('A \\| B')
    expect(cells(row)[4]).toContain('user `~/.more/skills` (unconfirmed)')
    expect(cells(row)).toHaveLength(12)
  })
})

describe('the README section', () => {
  const readme = (section: string) => `# loadout\n\nintro\n\n${START}\n${section}\n${END}\n\nafter\n`

  it('replaces only the text between the markers', () => {
    const replaced = replaceAgentSection(readme('old table'), 'new table')
    expect(replaced).toBe(readme('new table'))
    expect(extractAgentSection(replaced)).toBe('new table')
    expect(replaceAgentSection(`${START}${END}`, 't')).toBe(`${START}\nt\n${END}`)
  })

  it('refuses a README without both markers, in order, once each', () => {
    for (const bad of ['# loadout\n', `${START}\n`, `${END}\n${START}\n`, `${START}\n${END}\n${START}\n${END}\n`]) {
      expect(() => replaceAgentSection(bad, 't'), bad).toThrow(/agents:start/)
    }
  })

  it('--check exits 1 on a stale README and leaves it alone; a rewrite makes it pass', () => {
    const file = join(tmp, 'README.md')
    const stale = readme('| stale |')
    writeFileSync(file, stale)
    const checked = spawnSync(process.execPath, [SCRIPT, '--check', file], {encoding: 'utf8'})
    expect(checked.status).toBe(1)
    expect(checked.stderr).toMatch(/stale/)
    expect(readFileSync(file, 'utf8')).toBe(stale)

    execFileSync(process.execPath, [SCRIPT, file])
    const written = readFileSync(file, 'utf8')
    expect(written.startsWith('# loadout\n\nintro\n\n')).toBe(true)
    expect(written.endsWith(`${END}\n\nafter\n`)).toBe(true)
    expect(extractAgentSection(written)).toBe(renderAgentTable(agents()))
    expect(spawnSync(process.execPath, [SCRIPT, '--check', file]).status).toBe(0)
  })

  it('exits 2 when the markers are missing', () => {
    const file = join(tmp, 'NO-MARKERS.md')
    writeFileSync(file, '# loadout\n')
    const run = spawnSync(process.execPath, [SCRIPT, '--check', file], {encoding: 'utf8'})
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('agents:start')
  })
})
