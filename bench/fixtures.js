// Fixture generation for the benchmarks: temporary homes and projects, and skill trees.
// Nothing here touches the real HOME: every path lives under one temporary folder per scenario,
// and every folder made here is removed by cleanup() (or cleanupAll() on exit / Ctrl-C).
import {execFileSync} from 'node:child_process'
import {chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'

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
  // Node reads every certificate it names at start-up, before any script (a system bundle: ~65 ms on this
  // machine, for both sides of every scenario alike); the network scenarios set it to their own CA
  /^NODE_EXTRA_CA_CERTS$/,
  /^GIT_/,
  // `npm run` sets EDITOR for scripts; no process the bench times should see the caller's editor or pager
  /^EDITOR$/,
  /^VISUAL$/,
  /^PAGER$/,
]

/** A copy of `base` without the variables above. */
export const scrubEnv = (base = process.env) => Object.fromEntries(Object.entries(base).filter(([key]) => !SCRUB.some((re) => re.test(key))))

/**
 * Makes a temporary root holding `home/` and `project/` (a git work tree: `project/.git` exists),
 * and an environment for child processes in which HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME,
 * XDG_DATA_HOME, XDG_STATE_HOME and LOADOUT_HOME all point inside it, with NO_COLOR=1.
 *
 * Returns {root, home, project, env, path(...parts), onCleanup(fn), cleanup()}.
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
  const hooks = []
  const temp = {
    root,
    home,
    project,
    env,
    path: (...parts) => join(root, ...parts),
    /** runs `fn` first when the folder is cleaned up (to stop a server living in it, for instance) */
    onCleanup(fn) {
      hooks.push(fn)
    },
    cleanup() {
      for (const fn of hooks.splice(0)) {
        try {
          fn()
        } catch {
          // keep cleaning
        }
      }
      // the scenario's files go with the trash at the end, not between scenarios (see moveAside)
      moveAside(root)
      live.delete(temp)
    },
  }
  live.add(temp)
  return temp
}

/** Removes every temporary folder still alive (used on exit and on interruption). */
export const cleanupAll = () => {
  for (const temp of [...live]) temp.cleanup()
  emptyTrash()
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
  const folders = [...populated.map((p) => p.dir), join(temp.home, '.agents', 'skills'), join(temp.home, '.codex', 'skills')]
  return {folders, populated: populated.map((p) => p.dir), total: project + agents + user}
}

// ---------------------------------------------------------------------------------------------
// Folders: snapshots, to reset a home between runs without running loadout

/** Copies `src` to `dst` (replacing it): modes, timestamps and symbolic links as they are. */
// a git started by loadout may still be packing in the background (gc --auto): retry removals
const RM = {recursive: true, force: true, maxRetries: 10, retryDelay: 100}

// Resets between timed runs move the old tree aside instead of deleting it: on this VM's disk
// (ext4 mounted with `discard`) deleting thousands of files stalls the file creations of the next
// timed run for a while, charging one side for the other's cleanup. The trash goes at the end.
let trash
let trashed = 0
export const moveAside = (path) => {
  if (!existsSync(path)) return
  trash ??= mkdtempSync(join(tmpdir(), 'loadout-bench-trash-'))
  renameSync(path, join(trash, String(trashed++)))
}

export const emptyTrash = () => {
  if (trash) rmSync(trash, RM)
  trash = undefined
}

export const copyTree = (src, dst) => {
  moveAside(dst)
  mkdirSync(dirname(dst), {recursive: true})
  cpSync(src, dst, {recursive: true, verbatimSymlinks: true, preserveTimestamps: true})
}

/** Empties a folder (or makes it). */
export const emptyDir = (dir) => {
  moveAside(dir)
  mkdirSync(dir, {recursive: true})
}

// ---------------------------------------------------------------------------------------------
// Git repositories, served as bare repositories by bench/servers.js

