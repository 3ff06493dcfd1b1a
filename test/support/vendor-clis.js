// The agents' own CLIs, pinned, installed from the npm registry into a cache outside the project:
// $LOADOUT_VENDOR_CLIS (default ~/.cache/loadout-vendor-clis), one folder per <package>@<version>.
// test/e2e/vendor-cli.test.ts asks them what they load; bench/tools.js runs Claude Code's.
//
//   node test/support/vendor-clis.js     install the missing ones (npm test's pretest step)
//
// Plain ESM with no dependencies, so it runs before (and without) a build.
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

/** Each agent's CLI: its npm package at an exact version, and the executable it puts in node_modules/.bin. */
export const VENDOR_CLIS = {
  'claude-code': {pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude'},
  codex: {pkg: '@openai/codex', version: '0.171.0', bin: 'codex'},
  'gemini-cli': {pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini'},
  opencode: {pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode'},
  'github-copilot': {pkg: '@github/copilot', version: '1.0.102', bin: 'copilot'},
}

export const vendorCache = (env = process.env) => env.LOADOUT_VENDOR_CLIS || join(env.HOME || homedir(), '.cache', 'loadout-vendor-clis')

const folderOf = (cli, env) => join(vendorCache(env), `${cli.pkg.replace('/', '+')}@${cli.version}`)

/** Where an agent's pinned CLI is (or would be) installed. */
export const vendorCliPath = (agent, env = process.env) => {
  const cli = VENDOR_CLIS[agent]
  if (!cli) throw new Error(`no vendor CLI is pinned for ${agent}`)
  return join(folderOf(cli, env), 'node_modules', '.bin', cli.bin)
}

/**
 * Installs one agent's pinned CLI unless it is there: into a staging folder, renamed into place once
 * npm succeeded, so a killed install never leaves a folder that looks installed. A package whose
 * native executable is an optional dependency (Claude Code, Codex, OpenCode, Copilot) needs no
 * install script for it; their postinstall steps only copy that executable, which npm 11 skips.
 */
export const installVendorCli = (agent, env = process.env, log = () => {}) => {
  const cli = VENDOR_CLIS[agent]
  const bin = vendorCliPath(agent, env)
  if (existsSync(bin)) return bin
  const folder = folderOf(cli, env)
  const staging = `${folder}.installing-${process.pid}`
  rmSync(staging, {recursive: true, force: true})
  mkdirSync(staging, {recursive: true})
  writeFileSync(join(staging, 'package.json'), '{"private": true}\n')
  log(`installing ${cli.pkg}@${cli.version} into ${folder} (once)`)
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${cli.pkg}@${cli.version}`], {
      cwd: staging,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 900_000,
    })
    if (!existsSync(join(staging, 'node_modules', '.bin', cli.bin))) throw new Error(`${cli.pkg}@${cli.version} installed no ${cli.bin}`)
    rmSync(folder, {recursive: true, force: true})
    renameSync(staging, folder)
  } catch (error) {
    rmSync(staging, {recursive: true, force: true})
    throw error
  }
  return bin
}

/** The version an installed CLI reports, run in an empty HOME with its updates and telemetry off. */
export const vendorCliVersion = (agent, env = process.env) => {
  const home = join(vendorCache(env), '.version-home')
  mkdirSync(home, {recursive: true})
  const out = spawnSync(vendorCliPath(agent, env), ['--version'], {
    encoding: 'utf8',
    env: {PATH: env.PATH, HOME: home, DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', NO_COLOR: '1'},
    timeout: 60_000,
  })
  if (out.status !== 0) throw new Error(`${agent} --version: ${out.stderr.trim() || `exit ${out.status}`}`)
  return out.stdout.trim()
}

/**
 * The Copilot CLI unpacks its own package (~235 MB, ~5 s of CPU) into $XDG_CACHE_HOME/copilot/pkg at
 * its first run in a HOME. Unpacked here once, where every sandbox HOME can link it
 * (test/support/vendor-run.ts), instead of once per test; the folder holding `copilot/pkg` is
 * returned. Staged and renamed into place, like the install.
 */
export const unpackCopilot = (env = process.env) => {
  const folder = join(folderOf(VENDOR_CLIS['github-copilot'], env), 'unpacked')
  if (copilotPackages(folder).length > 0) return folder
  const staging = `${folder}.unpacking-${process.pid}`
  rmSync(staging, {recursive: true, force: true})
  mkdirSync(staging, {recursive: true})
  const out = spawnSync(vendorCliPath('github-copilot', env), ['--version'], {
    encoding: 'utf8',
    env: {PATH: env.PATH, HOME: staging, XDG_CACHE_HOME: staging, COPILOT_AUTO_UPDATE: 'false', NO_COLOR: '1'},
    timeout: 300_000,
  })
  if (out.status !== 0 || copilotPackages(staging).length === 0) {
    rmSync(staging, {recursive: true, force: true})
    throw new Error(`copilot --version unpacked nothing: ${out.stderr.trim() || `exit ${out.status}`}`)
  }
  // another worker may have put it there meanwhile: theirs is as good
  if (copilotPackages(folder).length === 0) {
    rmSync(folder, {recursive: true, force: true})
    renameSync(staging, folder)
  }
  rmSync(staging, {recursive: true, force: true})
  return folder
}

/** The unpacked Copilot packages under `cache` (an XDG_CACHE_HOME), as `<platform>/<version>` paths relative to `copilot/pkg`. */
export const copilotPackages = (cache) => {
  const pkg = join(cache, 'copilot', 'pkg')
  if (!existsSync(pkg)) return []
  return readdirSync(pkg).flatMap((platform) =>
    readdirSync(join(pkg, platform))
      .filter((version) => existsSync(join(pkg, platform, version, '.extraction-complete')))
      .map((version) => join(platform, version)),
  )
}

const main = () => {
  let failed = false
  for (const agent of Object.keys(VENDOR_CLIS)) {
    try {
      installVendorCli(agent, process.env, (line) => process.stderr.write(`vendor-clis: ${line}\n`))
      if (agent === 'github-copilot') unpackCopilot()
    } catch (error) {
      failed = true
      process.stderr.write(`vendor-clis: ${agent}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}\n`)
    }
  }
  process.exitCode = failed ? 1 : 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main()
