import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync} from 'node:fs'
import {join, relative, sep} from 'node:path'
import {afterAll} from 'vitest'
import {BIN, makeSandbox, NODE, runCli, type CliResult, type Sandbox} from '../support/cli.js'

/** The agents the skills commands must serve, and where each one's first skills folder is per scope. */
export const AGENTS = ['claude-code', 'codex', 'deepagents', 'cst-agent', 'universal'] as const
export type AgentId = (typeof AGENTS)[number]
export type ScopeName = 'user' | 'project'

/**
 * Where `skills create` must write, written out by hand from TARGETS.md (not computed by the code
 * under test): relative to HOME for the user scope, to the project root for the project scope.
 */
export const FIRST_SKILLS_FOLDER: Record<AgentId, Record<ScopeName, string>> = {
  'claude-code': {user: '.claude/skills', project: '.claude/skills'},
  codex: {user: '.agents/skills', project: '.agents/skills'},
  deepagents: {user: '.deepagents/agent/skills', project: '.deepagents/skills'},
  'cst-agent': {user: '.config/cst-agent/skills', project: '.agent/skills'},
  universal: {user: '.agents/skills', project: '.agents/skills'},
}

export const skillsFolder = (sb: Sandbox, agent: AgentId, scope: ScopeName): string =>
  join(scope === 'user' ? sb.home : sb.project, FIRST_SKILLS_FOLDER[agent][scope])

/** Sandboxes made in a test file, removed once the file is done. */
export const sandboxes = (): ((options?: {git?: boolean}) => Sandbox) => {
  const made: Sandbox[] = []
  afterAll(() => {
    for (const sb of made) sb.cleanup()
  })
  return (options = {}) => {
    const sb = makeSandbox(options)
    made.push(sb)
    return sb
  }
}

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  uid?: number
  gid?: number
}

/** Runs `loadout <args>` in the sandbox project with the sandbox environment (plus `env`). */
export const loadout = (sb: Sandbox, args: readonly string[], options: RunOptions = {}): Promise<CliResult> =>
  runCli(args, {
    cwd: options.cwd ?? sb.project,
    env: {...sb.env, ...options.env},
    ...(options.uid === undefined ? {} : {uid: options.uid}),
    ...(options.gid === undefined ? {} : {gid: options.gid}),
  })

/** The `{error}` object every command prints under --json when it fails. */
export interface JsonError {
  error: {code: string; exitStatus: number; message: string; suggestions: string[]; details?: unknown}
}

/** The parsed --json error of a failed run; throws (failing the test) when stdout holds none. */
export const jsonError = (result: CliResult): JsonError['error'] => {
  let parsed: Partial<JsonError>
  try {
    parsed = result.json<Partial<JsonError>>()
  } catch {
    throw new Error(`expected a JSON error on stdout, got:\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
  if (!parsed.error) throw new Error(`expected {error} on stdout, got:\n${result.stdout}`)
  return parsed.error
}

/** A SKILL.md with the given frontmatter fields (written as simple YAML) and body. */
export const skillMd = (fields: Record<string, string>, body = '# Title\n\nDo the thing.\n'): string =>
  `---\n${Object.entries(fields)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n---\n${body}`

/** Writes `<parent>/<name>/SKILL.md` (a valid one unless `text` says otherwise) and returns the folder. */
export const writeSkill = (parent: string, name: string, text?: string): string => {
  const dir = join(parent, name)
  mkdirSync(dir, {recursive: true})
  writeFileSync(join(dir, 'SKILL.md'), text ?? skillMd({name, description: `The ${name} skill, for tests.`}))
  return dir
}

const fileDigest = (path: string, size: number, mtimeMs: number): string => {
  if (size > 1024 * 1024) return `mtime ${mtimeMs}`
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex')
  } catch {
    return `unreadable, mtime ${mtimeMs}`
  }
}

/** Gives every folder below `root` mode 0755 and every file 0644, parents first, so that any user can read them. */
export const openUp = (root: string): void => {
  chmodSync(root, 0o755)
  for (const entry of readdirSync(root, {withFileTypes: true})) {
    const full = join(root, entry.name)
    if (entry.isDirectory()) openUp(full)
    else if (entry.isFile()) chmodSync(full, 0o644)
  }
}

/**
 * Everything below `root`, without following links: folders with their mode, files with their size
 * and a hash of their bytes (size and mtime only for big ones), links with their target.
 */
export const snapshot = (root: string): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      // a folder the test made unreadable (when the tests do not run as root): its mode says enough
      return
    }
    for (const entry of names) {
      const full = join(dir, entry)
      const key = relative(root, full)
      const stat = lstatSync(full)
      if (stat.isSymbolicLink()) out.set(key, `link -> ${readlinkSync(full)}`)
      else if (stat.isDirectory()) {
        out.set(key, `dir ${(stat.mode & 0o7777).toString(8)}`)
        walk(full)
      } else out.set(key, `file ${(stat.mode & 0o7777).toString(8)} ${stat.size} ${fileDigest(full, stat.size, stat.mtimeMs)}`)
    }
  }
  walk(root)
  return out
}

/** The paths (relative to the snapshot root) added, removed or changed between two snapshots. */
export const changes = (before: Map<string, string>, after: Map<string, string>): string[] => {
  const keys = new Set([...before.keys(), ...after.keys()])
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort()
}

/**
 * The changes that are neither inside one of the `allowed` folders (relative paths) nor one of the
 * folders above it (which a write may have had to create).
 */
export const changesOutside = (changed: readonly string[], allowed: readonly string[]): string[] =>
  changed.filter((path) => !allowed.some((a) => path === a || path.startsWith(a + sep) || a.startsWith(path + sep)))

/**
 * Options under which file modes bind the CLI: none when the tests do not run as root; as root (which
 * ignores modes) the CLI runs as nobody (65534). Undefined when nobody cannot run it here (node or the
 * checkout under a private folder such as /root): the permission tests are then skipped, loudly.
 */
export const unprivileged = (): {uid?: number; gid?: number} | undefined => {
  if (process.getuid?.() !== 0) return {}
  const probe = spawnSync(NODE, ['-e', `require('node:fs').accessSync(${JSON.stringify(BIN)}, 4)`], {uid: 65534, gid: 65534})
  if (probe.status === 0) return {uid: 65534, gid: 65534}
  console.warn(`permission tests skipped: uid 65534 cannot run ${NODE} on ${BIN}`)
  return undefined
}

/** The folder names of a skills folder, hidden ones (staging leftovers) included. */
export const entries = (dir: string): string[] => readdirSync(dir).sort()

export interface StateInstall {
  plugin: string
  target: string
  scope: ScopeName
  /** absolute paths of the files the plugin wrote */
  files: string[]
}

/** Writes loadout's user install state ($HOME/.config/loadout/state.json), as an install records it. */
export const writeState = (home: string, installs: readonly StateInstall[]): void => {
  const state = {installs: installs.map((i) => ({...i, files: i.files.map((path) => ({path, sha256: '0'.repeat(64)}))}))}
  const dir = join(home, '.config', 'loadout')
  mkdirSync(dir, {recursive: true})
  writeFileSync(join(dir, 'state.json'), JSON.stringify(state))
}

/** Every file under a folder whose bytes hold `needle`. */
export const filesHolding = (dir: string, needle: string): string[] => {
  const out: string[] = []
  const walk = (d: string) => {
    for (const entry of readdirSync(d, {withFileTypes: true})) {
      const full = join(d, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && readFileSync(full).includes(needle)) out.push(full)
    }
  }
  walk(dir)
  return out
}