const AUTHOR = {name: 'Loadout Bench', email: 'bench@loadout.invalid'}
const BASE_DATE = 1_704_067_200 // 2024-01-01T00:00:00Z

/** A hermetic environment for building repositories: no user or system config, fixed identity. */
export const gitEnv = (extra = {}) => ({
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C',
  LC_ALL: 'C',
  HOME: '/nonexistent',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: AUTHOR.name,
  GIT_AUTHOR_EMAIL: AUTHOR.email,
  GIT_COMMITTER_NAME: AUTHOR.name,
  GIT_COMMITTER_EMAIL: AUTHOR.email,
  ...(process.env.TMPDIR ? {TMPDIR: process.env.TMPDIR} : {}),
  ...extra,
})

/** Runs git synchronously in `cwd`; returns trimmed stdout. */
export const git = (cwd, args, extraEnv = {}) => {
  try {
    return execFileSync('git', args, {cwd, env: gitEnv(extraEnv), stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, maxBuffer: 64 * 1024 * 1024})
      .toString()
      .trim()
  } catch (error) {
    throw new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${error.stderr?.toString().trim() || error.message}`)
  }
}

/** Writes files (path -> text, or {content, mode}) under `root`. */
export const writeTree = (root, files) => {
  for (const [path, spec] of Object.entries(files)) {
    if (path.startsWith('/') || path.split('/').includes('..')) throw new Error(`fixture path must stay inside: ${path}`)
    const full = join(root, path)
    mkdirSync(dirname(full), {recursive: true})
    const {content, mode} = typeof spec === 'string' ? {content: spec, mode: 0o644} : spec
    writeFileSync(full, content)
    chmodSync(full, mode ?? 0o644)
  }
}

/**
 * Builds a repository with one commit holding `files` in `<workRoot>/<owner>/<name>` and a bare
 * copy at `<gitRoot>/<owner>/<name>.git` (what the server serves). Returns {workTree, bare, commit}.
 */
export const makeServedRepo = (workRoot, gitRoot, repo, files, {message = 'initial'} = {}) => {
  const workTree = join(workRoot, repo)
  const bare = join(gitRoot, `${repo}.git`)
  mkdirSync(workTree, {recursive: true})
  git(workTree, ['init', '-q', '-b', 'main'])
  writeTree(workTree, files)
  git(workTree, ['add', '-A'])
  const date = `@${BASE_DATE} +0000`
  git(workTree, ['commit', '-q', '-m', message], {GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date})
  mkdirSync(dirname(bare), {recursive: true})
  git(dirname(bare), ['clone', '-q', '--bare', workTree, bare])
  return {workTree, bare, commit: git(workTree, ['rev-parse', 'HEAD'])}
}

// ---------------------------------------------------------------------------------------------
// Plugins and marketplaces

const para = (topic, bytes) => {
  let text = ''
  for (let i = 0; text.length < bytes; i++) text += `${FILLER[i % FILLER.length]} (${topic}, note ${i + 1})\n`
  return text
}

/**
 * A Claude-style plugin of exactly 50 files: a manifest, 5 skills (SKILL.md, 5 references and a
 * script each), 3 subagents, 3 commands, an .mcp.json, hooks/hooks.json, 3 executables, and
 * README, LICENSE, CHANGELOG. Paths are relative to the plugin root.
 */
export const toolkitPluginFiles = (name = 'toolkit', {version = '1.0.0'} = {}) => {
  const files = {
    '.claude-plugin/plugin.json': `${JSON.stringify({name, version, description: `The ${name} benchmark plugin: skills, subagents, an MCP server and hooks`, author: {name: 'Acme'}, keywords: ['bench', 'toolkit']}, null, 2)}\n`,
    'README.md': `# ${name}\n\n${para('readme', 1500)}`,
    LICENSE: 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software.\n',
    'CHANGELOG.md': `# Changelog\n\n## ${version}\n\n- first release\n`,
    '.mcp.json': `${JSON.stringify({mcpServers: {linter: {command: '${CLAUDE_PLUGIN_ROOT}/bin/lint', args: ['--stdio'], env: {LINT_LEVEL: 'strict'}}}}, null, 2)}\n`,
    'hooks/hooks.json': `${JSON.stringify({hooks: {PostToolUse: [{matcher: 'Edit|Write', hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/bin/check'}]}], SessionStart: [{hooks: [{type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/bin/hello'}]}]}}, null, 2)}\n`,
    'bin/lint': {content: '#!/bin/sh\necho lint\n', mode: 0o755},
    'bin/check': {content: '#!/bin/sh\necho check\n', mode: 0o755},
    'bin/hello': {content: '#!/bin/sh\necho hello\n', mode: 0o755},
  }
  for (const skill of ['pdf-tools', 'sql-review', 'release-notes', 'test-triage', 'api-design']) {
    files[`skills/${skill}/SKILL.md`] =
      `---\nname: ${skill}\ndescription: Use when a task mentions ${skill.replace(/-/g, ' ')}; read the references it points to.\n---\n\n${skillBody(skill, 3000)}`
    for (let r = 1; r <= 5; r++) files[`skills/${skill}/references/ref-${r}.md`] = `# ${skill} reference ${r}\n\n${para(`${skill} ${r}`, 2500)}`
    files[`skills/${skill}/scripts/run.sh`] = {content: `#!/bin/sh\necho ${skill}\n`, mode: 0o755}
  }
  for (const agent of ['reviewer', 'planner', 'tester']) {
    files[`agents/${agent}.md`] =
      `---\nname: ${agent}\ndescription: A ${agent} subagent for the benchmark plugin.\ntools: Read, Grep, Glob\n---\n\n${para(agent, 1200)}`
  }
  for (const command of ['lint', 'ship', 'triage']) {
    files[`commands/${command}.md`] = `---\ndescription: Run ${command}\n---\n\n${para(command, 600)}`
  }
  return files
}

