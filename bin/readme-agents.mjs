#!/usr/bin/env node
// Renders the README's agent table from registry/agents/*.json and puts it between
// <!-- agents:start --> and <!-- agents:end --> in README.md.
//
//   node bin/readme-agents.mjs            rewrite the section (only when it changed)
//   node bin/readme-agents.mjs --check    exit 1 when the section is stale, write nothing
//   node bin/readme-agents.mjs [--check] path/to/README.md
//
// Plain ESM with no dependencies, so it runs before (and without) a build.
import {readdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

export const AGENTS_DIR = join(root, 'registry', 'agents')
export const README = join(root, 'README.md')
export const START = '<!-- agents:start -->'
export const END = '<!-- agents:end -->'

/** Every agent target, sorted by id (the order of their file names). */
export const loadAgents = (dir = AGENTS_DIR) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))

const SCOPE_ORDER = ['project', 'user']

const cell = (text) => text.replaceAll('|', '\\|').replaceAll('\n', ' ')
const code = (text) => `\`${text}\``

/** One home candidate: an environment variable (with its sub-folder) or a path, and its platform. */
const candidate = (c) => {
  const windows = c.platform === 'win32'
  const base = c.env ? (windows ? `%${c.env}%` : `$${c.env}`) : c.path
  const joined = c.join ? `${base}${windows ? '\\' : '/'}${c.join}` : base
  const platform = c.platform ? ` (${c.platform === 'win32' ? 'Windows' : c.platform === 'darwin' ? 'macOS' : 'Linux'} only)` : ''
  return `${code(joined)}${platform}`
}

const homes = (agent) => {
  const bases = Object.entries(agent.bases ?? {})
  if (bases.length === 0) return '—'
  return bases.map(([name, candidates]) => `${code(`{${name}}`)} = ${candidates.map(candidate).join(', else ')}`).join('<br>')
}

const UNCONFIRMED = ' (unconfirmed)'

/** The entries of one section: scope, path, key, marks; in the agent's load order for skills. */
const entries = (agent, sectionName, label = '') => {
  const section = agent[sectionName]
  if (!section) return []
  const order = sectionName === 'skills' && section.precedence ? section.precedence : SCOPE_ORDER
  const sectionUnconfirmed = agent.confidence === 'unconfirmed' || section.confidence === 'unconfirmed'
  return order.flatMap((scope) =>
    section.locations
      .filter((l) => l.scope === scope)
      .map((l) => {
        const key = l.key ?? section.key
        const marks = [
          key ? ` key ${code(key)}` : '',
          l.requiresTrust ? ' (trusted workspace only)' : '',
          sectionUnconfirmed || l.confidence === 'unconfirmed' ? UNCONFIRMED : '',
        ].join('')
        return `${label}${scope} ${code(l.path)}${marks}`
      }),
  )
}

const FORMAT_SHOWN = {skills: (s) => s.format !== 'agent-skills', subagents: () => true, commands: (s) => s.format !== 'markdown'}

/** A cell: every entry on its own line, with the section's format where it tells something. */
const sectionCell = (agent, name) => {
  const lines = entries(agent, name)
  if (lines.length === 0) return '—'
  const section = agent[name]
  const extra = []
  if (FORMAT_SHOWN[name]?.(section)) extra.push(`format ${code(section.format)}`)
  if (name === 'skills' && section.dialect && section.dialect !== 'spec') extra.push(`${section.dialect} dialect`)
  return [...lines, ...extra].join('<br>')
}

const hooksAndPlugins = (agent) => {
  const lines = [...entries(agent, 'hooks', 'hooks: '), ...entries(agent, 'plugins', 'plugins: ')]
  return lines.length === 0 ? '—' : lines.join('<br>')
}

/** Which vendor CLI, at which version, listed what loadout wrote: what each check covered. */
const confirmedBy = (agent) => {
  const lines = (agent.confirmedBy ?? []).map((c) => `${code(`${c.cli}@${c.version}`)}: ${c.checks.map((check) => check.split(':')[0]).join('; ')}`)
  return lines.length === 0 ? '—' : lines.join('<br>')
}

/** Native plugin (the default, with the flag that asks for loose parts instead, and the settings it edits) or loose parts, and who confirmed it. */
const pluginForm = (agent) => {
  const form = agent.pluginForm
  if (!form) return '—'
  const how =
    form.form !== 'native'
      ? 'loose parts'
      : form.flag === '--native'
        ? `native (with ${code(form.flag)})`
        : `native (default${form.flag ? `; ${code(form.flag)}: loose parts` : ''})`
  return [how, ...entries({pluginForm: {...form, locations: form.locations ?? []}}, 'pluginForm'), `confirmed by: ${form.confirmedBy.split(':')[0]}`].join(
    '<br>',
  )
}

