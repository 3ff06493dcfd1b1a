/**
 * Running the agents' pinned CLIs (test/support/vendor-clis.js) in a sandbox: the environment that
 * points them into its HOME with their updates and telemetry off, the run itself, and the warnings
 * they print. Shared by test/e2e/vendor-cli.test.ts and test/e2e/vendor-cli-native.test.ts.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {expect} from 'vitest'
import type {Sandbox} from './cli.js'
// plain ESM JavaScript, shared with the pretest step and the bench
import {copilotPackages, unpackCopilot, vendorCliPath, VENDOR_CLIS} from './vendor-clis.js'

export type Agent = keyof typeof VENDOR_CLIS

/** Everything the agents' CLIs need pointed into the sandbox, with their updates and telemetry off. */
export const vendorEnv = (sb: Sandbox): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: sb.home,
  XDG_CONFIG_HOME: join(sb.home, '.config'),
  XDG_DATA_HOME: join(sb.home, '.local', 'share'),
  XDG_CACHE_HOME: join(sb.home, '.cache'),
  XDG_STATE_HOME: join(sb.home, '.local', 'state'),
  CLAUDE_CONFIG_DIR: join(sb.home, '.claude'),
  CODEX_HOME: join(sb.home, '.codex'),
  COPILOT_HOME: join(sb.home, '.copilot'),
  NO_COLOR: '1',
  LANG: 'C.UTF-8',
  KIT_TOKEN: 'expanded-token',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  MCP_TIMEOUT: '15000',
  GEMINI_CLI_NO_RELAUNCH: 'true',
  GEMINI_TELEMETRY_ENABLED: 'false',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_SHARE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  COPILOT_AUTO_UPDATE: 'false',
})

export interface Run {
  status: number
  out: string
}

/**
 * Links the Copilot package unpacked once (vendor-clis.js `unpackCopilot`) into the sandbox's
 * XDG_CACHE_HOME, where Copilot would otherwise unpack it again at its first run: its own program,
 * nothing loadout writes or reads.
 */
const shareCopilotPackage = (sb: Sandbox): void => {
  const shared = unpackCopilot()
  for (const rel of copilotPackages(shared)) {
    const link = join(sb.home, '.cache', 'copilot', 'pkg', rel)
    if (existsSync(link)) continue
    mkdirSync(dirname(link), {recursive: true})
    symlinkSync(join(shared, 'copilot', 'pkg', rel), link)
  }
}

/** Runs the agent's pinned CLI in the sandbox project; its path must exist (the pretest step installs it). */
export const vendor = (agent: Agent, sb: Sandbox, args: string[], cwd = sb.project): Promise<Run> => {
  const bin = vendorCliPath(agent)
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run node test/support/vendor-clis.js (npm test's pretest step)`)
  if (agent === 'github-copilot') shareCopilotPackage(sb)
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {cwd, env: {...vendorEnv(sb)}, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({status: code ?? -1, out})
    })
  })
}

/** Lines the CLIs print whatever is configured, which say nothing about loadout's files. */
const BENIGN = [/could not create PATH aliases/, /Ripgrep is not available/]

/** Warnings and errors a CLI printed, but for the benign ones. */
export const complaints = (out: string): string[] =>
  out.split('\n').filter((line) => /warn|error|invalid|malformed|missing|skipping|failed|conflict/i.test(line) && !BENIGN.some((re) => re.test(line)))

/** Edits a JSON file the way the user would (the file made when missing). */
export const editJson = (file: string, edit: (json: any) => void): void => {
  const json = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
  edit(json)
  mkdirSync(dirname(file), {recursive: true})
  writeFileSync(file, JSON.stringify(json, null, 2))
}

/** `git init` of the sandbox project: the agents find a project's settings at its repository root. */
export const gitInit = (dir: string): Promise<number> =>
  new Promise<number>((resolve) => spawn('git', ['init', '-q', dir], {stdio: 'ignore'}).on('close', (c) => resolve(c ?? -1)))

/** Claude Code's start-up listing in `cwd`: the `init` event `claude -p --output-format stream-json` prints before it stops at the login. */
export const claudeInit = async (sb: Sandbox, cwd = sb.project): Promise<any> => {
  const run = await vendor('claude-code', sb, ['-p', 'hi', '--output-format', 'stream-json', '--verbose'], cwd)
  const init = run.out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .find((event) => event.type === 'system' && event.subtype === 'init')
  expect(init, run.out).toBeDefined()
  return init
}

const SUFFIXED = /^(loadout-[a-z0-9-]+)-[0-9a-f]{8}$/

/** A project's marketplace name ends in a suffix of its own (src/core/ops/install/native-name.ts): without it, a listing reads the same in either scope. */
export const sharedMarketName = (name: string): string => name.replace(SUFFIXED, '$1')

/** The `extraKnownMarketplaces` entry loadout registered as `name` (`loadout-<market>-<plugin>`), the project's suffix and all. */
export const loadoutMarketplace = (settings: any, name: string): any => {
  const keys = Object.keys(settings.extraKnownMarketplaces ?? {}).filter((k) => k === name || SUFFIXED.exec(k)?.[1] === name)
  expect(keys, JSON.stringify(settings)).toHaveLength(1)
  return settings.extraKnownMarketplaces[keys[0]!]
}
