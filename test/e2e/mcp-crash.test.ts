/**
 * `loadout mcp add` and `mcp remove` killed with SIGKILL at every step (into claude-code, codex and
 * cursor with a big ~/.claude.json and a commented config.toml): each runs once with
 * LOADOUT_FAILPOINT_TRACE, which lists the failpoints it passes (today add passes 28 once the server's
 * folder is cached, remove 22), then is killed once at each, and SOAK more times at a random moment.
 * The next command finds the server in all three agents or in none, and with none the user's files
 * are byte for byte as they were. A standalone server rides the same transaction as a plugin.
 */
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadout, sandboxes} from './helpers.js'
import * as run from './in-process.js'
import {
  configHashes,
  journalPending,
  killLabel,
  killPlan,
  killRun,
  prepareHome,
  recordedTargets,
  sha,
  tempNames,
  tracePoints,
  unkilledRound,
} from './tx-support.js'

const sandbox = sandboxes()
const SOAK = 3
const AGENTS = 'claude-code,codex,cursor'
const ID = 'mcp:files@local'

describe('SIGKILL at every step of mcp add and mcp remove', () => {
  it('leaves the server in every agent or in none', {timeout: 1_200_000}, async () => {
    const sb = sandbox()
    prepareHome(sb)
    const env = run.sandboxEnv(sb)
    mkdirSync(join(sb.home, '.cursor'))
    writeFileSync(join(sb.home, '.cursor', 'mcp.json'), '{\n  // mine\n  "mcpServers": {}\n}\n')
    const original = {...configHashes(sb.home), cursor: sha(join(sb.home, '.cursor', 'mcp.json'))}
    const hashes = () => ({...configHashes(sb.home), cursor: sha(join(sb.home, '.cursor', 'mcp.json'))})
    const add = ['mcp', 'add', 'files', '--agent', AGENTS, '--scope', 'user', '--yes', '--env', 'FILES_TOKEN', '--', 'files-server', '--stdio']
    const remove = ['mcp', 'remove', 'files', '--scope', 'user', '--yes']
    const again = {add: () => run.mcpAdd(env, 'files', AGENTS, ['files-server', '--stdio'], ['FILES_TOKEN']), remove: () => run.mcpRemove(env, 'files')}

    const check = async (label: string): Promise<'none' | 'all'> => {
      await run.verify(env).catch((error) => expect.fail(`${label}: verify failed: ${error.message} ${JSON.stringify(error.details ?? '')}`))
      expect(journalPending(sb.home), label).toBe(false)
      expect(tempNames(sb.home), label).toEqual([])
      const targets = recordedTargets(sb.home, ID)
      if (targets.length === 0) {
        expect(hashes(), label).toEqual(original)
        return 'none'
      }
      expect(targets, label).toEqual(AGENTS.split(',').sort())
      expect(JSON.parse(readFileSync(join(sb.home, '.claude.json'), 'utf8')).mcpServers.files.command, label).toBe('files-server')
      expect(readFileSync(join(sb.home, '.codex', 'config.toml'), 'utf8'), label).toContain('[mcp_servers.files]')
      expect(existsSync(join(sb.home, '.cursor', 'mcp.json')), label).toBe(true)
      return 'all'
    }

    // one unkilled round through the CLI, then a traced one that names the points each command passes
    await unkilledRound(
      sb,
      [
        [add, 'all'],
        [remove, 'none'],
      ],
      check,
    )
    const traced = {add: await tracePoints(sb, add), remove: await tracePoints(sb, remove)}
    expect(await check('after a traced add and remove')).toBe('none')
    console.log(`failpoints passed: add ${traced.add.points.length}, remove ${traced.remove.points.length}`)
    for (const t of Object.values(traced)) expect(t.points.length).toBeGreaterThan(15)

    const adds = killPlan(traced.add, SOAK)
    const removes = killPlan(traced.remove, SOAK)
    for (let i = 0; i < Math.max(adds.length, removes.length); i++) {
      for (const [command, args, kills, after] of [
        ['add', add, adds, 'all'],
        ['remove', remove, removes, 'none'],
      ] as const) {
        const kill = kills[i]
        if (!kill) {
          await again[command]()
          continue
        }
        await killRun(sb, args, kill)
        const label = killLabel(`mcp ${command}`, kill)
        // the state after a kill is always whole; running again finishes the job
        if ((await check(label)) !== after) {
          if ('point' in kill) await again[command]()
          else expect((await loadout(sb, args)).status, `${label}, then again`).toBe(0)
        }
        expect(await check(`${label}, re-run`)).toBe(after)
      }
    }
    expect(await check('at the end')).toBe('none')
  })
})
