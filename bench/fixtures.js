// Fixture generation for the benchmarks: temporary homes and projects, and skill trees.
// Nothing here touches the real HOME: every path lives under one temporary folder per scenario,
// and every folder made here is removed by cleanup() (or cleanupAll() on exit / Ctrl-C).
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const live = new Set()

/**
 * Variables that would let a child process escape the temporary home (agent homes, loadout's own
 * overrides, debugging or colour switches that change the work being timed). They are removed from
 * the child environment before the temporary paths are set.
 */
const SCRUB = [
  /^LOADOUT_/,
  /^XDG_/,
  /^CLAUDE_CONFIG_DIR$/,
  /^CODEX_HOME$/,
  /^CHARACTOID_HOME$/,
  /^APPDATA$/,
  /^DEBUG$/,
  /^FORCE_COLOR$/,
  /^NODE_OPTIONS$/,
  /^GIT_/,
]

/** A copy of `base` without the variables above. */
export const scrubEnv = (base = process.env) =>
  Object.fromEntries(Object.entries(base).filter(([key]) => !SCRUB.some((re) => re.test(key))))

/**
 * Makes a temporary root holding `home/` and `project/` (a git work tree: `project/.git` exists),
 * and an environment for child processes in which HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME,
 * XDG_DATA_HOME, XDG_STATE_HOME and LOADOUT_HOME all point inside it, with NO_COLOR=1.
 *
 * Returns {root, home, project, env, path(...parts), cleanup()}.
 */
export const makeTempHome = (label = 'bench') => {
  const root = mkdtempSync(join(tmpdir(), `loadout-bench-${label.replace(/[^a-z0-9-]/gi, '-')}-`))
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(join(project, '.git'), {recursive: true})
  mkdirSync(home, {recursive: true})
  const env = {
    ...scrubEnv(),
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    LOADOUT_HOME: join(home, '.loadout'),
    GIT_CONFIG_NOSYSTEM: '1',
    NO_COLOR: '1',
  }
  const temp = {
    root,
    home,
    project,
    env,
    path: (...parts) => join(root, ...parts),
    cleanup() {
      rmSync(root, {recursive: true, force: true})
      live.delete(temp)
    },
  }
  live.add(temp)
  return temp
}

/** Removes every temporary folder still alive (used on exit and on interruption). */
export const cleanupAll = () => {
  for (const temp of [...live]) temp.cleanup()
}

const FILLER = [
  'Read the request and decide whether this skill applies before doing anything else.',
  'Prefer small, reversible steps; check the result of each one before going on.',
  'When a command fails, read its message, fix the cause and run it again once.',
  'Keep the user informed with one short line per step, and stop when the goal is met.',
  'Never write outside the project folder unless the user asked for it in so many words.',
]

/** A SKILL.md body of about `bytes` bytes: headings, a numbered list and prose. */
export const skillBody = (title, bytes = 2048) => {
  const lines = [`# ${title}`, '', '## When to use this skill', '', ...FILLER.slice(0, 2), '', '## Instructions', '']
  let size = lines.join('\n').length
  for (let i = 0; size < bytes; i++) {
    const line = `${i + 1}. ${FILLER[i % FILLER.length]}`
    lines.push(line)
    size += line.length + 1
  }
  return `${lines.join('\n')}\n`
}

/** Writes `<dir>/<name>/SKILL.md`: valid frontmatter (name equal to the folder) and a body. */
export const writeSkill = (dir, name, {bodyBytes = 2048, description} = {}) => {
  const folder = join(dir, name)
  mkdirSync(folder, {recursive: true})
  const desc = description ?? `Benchmark skill ${name}: use it when a task mentions ${name.replace(/-/g, ' ')}.`
  writeFileSync(join(folder, 'SKILL.md'), `---\nname: ${name}\ndescription: ${desc}\n---\n\n${skillBody(name, bodyBytes)}`)
  return folder
}

/** Writes `count` skills named `<prefix>-0001`… into `dir`; returns their names. */
export const writeSkills = (dir, count, prefix, options) => {
  mkdirSync(dir, {recursive: true})
  const names = []
  for (let i = 1; i <= count; i++) {
    const name = `${prefix}-${String(i).padStart(4, '0')}`
    writeSkill(dir, name, options)
    names.push(name)
  }
  return names
}

/**
 * The `skills list` fixture: 500 skills over 3 folders of a temporary home and project
 * (200 in project .claude/skills, 150 in project .agents/skills, 150 in ~/.claude/skills).
 * Returns {folders, populated, total}: `folders` is every skills folder that
 * `--agent claude-code,codex` reads (existing or not), `populated` those written here.
 */
export const makeSkillsFixture = (temp, {project = 200, agents = 150, user = 150, bodyBytes = 2048} = {}) => {
  const populated = [
    {dir: join(temp.project, '.claude', 'skills'), count: project, prefix: 'proj-claude'},
    {dir: join(temp.project, '.agents', 'skills'), count: agents, prefix: 'proj-agents'},
    {dir: join(temp.home, '.claude', 'skills'), count: user, prefix: 'user-claude'},
  ]
  for (const {dir, count, prefix} of populated) writeSkills(dir, count, prefix, {bodyBytes})
  const folders = [
    ...populated.map((p) => p.dir),
    join(temp.home, '.agents', 'skills'),
    join(temp.home, '.codex', 'skills'),
  ]
  return {folders, populated: populated.map((p) => p.dir), total: project + agents + user}
}