/** The budget the agent documents for the descriptions it lists at start-up, with its source (`loadout budget`). */
const startupBudget = (agent) => {
  const b = agent.startupBudget
  if (!b || b.chars === null) return 'none documented'
  const covers = b.covers.join(', ')
  return `${b.chars} chars (${covers})${b.env ? ` ${code(`$${b.env}`)}` : ''}<br>[source](${b.source})`
}

/** The Markdown table (and its legend) for the README, from the parsed target files. */
export const renderAgentTable = (agents) => {
  const header = [
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
  ]
  const rows = [...agents]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((agent) => {
      const installs = agent.installs !== false
      const name = installs ? agent.name : `${agent.name} (installs packages itself: loadout validates, scaffolds and packs, and writes no folder)`
      return [
        code(agent.id),
        name,
        agent.confidence,
        installs ? homes(agent) : '—',
        sectionCell(agent, 'skills'),
        sectionCell(agent, 'subagents'),
        sectionCell(agent, 'mcp'),
        hooksAndPlugins(agent),
        sectionCell(agent, 'commands'),
        installs ? pluginForm(agent) : '—',
        installs ? startupBudget(agent) : '—',
        installs ? confirmedBy(agent) : '—',
      ]
    })
  const line = (cells) => `| ${cells.map(cell).join(' | ')} |`
  return [
    line(header),
    line(header.map(() => '---')),
    ...rows.map(line),
    '',
    '`{name}` stands for a home folder from the Homes column (the first that applies); project paths are',
    'relative to the project root. Skills folders are listed in load order: the first wins when two',
    'skills share a name. "Confirmed by" names the agent\'s own CLI, at the version pinned in',
    '`test/support/vendor-clis.js`, that listed what loadout wrote there (`test/e2e/vendor-cli.test.ts`).',
    '"Plugins" says whether a plugin reaches the agent as its own plugin (native, the default where the',
    'agent has one: it namespaces the parts, `<plugin>:<part>`; the flag named asks for loose parts',
    'instead) or as loose parts in its folders (a name another plugin holds becomes `<plugin>-<part>`),',
    'and what confirmed it (`pluginForm` in `registry/agents/`).',
    '"Start-up budget" is what the agent documents for the names and descriptions it lists when it starts',
    '(`loadout budget` counts them against it).',
  ].join('\n')
}

const markers = (text) => {
  const start = text.indexOf(START)
  const end = text.indexOf(END)
  if (start === -1 || end === -1 || end < start || text.indexOf(START, start + 1) !== -1 || text.indexOf(END, end + 1) !== -1) {
    throw new Error(`README must hold ${START} and then ${END}, once each`)
  }
  return {start, end}
}

/** The text between the markers, without the newlines that frame it. */
export const extractAgentSection = (readme) => {
  const {start, end} = markers(readme)
  return readme
    .slice(start + START.length, end)
    .replace(/^\r?\n/, '')
    .replace(/\r?\n$/, '')
}

/** The README with the text between the markers replaced by `table`. */
export const replaceAgentSection = (readme, table) => {
  const {start, end} = markers(readme)
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`
}

const main = (argv) => {
  const check = argv.includes('--check')
  const unknown = argv.filter((a) => a.startsWith('-') && a !== '--check')
  const paths = argv.filter((a) => !a.startsWith('-'))
  if (unknown.length > 0 || paths.length > 1) {
    process.stderr.write('usage: node bin/readme-agents.mjs [--check] [README.md]\n')
    return 2
  }
  const readmePath = paths[0] ? resolve(paths[0]) : README
  let readme
  let updated
  try {
    readme = readFileSync(readmePath, 'utf8')
    updated = replaceAgentSection(readme, renderAgentTable(loadAgents()))
  } catch (error) {
    process.stderr.write(`error: ${readmePath}: ${error instanceof Error ? error.message : String(error)}\n`)
    return 2
  }
  if (updated === readme) return 0
  if (check) {
    process.stderr.write(`error: the agent table in ${readmePath} is stale\n  run: node bin/readme-agents.mjs\n`)
    return 1
  }
  const staged = `${readmePath}.${process.pid}.tmp`
  writeFileSync(staged, updated)
  renameSync(staged, readmePath)
  process.stdout.write(`updated the agent table in ${readmePath}\n`)
  return 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2))
}