/**
 * install-cold / install-warm: `acme/toolkit`, a repository holding the 50-file plugin at its root,
 * and `acme/market`, a marketplace repository whose catalog (name `acme`) lists it as
 * `{source: "github", repo: "acme/toolkit"}`, so installing `toolkit@acme` clones it over HTTPS.
 * Returns {gitRoot, plugin: {repo, files, entries}, market: {repo}}: `entries` are the plugin's
 * top-level files and folders (what a `cp -r` of the plugin copies, .git left out).
 */
export const makeInstallFixture = (temp) => {
  const gitRoot = temp.path('served')
  const work = temp.path('src')
  const files = toolkitPluginFiles('toolkit')
  const plugin = makeServedRepo(work, gitRoot, 'acme/toolkit', files)
  const catalog = {
    name: 'acme',
    owner: {name: 'Acme'},
    description: 'Benchmark marketplace with one plugin',
    plugins: [
      {
        name: 'toolkit',
        source: {source: 'github', repo: 'acme/toolkit'},
        description: 'The 50-file benchmark plugin',
        version: '1.0.0',
        category: 'tooling',
        keywords: ['bench'],
      },
    ],
  }
  makeServedRepo(work, gitRoot, 'acme/market', {'.claude-plugin/marketplace.json': `${JSON.stringify(catalog, null, 2)}\n`})
  const entries = [...new Set(Object.keys(files).map((p) => p.split('/')[0]))].sort()
  return {gitRoot, plugin: {repo: 'acme/toolkit', files, entries, workTree: plugin.workTree}, market: {repo: 'acme/market'}}
}

/**
 * outdated-50: `markets` marketplace repositories (`vendor<m>/market`, catalog name `m<m>`), each
 * listing `perMarket` small plugins by relative source (`./plugins/m<m>-tool-<j>`: a manifest and
 * one skill). Returns {gitRoot, markets: [{repo, name, plugins: [id…]}], ids}.
 */
export const makeOutdatedFixture = (temp, {markets = 5, perMarket = 10} = {}) => {
  const gitRoot = temp.path('served')
  const work = temp.path('src')
  const list = []
  for (let m = 0; m < markets; m++) {
    const name = `m${m}`
    const files = {}
    const entries = []
    for (let j = 0; j < perMarket; j++) {
      const plugin = `${name}-tool-${String(j).padStart(2, '0')}`
      files[`plugins/${plugin}/.claude-plugin/plugin.json`] = `${JSON.stringify({name: plugin, version: '1.0.0', description: `Benchmark plugin ${plugin}`})}\n`
      files[`plugins/${plugin}/skills/${plugin}-skill/SKILL.md`] =
        `---\nname: ${plugin}-skill\ndescription: Use when a task mentions ${plugin}.\n---\n\n${skillBody(plugin, 1024)}`
      entries.push({name: plugin, source: `./plugins/${plugin}`, version: '1.0.0', description: `Benchmark plugin ${plugin}`})
    }
    files['.claude-plugin/marketplace.json'] = `${JSON.stringify({name, owner: {name: `Vendor ${m}`}, plugins: entries}, null, 2)}\n`
    const repo = `vendor${m}/market`
    makeServedRepo(work, gitRoot, repo, files)
    list.push({repo, name, plugins: entries.map((e) => `${e.name}@${name}`)})
  }
  return {gitRoot, markets: list, ids: list.flatMap((m) => m.plugins)}
}

const CATEGORIES = ['tooling', 'quality', 'security', 'docs', 'data', 'testing', 'design', 'ops']
const WORDS = ['parse', 'render', 'deploy', 'lint', 'format', 'review', 'search', 'index', 'convert', 'sync', 'plan', 'audit']

/**
 * A catalog of `count` plugins (a bare JSON catalog, as served at a catalog URL): every entry has a
 * github source, description, version, author, category, tags and keywords; keyword `kw<i % 1000>`
 * makes `kw42` an exact keyword of 10 entries (and a prefix of kw420…kw429).
 */
export const makeCatalog = (count = 10_000, name = 'big') => {
  const plugins = []
  for (let i = 0; i < count; i++) {
    const id = String(i).padStart(5, '0')
    const vendor = `vendor-${i % 200}`
    plugins.push({
      name: `plugin-${id}`,
      source: {source: 'github', repo: `${vendor}/plugin-${id}`},
      description: `Benchmark plugin ${id}: helps ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]} files in a project`,
      version: `1.${i % 10}.${i % 7}`,
      author: {name: `Vendor ${i % 200}`},
      category: CATEGORIES[i % CATEGORIES.length],
      keywords: [`kw${i % 1000}`, WORDS[i % WORDS.length], `topic-${i % 37}`],
      tags: ['bench'],
    })
  }
  return {name, owner: {name: 'Bench'}, description: `A ${count}-plugin benchmark catalog`, plugins}
}

/** Writes makeCatalog(count) to `<staticRoot>/<file>`; returns {file, bytes, count}. */
export const writeCatalog = (staticRoot, file = 'catalog.json', count = 10_000) => {
  mkdirSync(staticRoot, {recursive: true})
  const text = JSON.stringify(makeCatalog(count))
  writeFileSync(join(staticRoot, file), text)
  return {file: join(staticRoot, file), bytes: Buffer.byteLength(text), count}
}

/** The first file named `name` under `dir` (depth-first), or undefined. */
export const findFile = (dir, name) => {
  if (!existsSync(dir)) return undefined
  for (const e of readdirSync(dir, {withFileTypes: true})) {
    const full = join(dir, e.name)
    if (e.isFile() && e.name === name) return full
    if (e.isDirectory()) {
      const found = findFile(full, name)
      if (found) return found
    }
  }
  return undefined
}
